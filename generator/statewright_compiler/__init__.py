"""statewright's compiler: TOML state-machine specs in, typed Python modules and docs out.

The pipeline, one folder per stage: :mod:`spec` (load the TOML, keeping positions, and the
shape pass) -> :mod:`check` (the semantic pass: :mod:`check.validate` runs both) ->
:mod:`model` (the compiled machine every renderer reads) -> :mod:`codegen` (render the module
through ``templates/``, then lay it out) -> :mod:`emit` (write, or compare for staleness);
:mod:`pipeline` runs them for a set of specs. Beside the module: :mod:`docs` (the Markdown
page), :mod:`diagrams` (Mermaid and Graphviz), :mod:`scxml` (import and export) and
:mod:`commands` (init, tools). The command line lives in :mod:`cli`, entered through
:mod:`launch`; :mod:`mypy_plugin` is the mypy plugin.

Importing this package imports nothing else, so the ``statewright`` command can tell a user of a
runtime-only install what is missing; the names below load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statewright_compiler.check.validate import compile_spec, validate_source
    from statewright_compiler.diagnostics import Diagnostic, ExitCode, SpecError
    from statewright_compiler.model import Machine

__all__ = [
    "DOCS_URL",
    "SPEC_LANGUAGE_URL",
    "Diagnostic",
    "ExitCode",
    "Machine",
    "SpecError",
    "__version__",
    "compile_spec",
    "validate_source",
]

__version__ = "0.2.0"
#: Where the docs are. The wheel ships none, so what the compiler writes into a project (the
#: starter spec, comments in generated code) names a page by its address under this one.
DOCS_URL = "https://github.com/statewright/statewright/blob/main/docs"
SPEC_LANGUAGE_URL = f"{DOCS_URL}/spec-language.md"

_LAZY = {
    "Diagnostic": "statewright_compiler.diagnostics",
    "ExitCode": "statewright_compiler.diagnostics",
    "SpecError": "statewright_compiler.diagnostics",
    "Machine": "statewright_compiler.model",
    "compile_spec": "statewright_compiler.check.validate",
    "validate_source": "statewright_compiler.check.validate",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'statewright_compiler' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(__all__)

"""statewright's compiler: TOML state-machine specs in, typed Python modules and docs out.

The pipeline, one module per step: :mod:`load` -> :mod:`validate` (with :mod:`semantics`) ->
:mod:`model` -> :mod:`render` -> :mod:`emit`. The command line lives in :mod:`cli`.
"""

from __future__ import annotations

from statewright_compiler.diagnostics import Diagnostic, ExitCode, SpecError
from statewright_compiler.model import Machine
from statewright_compiler.validate import compile_spec, validate_source

__all__ = [
    "Diagnostic",
    "ExitCode",
    "Machine",
    "SpecError",
    "__version__",
    "compile_spec",
    "validate_source",
]

__version__ = "0.1.0"

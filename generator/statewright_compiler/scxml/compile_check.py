"""The translated spec goes through the compiler before it is written: what the compiler refuses
is an error at the SCXML element the refused line came from, never a spec that does not compile.

The importer translates what it can say; a few documents SCXML itself forbids are only caught
by the checks the compiler makes on every spec: several targets that cannot be active together,
an ``initial`` or a history default that leads back to its own history state. Running the
compiler here keeps one copy of those checks, and guarantees that ``import-scxml`` never exits 0
with a spec ``generate`` would refuse: an error the importer did not foresee is reported as
``scxml-unsupported`` rather than written.
"""

from __future__ import annotations

from typing import Final

from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.scxml.spec_text import ImportedSpec
from statewright_compiler.spec.load import parse_spec_text

__all__ = ["compiler_errors"]

#: Compiler codes for what SCXML forbids as well (a target set that is no legal configuration,
#: an initial or a history default that never ends).
_SCXML_INVALID: Final = frozenset({"invalid-target", "invalid-initial", "invalid-history"})


def compiler_errors(spec: ImportedSpec, shown: str) -> list[Diagnostic]:
    """The compiler's errors about ``spec``, at the SCXML elements its lines came from."""
    try:
        # Checked under a neutral file name: where the spec is saved is the user's choice, and
        # only its module name depends on that.
        validate_source(parse_spec_text(spec.text, "imported.toml"))
    except SpecError as error:
        return [_at_element(d, spec, shown) for d in error.diagnostics if d.is_error]
    return []


def _at_element(diagnostic: Diagnostic, spec: ImportedSpec, shown: str) -> Diagnostic:
    origins = spec.origins
    line, column = origins[diagnostic.line - 1] if 0 < diagnostic.line <= len(origins) else (1, 1)
    if diagnostic.code in _SCXML_INVALID:
        code, message = "scxml-invalid", diagnostic.message
    else:
        code = "scxml-unsupported"
        message = f"cannot be translated: the spec would not compile: {diagnostic.message}"
    return Diagnostic(code, shown, line, column, message, diagnostic.hint)

"""Errors are data: every problem found in a spec is a :class:`Diagnostic`, printed in one place.

The format is the one compilers use, so editors and CI logs can jump to it::

    spec/task.toml:41:7: error[unknown-state]: transition target 'reflectng' is not a state
      hint: did you mean 'reflecting'?
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Diagnostic", "ExitCode", "Severity", "SpecError", "did_you_mean", "format_diagnostic"]


class ExitCode(enum.IntEnum):
    """Process exit codes of the ``statewright`` command."""

    OK = 0
    #: A spec is invalid or a generated file is stale.
    FAILURE = 1
    #: The command line itself is wrong (unknown option, missing file argument...).
    USAGE = 2


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a spec, anchored at a 1-based line and column of the spec file."""

    code: str
    path: str
    line: int
    column: int
    message: str
    hint: str | None = None
    severity: Severity = Severity.ERROR

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


class SpecError(Exception):
    """Raised when a spec cannot be compiled; carries every diagnostic found, not just the first."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(format_diagnostic(d) for d in self.diagnostics))


def format_diagnostic(diagnostic: Diagnostic) -> str:
    """Render ``path:line:col: severity[code]: message`` plus an indented hint line."""
    text = (
        f"{diagnostic.path}:{diagnostic.line}:{diagnostic.column}: "
        f"{diagnostic.severity.value}[{diagnostic.code}]: {diagnostic.message}"
    )
    if diagnostic.hint:
        text += f"\n  hint: {diagnostic.hint}"
    return text


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, or None when nothing is close."""
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean {matches[0]!r}?" if matches else None

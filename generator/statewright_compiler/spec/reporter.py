"""Where the diagnostics of one spec collect: key paths turned into positions, plus the small
helpers messages share."""

from __future__ import annotations

from statewright_compiler.diagnostics import Diagnostic, Severity
from statewright_compiler.spec.load import SpecSource
from statewright_compiler.spec.positions import KeyPath

__all__ = ["Reporter", "describe_type", "excerpt"]


class Reporter:
    """Collects diagnostics for one spec, turning key paths into positions."""

    def __init__(self, source: SpecSource) -> None:
        self.source = source
        self.diagnostics: list[Diagnostic] = []

    def report(
        self,
        code: str,
        path: KeyPath,
        message: str,
        hint: str | None = None,
        *,
        key: bool = False,
        offset: int = 0,
        severity: Severity = Severity.ERROR,
    ) -> None:
        position = self.source.locate(path, key=key)
        self.diagnostics.append(
            Diagnostic(
                code,
                self.source.path,
                position.line,
                position.column + offset,
                message,
                hint,
                severity,
            )
        )

    def report_at(
        self, code: str, line: int, column: int, message: str, hint: str | None = None
    ) -> None:
        self.diagnostics.append(Diagnostic(code, self.source.path, line, column, message, hint))

    @property
    def has_errors(self) -> bool:
        return any(diagnostic.is_error for diagnostic in self.diagnostics)

    def line(self, path: KeyPath) -> int:
        return self.source.locate(path).line

    def column(self, path: KeyPath) -> int:
        return self.source.locate(path).column


def excerpt(text: str, limit: int = 60) -> str:
    """``text`` quoted for a message, shortened when long (a diagnostic is one readable line)."""
    return repr(text) if len(text) <= limit else repr(text[: limit - 3]) + "..."


def describe_type(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string"}
    names |= {list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)

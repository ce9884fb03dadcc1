"""What the command's handlers share, in :mod:`~statewright_compiler.cli` and in this package:
the usage error (exit code 2), printing diagnostics, and compiling one spec for a command that
reads a single one."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from statewright_compiler.check.validate import compile_spec
from statewright_compiler.diagnostics import Diagnostic, SpecError, format_diagnostic
from statewright_compiler.model import Machine
from statewright_compiler.pipeline import display_path

__all__ = ["UsageError", "compile_one", "print_diagnostics"]


class UsageError(Exception):
    """Wrong arguments or configuration: exit code 2."""


def print_diagnostics(diagnostics: Sequence[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        print(format_diagnostic(diagnostic), file=sys.stderr)


def compile_one(spec: Path) -> Machine | None:
    """The machine of one spec, its warnings printed; None (diagnostics printed) if invalid."""
    try:
        machine, warnings = compile_spec(spec, display_path(spec))
    except SpecError as error:
        print_diagnostics(error.diagnostics)
        return None
    print_diagnostics(warnings)
    return machine

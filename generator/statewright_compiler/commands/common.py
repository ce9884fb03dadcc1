"""What the command's handlers share, in :mod:`~statewright_compiler.cli` and in this package:
the usage error (exit code 2), printing diagnostics, compiling one spec for a command that reads
a single one, and importing the user's code named ``module:name`` (``statewright mcp``,
``statewright check-store``)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from statewright_compiler.check.validate import compile_spec
from statewright_compiler.config import ConfigError
from statewright_compiler.diagnostics import Diagnostic, SpecError, format_diagnostic
from statewright_compiler.model import Machine
from statewright_compiler.pipeline import display_path

__all__ = ["UsageError", "compile_one", "import_named", "print_diagnostics"]


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


def import_named(path: str, what: str) -> Any:
    """The object ``module:qualified.name`` names, or a ConfigError saying what is wrong."""
    module_name, _, qualified = path.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
    except Exception as error:  # an import runs the module's code: any error can come out
        raise ConfigError(
            f"{what} {path}: cannot import {module_name}: {type(error).__name__}: {error}"
        ) from None
    for part in qualified.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ConfigError(f"{what} {path}: {module_name} has no {qualified}") from None
    return found

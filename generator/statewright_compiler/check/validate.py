"""Step 2 of the pipeline: check a loaded spec and build the :class:`~model.Machine`.

Checking is split in two passes. The shape pass (:mod:`read_spec`, with :mod:`read_events`,
:mod:`read_rules` and :mod:`fields`) checks every table's keys, types and names and collects
:mod:`declarations`; :mod:`semantics` then resolves references, expands selectors and checks
machine-level rules. Every problem becomes a :class:`Diagnostic` (collected by a
:class:`~reporter.Reporter`); all of them are reported together, and no model is built while
any error remains.
"""

from __future__ import annotations

from pathlib import Path

from statewright_compiler.check.semantics import build_machine
from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.model import Machine
from statewright_compiler.spec.load import SpecSource, load_spec
from statewright_compiler.spec.read_events import RESERVED_METHOD_NAMES
from statewright_compiler.spec.read_spec import SpecReader
from statewright_compiler.spec.reporter import Reporter

__all__ = ["RESERVED_METHOD_NAMES", "compile_spec", "validate_source"]


def validate_source(source: SpecSource) -> tuple[Machine, tuple[Diagnostic, ...]]:
    """Check ``source`` and build its model; raise :class:`SpecError` if any error was found.

    Returns the machine together with the warnings, which do not stop compilation.
    """
    reporter = Reporter(source)
    declarations = SpecReader(reporter).read(source.document)
    machine = build_machine(declarations, reporter)
    errors = [diagnostic for diagnostic in reporter.diagnostics if diagnostic.is_error]
    if errors or machine is None:
        raise SpecError(sorted(reporter.diagnostics, key=_diagnostic_order))
    return machine, tuple(sorted(reporter.diagnostics, key=_diagnostic_order))


def _diagnostic_order(diagnostic: Diagnostic) -> tuple[int, int, str]:
    return (diagnostic.line, diagnostic.column, diagnostic.code)


def compile_spec(
    path: Path, display_path: str | None = None
) -> tuple[Machine, tuple[Diagnostic, ...]]:
    """Load and validate one spec file: the front half of the pipeline."""
    return validate_source(load_spec(path, display_path))

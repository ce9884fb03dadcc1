"""``statewright diff OLD NEW`` (``--stub``: the migration's skeleton instead of the report) and
the version check of ``statewright check --against REV``.

``diff`` exits 0 when every change is compatible, 1 when some change needs a version bump and a
migration (or breaks callers), 2 on bad input (a side that names no spec, or does not compile).
``check`` with a baseline (``--against REV`` or ``[tool.statewright] deploy_baseline``) compares
each spec with its text at that revision and refuses one whose incompatible change kept the old
``version`` (``error[version-not-bumped]``); a spec the baseline does not have is new and passes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from statewright_compiler.deploy.diff import SpecDiff, diff_machines
from statewright_compiler.deploy.report import diff_json, diff_text
from statewright_compiler.deploy.sources import (
    SourceError,
    exists_at,
    load_side,
    repository_path,
    verify_revision,
)
from statewright_compiler.diagnostics import (
    Diagnostic,
    ExitCode,
    Severity,
    SpecError,
    format_diagnostic,
)
from statewright_compiler.model import Machine
from statewright_compiler.spec.load import load_spec

__all__ = ["baseline_diagnostics", "run_diff", "versions_bumped"]


def run_diff(old: str, new: str, output_format: str, cwd: Path, *, stub: bool = False) -> ExitCode:
    """Print the changes from ``old`` to ``new``; the exit code says whether any matters. With
    ``stub``, print the skeleton of the migration instead (exit 0)."""
    machines: list[Machine] = []
    failed = False
    for argument in (old, new):
        try:
            machines.append(load_side(argument, cwd))
        except SourceError as error:
            print(f"statewright: error: {error}", file=sys.stderr)
            failed = True
        except SpecError as error:
            for diagnostic in error.diagnostics:
                print(format_diagnostic(diagnostic), file=sys.stderr)
            failed = True
    if failed:
        return ExitCode.USAGE
    diff = diff_machines(*machines)
    if stub:
        from statewright_compiler.deploy.stub import migration_stub

        if diff.new.version != diff.old.version + 1:
            print(
                f"statewright: warning: the stub migrates version {diff.old.version} to "
                f"{diff.new.version}, but migrations[v] take version v to v + 1: raise the "
                f"version to {diff.old.version + 1}, or chain one migration per version",
                file=sys.stderr,
            )
        sys.stdout.write(migration_stub(diff, old, new))
        return ExitCode.OK
    render = diff_json if output_format == "json" else diff_text
    sys.stdout.write(render(diff, old, new))
    return ExitCode.FAILURE if diff.bump_required else ExitCode.OK


def baseline_diagnostics(
    specs: Sequence[tuple[Path, str]], machines: Sequence[Machine], revision: str
) -> list[Diagnostic]:
    """A ``version-not-bumped`` error for each spec (path, shown path) whose machine changed
    incompatibly since ``revision`` and kept its version; raises :class:`SourceError` when the
    revision or the repository cannot be read."""
    by_source = {machine.source_path: machine for machine in machines}
    found: list[Diagnostic] = []
    if specs:
        verify_revision(revision, specs[0][0].resolve().parent)
    for spec, shown in specs:
        machine = by_source.get(shown)
        if machine is None:
            continue
        at_revision = f"{revision}:{repository_path(spec)}"
        if not exists_at(at_revision, spec.resolve().parent):
            continue  # a new spec: nothing of it is deployed
        try:
            old = load_side(at_revision, spec.resolve().parent)
        except SpecError:
            found.append(_baseline_invalid(shown, at_revision))
            continue
        diff = diff_machines(old, machine)
        if diff.bump_required and not diff.bumped:
            found.append(_not_bumped(spec, shown, at_revision, diff))
    return found


def versions_bumped(
    specs: Sequence[tuple[Path, str]], machines: Sequence[Machine], revision: str
) -> bool:
    """Print :func:`baseline_diagnostics`; False when one is an error."""
    found = baseline_diagnostics(specs, machines, revision)
    for diagnostic in found:
        print(format_diagnostic(diagnostic), file=sys.stderr)
    return not any(diagnostic.is_error for diagnostic in found)


def _not_bumped(spec: Path, shown: str, at_revision: str, diff: SpecDiff) -> Diagnostic:
    position = load_spec(spec, shown).locate(("machine", "version"))
    listed = ", ".join(f"{c.kind} {c.path}" for c in diff.incompatible)
    return Diagnostic(
        "version-not-bumped",
        shown,
        position.line,
        position.column,
        f"changed incompatibly since {at_revision} but kept version {diff.new.version}: {listed}",
        f"set version = {diff.old.version + 1} and migrate stored instances "
        f"(`statewright diff {at_revision} {shown}` explains each change)",
    )


def _baseline_invalid(shown: str, at_revision: str) -> Diagnostic:
    return Diagnostic(
        "baseline-invalid",
        shown,
        1,
        1,
        f"{at_revision} does not compile, so it is not compared",
        "`statewright validate` it at that revision, or name another with --against",
        Severity.WARNING,
    )

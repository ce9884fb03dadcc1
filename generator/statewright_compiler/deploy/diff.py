"""Two compiled machines compared as data: every :class:`~changes.Change`, and whether the
spec's ``version`` had to be bumped for them (and was)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from statewright_compiler.deploy.changes import Change, ChangeClass, change, sorted_changes
from statewright_compiler.deploy.data import compare_data
from statewright_compiler.deploy.events import compare_events
from statewright_compiler.deploy.states import StateMatch, compare_states
from statewright_compiler.deploy.timers import compare_timers
from statewright_compiler.deploy.transitions import compare_transitions
from statewright_compiler.model import Machine
from statewright_compiler.model.fingerprint import fingerprint

__all__ = ["SpecDiff", "diff_machines"]


@dataclass(frozen=True)
class SpecDiff:
    old: Machine
    new: Machine
    changes: tuple[Change, ...]

    def of_class(self, change_class: ChangeClass) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.change_class is change_class)

    @property
    def incompatible(self) -> tuple[Change, ...]:
        """The changes stored instances notice: each needs a version bump."""
        return tuple(c for c in self.changes if c.change_class.incompatible)

    @property
    def bump_required(self) -> bool:
        return bool(self.incompatible)

    @property
    def bumped(self) -> bool:
        return self.new.version > self.old.version

    @property
    def compatible_fingerprint(self) -> str | None:
        """The old spec's fingerprint when stored instances can restore under the new one as
        they are (every change compatible, the text changed): what the runtime is told with
        ``MachineOptions(compatible_fingerprints=...)``; None when the fingerprint is the same
        (documentation, comments and layout are not part of it) or a bump is required."""
        old, new = fingerprint(self.old), fingerprint(self.new)
        return old if old != new and not self.bump_required else None

    @property
    def version_verdict(self) -> str:
        """One line: whether the version must be bumped, and whether it was."""
        old, new = self.old.version, self.new.version
        if not self.bump_required:
            return f"version: no bump needed (version {old} -> {new})"
        if self.bumped:
            return f"version: bump needed, done ({old} -> {new}); stored instances need a migration"
        return f"version: must be bumped (still {new}, was {old}): set version = {old + 1}"


def diff_machines(old: Machine, new: Machine) -> SpecDiff:
    """Every change from ``old`` to ``new``, worst first."""
    state_changes, match = compare_states(old, new)
    changes = [
        *_compare_machine(old, new, match),
        *state_changes,
        *compare_events(old, new),
        *compare_transitions(old, new, match),
        *compare_timers(old, new, match),
        *compare_data(old, new),
    ]
    return SpecDiff(old, new, sorted_changes(changes))


def _named_by_file(machine: Machine) -> bool:
    """Whether the module is named after the spec's file (no ``module`` key, as far as can be
    told): two copies of a spec under two file names are not a module rename."""
    return machine.module_name == PurePosixPath(machine.source_path).stem


def _compare_machine(old: Machine, new: Machine, match: StateMatch) -> list[Change]:
    found: list[Change] = []

    def add(kind: str, path: str, message: str) -> None:
        found.append(change(kind, path, message))

    if old.name != new.name:
        add("machine-renamed", "machine.name", f"{old.name} is now {new.name}: snapshots name it")
    if old.module_name != new.module_name and not (_named_by_file(old) and _named_by_file(new)):
        add(
            "module-renamed", "machine.module", f"module {old.module_name} is now {new.module_name}"
        )
    if new.version < old.version:
        add("version-lowered", "machine.version", f"version {old.version} is now {new.version}")
    elif new.version > old.version:
        add("version-raised", "machine.version", f"version {old.version} is now {new.version}")
    if old.chart != new.chart:
        kinds = ("flat machine", "statechart")
        add(
            "machine-kind-changed",
            "machine",
            f"a {kinds[old.chart]} is now a {kinds[new.chart]}: snapshots differ in shape",
        )
    elif not new.chart and match.new_name(old.initial) != new.initial:
        add(
            "initial-changed",
            "machine.initial",
            f"stored walks start at {old.initial}, not {new.initial}",
        )
    elif new.chart and tuple(map(match.new_name, old.initial_targets)) != new.initial_targets:
        add("chart-initial-changed", "machine.initial", f"new instances start in {new.initial}")
    if old.on_error != new.on_error:
        add("on-error-changed", "machine.on_error", f"on_error is {new.on_error!r} now")
    if old.description != new.description:
        add("description-changed", "machine.description", "the machine's description changed")
    if old.metadata != new.metadata:
        add("metadata-changed", "machine.metadata", "the machine's metadata changed")
    return found

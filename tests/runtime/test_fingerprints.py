"""Fingerprints: every snapshot and every history record names the spec it was written under (its
``spec_hash``), and a snapshot of another spec at the machine's own version is refused, unless
its fingerprint is one the machine was told is compatible
(``MachineOptions.compatible_fingerprints``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from statewright import SNAPSHOT_FORMAT, Machine, MachineOptions, MachineSpec, SnapshotError

from tests.runtime.chart_specs import compile_chart
from tests.runtime.machines import TaskEvent, TaskState, plain_spec
from tests.runtime.store_kinds import KINDS, open_kind

Ev = TaskEvent
OLD, NEW = "a" * 64, "b" * 64


def _machine(version: int = 1, spec_hash: str = OLD) -> type[Machine[Any, Any, Any]]:
    class Plain(Machine[TaskState, TaskEvent, Any]):
        spec: ClassVar[MachineSpec[Any, Any]] = plain_spec(version=version, spec_hash=spec_hash)

    return Plain


def _walked(cls: type[Machine[Any, Any, Any]], **options: Any) -> Machine[Any, Any, Any]:
    machine = cls(None, options=MachineOptions(**options))
    machine.send(Ev.TASK_CREATED)
    machine.send(Ev.PLAN_DONE)
    return machine


def _fingerprints(snapshot: dict[str, Any]) -> list[str | None]:
    return [record.get("spec_hash") for record in snapshot["history"]]


def test_the_snapshot_and_each_history_record_carry_the_fingerprint() -> None:
    snapshot = _walked(_machine()).snapshot()
    assert snapshot["format"] == SNAPSHOT_FORMAT == "statewright.snapshot/3"
    assert snapshot["spec_hash"] == OLD
    assert _fingerprints(snapshot) == [OLD, OLD]


def test_another_spec_at_the_same_version_is_refused_naming_both_fingerprints() -> None:
    snapshot = _walked(_machine()).snapshot()
    with pytest.raises(SnapshotError) as info:
        _machine(spec_hash=NEW).restore(snapshot)
    message = str(info.value)
    assert info.value.field == "spec_hash"
    assert OLD in message and NEW in message
    assert "bump the spec version" in message and "compatible_fingerprints" in message


def test_a_compatible_fingerprint_restores_and_its_records_keep_it() -> None:
    snapshot = _walked(_machine()).snapshot()
    options = MachineOptions(compatible_fingerprints={OLD})
    restored = _machine(spec_hash=NEW).restore(snapshot, options=options)
    assert restored.state is TaskState.PLAN_REVIEW
    restored.send(Ev.PLAN_APPROVED)
    again = restored.snapshot()
    assert again["spec_hash"] == NEW
    assert _fingerprints(again) == [OLD, OLD, NEW]
    # and the new spec's own snapshot restores without the option, the old records as they were
    assert _fingerprints(_machine(spec_hash=NEW).restore(again).snapshot()) == [OLD, OLD, NEW]


def test_a_compatible_fingerprint_needs_no_migration_for_a_raised_version() -> None:
    snapshot = _walked(_machine()).snapshot()
    with pytest.raises(SnapshotError, match="no migration from 1"):
        _machine(version=2, spec_hash=NEW).restore(snapshot)
    options = MachineOptions(compatible_fingerprints=[OLD])
    restored = _machine(version=2, spec_hash=NEW).restore(snapshot, options=options)
    assert restored.snapshot()["spec_version"] == 2


def test_a_migrated_snapshot_needs_no_compatible_fingerprint() -> None:
    snapshot = _walked(_machine()).snapshot()
    options = MachineOptions(migrations={1: lambda data: data})
    restored = _machine(version=2, spec_hash=NEW).restore(snapshot, options=options)
    assert _fingerprints(restored.snapshot()) == [OLD, OLD]


@pytest.mark.parametrize("kind", KINDS)
def test_records_keep_their_fingerprints_in_a_store(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    with open_kind(kind, tmp_path, request) as store:
        machine = _walked(_machine(), store=store, instance_id="task-1")
        machine.save()
        new = _machine(spec_hash=NEW)
        with pytest.raises(SnapshotError, match="compatible_fingerprints"):
            new.load(store, "task-1")
        options = MachineOptions(compatible_fingerprints={OLD})
        loaded = new.load(store, "task-1", options=options)
        loaded.send(Ev.PLAN_APPROVED)
        loaded.save()
        assert _fingerprints(new.load(store, "task-1").snapshot()) == [OLD, OLD, NEW]


def test_records_of_format_2_have_no_fingerprint_and_new_ones_do() -> None:
    """Format 2 (before fingerprints) restores; its records' fingerprint is unknown, so none is
    written for them, and every record made since has one."""
    snapshot = _walked(_machine()).snapshot()
    snapshot["format"] = "statewright.snapshot/2"
    for record in snapshot["history"]:
        del record["spec_hash"]
    restored = _machine().restore(snapshot)
    restored.send(Ev.PLAN_APPROVED)
    again = restored.snapshot()
    assert again["format"] == SNAPSHOT_FORMAT
    assert _fingerprints(again) == [None, None, OLD]


@pytest.mark.parametrize("value", [1, None, "", ["x", 2]])
def test_a_record_fingerprint_is_a_string(value: Any) -> None:
    snapshot = _walked(_machine()).snapshot()
    snapshot["history"][1]["spec_hash"] = value
    with pytest.raises(SnapshotError) as info:
        _machine().restore(snapshot)
    assert info.value.field == "history[1].spec_hash"


@pytest.mark.parametrize("value", ["a" * 64, 3, [None], (OLD, 2)])
def test_compatible_fingerprints_is_a_collection_of_strings(value: Any) -> None:
    with pytest.raises(ValueError, match="compatible_fingerprints"):
        MachineOptions(compatible_fingerprints=value)


def test_compatible_fingerprints_is_kept_as_a_frozenset() -> None:
    assert MachineOptions(compatible_fingerprints=[OLD, OLD]).compatible_fingerprints == {OLD}
    assert type(MachineOptions(compatible_fingerprints=[OLD]).compatible_fingerprints) is frozenset


DATA_V1 = """
[machine]
name = "Job"
initial = "running"
[data]
retries = { type = "int", initial = 0 }
[events]
RETRY = {}
[states.running]
on.RETRY = { to = "running", actions = [{ assign = "retries", expr = "retries + 1" }] }
"""
DATA_V2 = DATA_V1.replace("[events]", 'attempts = { type = "int", initial = 3 }\n[events]')


def test_a_data_field_added_since_a_compatible_spec_gets_its_initial_value(tmp_path: Path) -> None:
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    old = compile_chart(tmp_path / "v1", DATA_V1, "job").JobMachine(None)
    old.send("RETRY")
    snapshot = old.snapshot()
    new = compile_chart(tmp_path / "v2", DATA_V2, "job").JobMachine
    with pytest.raises(SnapshotError, match="compatible_fingerprints"):
        new.restore(snapshot)
    options = MachineOptions(compatible_fingerprints={snapshot["spec_hash"]})
    restored = new.restore(snapshot, options=options)
    assert (restored.data.retries, restored.data.attempts) == (1, 3)
    assert "attempts" not in snapshot["data"]  # the caller's snapshot is left as it was

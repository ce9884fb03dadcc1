"""Migrations on load: a chain v1 -> v2 -> v3 applied to what a SQLite store holds, written with
``migrate_snapshot`` (a state renamed, a data field retyped); no entry action runs again, the
pending timer keeps its transition, the instance records the spec change it was carried across
(``spec_changes``), and a migration that raises leaves the stored row as it was."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from statewright import MachineOptions, SnapshotError, SqliteStore, Store, migrate_snapshot

from tests.runtime.chart_specs import compile_chart
from tests.runtime.store_kinds import KINDS, open_kind

START = 1_767_225_600.0
V1 = """
[machine]
name = "Job"
initial = "queued"
version = 1

[data]
entries = { type = "int", initial = 0 }
note = { type = "str", initial = "urgent" }

[events]
START = {}
PAUSE = {}
RESUME = {}

[states.queued]
on.START = "running"

[states.running]
entry = [{ assign = "entries", expr = "entries + 1" }]
on.PAUSE = "held"
after = { delay = "1h", to = "queued" }

[states.held]
on.RESUME = "running"
"""
#: held is suspended now.
V2 = V1.replace("version = 1", "version = 2").replace('"held"', '"suspended"')
V2 = V2.replace("[states.held]", "[states.suspended]")
#: note is a list of notes now.
V3 = V2.replace("version = 2", "version = 3").replace(
    'note = { type = "str", initial = "urgent" }', 'note = { type = "list[str]", initial = [] }'
)


def _state_1_to_2(old: str) -> str:
    return "suspended" if old == "held" else old


def _data_2_to_3(old: dict[str, Any]) -> dict[str, Any]:
    return {**old, "note": [old["note"]] if old["note"] else []}


def _one_to_two(snapshot: dict[str, Any]) -> dict[str, Any]:
    return migrate_snapshot(snapshot, state=_state_1_to_2)


def _two_to_three(snapshot: dict[str, Any]) -> dict[str, Any]:
    return migrate_snapshot(snapshot, data=_data_2_to_3)


CHAIN = {1: _one_to_two, 2: _two_to_three}


def _classes(tmp_path: Path) -> list[Any]:
    classes = []
    for version, text in enumerate((V1, V2, V3), start=1):
        folder = tmp_path / f"v{version}"
        folder.mkdir()
        classes.append(compile_chart(folder, text, "job").JobMachine)
    return classes


def _stored(tmp_path: Path, v1: Any, store: Store) -> Store:
    """``store`` holding ``held-1`` (held, having entered running once) and ``running-1``
    (running again, its 1h timer pending), saved by v1."""
    for instance_id, events in (("held-1", ["START", "PAUSE"]), ("running-1", ["START"] * 1)):
        options = MachineOptions(store=store, instance_id=instance_id, clock=lambda: START)
        machine = v1(None, options=options)
        for event in events:
            machine.send(event)
        if instance_id == "running-1":
            machine.send("PAUSE")
            machine.send("RESUME")
        machine.save()
    return store


def _rows(path: Path, instance_id: str) -> Any:
    with contextlib.closing(sqlite3.connect(path)) as db:  # a connection's own `with` only commits
        return (
            db.execute(
                "SELECT * FROM statewright_instances WHERE instance_id = ?", (instance_id,)
            ).fetchall(),
            db.execute(
                "SELECT * FROM statewright_history WHERE instance_id = ? ORDER BY event_id",
                (instance_id,),
            ).fetchall(),
        )


@pytest.mark.parametrize("kind", KINDS)
def test_the_chain_runs_on_load_without_entry_actions_and_is_recorded(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    with open_kind(kind, tmp_path, request) as store:
        _chain(tmp_path, store)


def _chain(tmp_path: Path, given: Store) -> None:
    v1, _, v3 = _classes(tmp_path)
    store = _stored(tmp_path, v1, given)
    clock = [START + 60.0]
    options = MachineOptions(migrations=CHAIN, clock=lambda: clock[0])
    held = v3.load(store, "held-1", options=options)
    running = v3.load(store, "running-1", options=options)
    assert (held.state, running.state) == ("suspended", "running")
    assert (held.data.entries, running.data.entries) == (1, 2)  # no entry action ran again
    assert (held.data.note, running.data.note) == (["urgent"], ["urgent"])
    assert running.pending_timers == {"after.running.1h": START + 3600}
    v1_hash, v3_hash = v1.spec.spec_hash, v3.spec.spec_hash
    assert held.spec_changes == (
        {
            "from_version": 1,
            "to_version": 3,
            "from_spec": v1_hash,
            "to_spec": v3_hash,
            "event_id": 2,
            "epoch": START + 60.0,
        },
    )
    # the timer fires the transition it was armed for, and the instance saves migrated
    clock[0] = START + 3600.0
    assert running.fire_due() == 1 and running.state == "queued"
    running.save()
    # version 3 now: no migration needed; the save replaced the records the migration changed
    again = v3.load(store, "running-1")
    assert again.spec_changes == running.spec_changes and len(again.spec_changes) == 1
    fingerprints = [record["spec_hash"] for record in again.snapshot()["history"]]
    assert fingerprints == [v1_hash] * 3 + [v3_hash]  # made under v1, then under v3
    held.save()
    assert v3.load(store, "held-1").state == "suspended"


def test_a_migration_that_raises_leaves_the_stored_row_untouched(tmp_path: Path) -> None:
    v1, _, v3 = _classes(tmp_path)
    with SqliteStore(tmp_path / "jobs.db") as store:
        _stored(tmp_path, v1, store)
    before = _rows(tmp_path / "jobs.db", "held-1")

    def broken(snapshot: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("not written yet")

    with SqliteStore(tmp_path / "jobs.db") as store:
        options = MachineOptions(migrations={1: _one_to_two, 2: broken})
        with pytest.raises(SnapshotError, match="from spec version 2 raised ValueError"):
            v3.load(store, "held-1", options=options)
        assert _rows(tmp_path / "jobs.db", "held-1") == before
        loaded = v3.load(store, "held-1", options=MachineOptions(migrations=CHAIN))
        assert _rows(tmp_path / "jobs.db", "held-1") == before  # loading writes nothing
        loaded.save()
    assert _rows(tmp_path / "jobs.db", "held-1") != before


def test_an_unfilled_arm_is_a_snapshot_error_naming_it(tmp_path: Path) -> None:
    v1, v2, _ = _classes(tmp_path)
    snapshot = v1(None).snapshot()
    snapshot_held = v1(None)
    snapshot_held.send("START")
    snapshot_held.send("PAUSE")

    def unfilled(old: str) -> Any:
        return ... if old == "held" else old  # a stub's arm left as it was written

    def migration(data: dict[str, Any]) -> dict[str, Any]:
        return migrate_snapshot(data, state=unfilled)

    options = MachineOptions(migrations={1: migration})
    assert v2.restore(snapshot, options=options).state == "queued"
    with pytest.raises(SnapshotError, match=r"state\('held'\) returned Ellipsis, not a name"):
        v2.restore(snapshot_held.snapshot(), options=options)


def test_migrate_snapshot_renames_wherever_a_snapshot_names_a_state(tmp_path: Path) -> None:
    v1, v2, _ = _classes(tmp_path)
    machine = v1(None, options=MachineOptions(clock=lambda: START))
    for event in ("START", "PAUSE", "RESUME", "PAUSE"):
        machine.send(event)
    snapshot = machine.snapshot()
    migrated = migrate_snapshot(snapshot, state=_state_1_to_2)
    assert "held" in str(snapshot) and "held" not in str(migrated)  # the input is left alone
    assert migrated["state"] == "suspended" and migrated["chart"]["active"] == ["suspended"]
    restored = v2.restore(snapshot, options=MachineOptions(migrations={1: _one_to_two}))
    assert restored.state == "suspended" and restored.total_transitions == 4


def test_a_timer_mapped_to_none_is_dropped_and_one_renamed_is_moved(tmp_path: Path) -> None:
    v1, _, _ = _classes(tmp_path)
    machine = v1(None, options=MachineOptions(clock=lambda: START))
    machine.send("START")
    snapshot = machine.snapshot()
    dropped = migrate_snapshot(snapshot, timer=lambda old: None)
    assert dropped["chart"]["timers"] == []
    moved = migrate_snapshot(snapshot, timer=lambda old: "after.running.2h")
    assert [(t["id"], t["event"]) for t in moved["chart"]["timers"]] == [
        ("after.running.2h", "after.running.2h")
    ]


def test_a_compatible_fingerprint_is_a_spec_change_too(tmp_path: Path) -> None:
    v1, _, _ = _classes(tmp_path)
    folder = tmp_path / "event_added"
    folder.mkdir()
    edited = compile_chart(folder, V1.replace("[events]", "[events]\nPING = {}"), "job")
    snapshot = v1(None).snapshot()
    options = MachineOptions(compatible_fingerprints={snapshot["spec_hash"]}, clock=lambda: START)
    restored = edited.JobMachine.restore(snapshot, options=options)
    (change,) = restored.spec_changes
    assert (change["from_version"], change["to_version"]) == (1, 1)
    assert change["from_spec"] == v1.spec.spec_hash != change["to_spec"]


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ([], "spec_changes"),
        ({}, "spec_changes"),
        ([{"from_version": 1}], "spec_changes[0]"),
        (
            [
                {
                    "from_version": 2,
                    "to_version": 1,
                    "from_spec": "a",
                    "to_spec": "b",
                    "event_id": 0,
                    "epoch": START,
                }
            ],
            "spec_changes[0].to_version",
        ),
        (
            [
                {
                    "from_version": 1,
                    "to_version": 1,
                    "from_spec": "",
                    "to_spec": "b",
                    "event_id": 0,
                    "epoch": START,
                }
            ],
            "spec_changes[0].from_spec",
        ),
        (
            [
                {
                    "from_version": 1,
                    "to_version": 1,
                    "from_spec": "a",
                    "to_spec": "b",
                    "event_id": 0,
                    "epoch": "now",
                }
            ],
            "spec_changes[0].epoch",
        ),
    ],
)
def test_spec_changes_are_checked(tmp_path: Path, value: Any, field: str) -> None:
    v1, _, _ = _classes(tmp_path)
    snapshot = dict(v1(None).snapshot(), spec_changes=value)
    with pytest.raises(SnapshotError) as info:
        v1.restore(snapshot)
    assert info.value.field == field

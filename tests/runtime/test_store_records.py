"""History kept as records: a save hands the store the head and only the new records, the store
appends them, prunes what fell out of the window, and ``load`` puts the snapshot back together,
on every store that keeps records (memory, SQLite, PostgreSQL); JSON files and stores of your
own get whole snapshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from statewright import (
    Conflict,
    IncrementalStore,
    MachineOptions,
    MemoryStore,
    SnapshotError,
    SnapshotUpdate,
    SqliteStore,
    Store,
    StoreError,
)
from statewright._stores.codec import PRUNE_EVERY
from statewright._stores.layout import FLUSH_RECORDS

from tests.runtime.machines import PlainTaskMachine, TaskEvent
from tests.runtime.store_kinds import KINDS, RECORD_KINDS, open_kind, stored_rows

Ev = TaskEvent


@pytest.fixture(params=RECORD_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_kind(request.param, tmp_path, request) as opened:
        yield opened


class Recording:
    """Wraps a store and keeps every SnapshotUpdate it is handed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.updates: list[SnapshotUpdate] = []

    def save_update(self, instance_id: str, update: Any, expected_revision: int, /) -> int:
        self.updates.append(update)
        return int(self.inner.save_update(instance_id, update, expected_revision))

    def save(self, instance_id: str, snapshot: Any, expected_revision: int, /) -> int:
        return int(self.inner.save(instance_id, snapshot, expected_revision))

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        loaded: dict[str, Any] | None = self.inner.load(instance_id)
        return loaded

    def delete(self, instance_id: str, /) -> bool:
        return bool(self.inner.delete(instance_id))

    def list_ids(self) -> list[str]:
        return list(self.inner.list_ids())


def acting(store: Any, instance_id: str = "m", **options: Any) -> PlainTaskMachine:
    machine = PlainTaskMachine(
        None, options=MachineOptions(store=store, instance_id=instance_id, **options)
    )
    for event in (Ev.TASK_CREATED, Ev.PLAN_DONE, Ev.PLAN_APPROVED):
        machine.send(event)
    return machine


def beat(machine: PlainTaskMachine, times: int) -> None:
    for i in range(times):
        machine.send(Ev.HEARTBEAT, i=i, note=f"beat {i}")


def test_built_in_stores_take_updates(tmp_path: Path) -> None:
    from statewright import JsonFileStore, TimerStore

    assert isinstance(MemoryStore(), IncrementalStore)
    with SqliteStore(tmp_path / "db.sqlite") as sqlite:
        assert isinstance(sqlite, IncrementalStore) and isinstance(sqlite, TimerStore)
    files = JsonFileStore(tmp_path / "files")  # one readable document per instance
    assert not isinstance(files, IncrementalStore) and isinstance(files, TimerStore)


def test_a_save_hands_over_only_the_new_records(store: Store) -> None:
    recording = Recording(store)
    machine = acting(recording)
    assert machine.save() == 1
    first = recording.updates[-1]
    assert (first.since, first.retained, len(first.records)) == (None, 3, 3)  # a new instance
    assert "history" not in first.head
    beat(machine, 2)
    assert machine.save() == 2
    second = recording.updates[-1]
    assert (second.since, second.retained) == (3, 5)
    assert [r["event_id"] for r in second.records] == [4, 5]
    assert machine.save() == 3  # nothing new
    assert recording.updates[-1].records == []
    assert store.load("m") == {**machine.snapshot(), "revision": 3}


def test_load_puts_the_snapshot_back_together(store: Store) -> None:
    machine = acting(store, history_limit=None)
    for _ in range(5):
        beat(machine, 7)
        machine.save()
    loaded = PlainTaskMachine.load(store, "m", options=MachineOptions(history_limit=None))
    assert loaded.snapshot() == machine.snapshot()
    assert [r.event_id for r in loaded.history] == list(range(1, 39))
    beat(loaded, 1)
    loaded.save()  # the loaded machine appends to what it was loaded from
    assert PlainTaskMachine.load(store, "m").snapshot() == loaded.snapshot()


def test_the_window_is_the_machines_and_old_rows_are_pruned(store: Store) -> None:
    machine = acting(store, history_limit=10)
    machine.save()
    for _ in range(30):
        beat(machine, 7)
        machine.save()
    rows = stored_rows(store, "m")
    assert rows[-1] == 213 and len(rows) <= 10 + PRUNE_EVERY
    assert rows == list(range(rows[0], 214))
    stored = store.load("m")
    assert stored is not None
    assert [r["event_id"] for r in stored["history"]] == list(range(204, 214))
    # a machine loaded with a smaller window narrows what the store keeps from then on
    small = PlainTaskMachine.load(store, "m", options=MachineOptions(history_limit=3))
    beat(small, 1)
    small.save()
    again = store.load("m")
    assert again is not None and [r["event_id"] for r in again["history"]] == [212, 213, 214]


def test_more_transitions_than_the_window_between_saves(store: Store) -> None:
    machine = acting(store, history_limit=5)
    machine.save()
    beat(machine, 40)  # the records 4..38 the store never saw are gone from the machine too
    machine.save()
    stored = store.load("m")
    assert stored is not None and [r["event_id"] for r in stored["history"]] == [39, 40, 41, 42, 43]
    assert PlainTaskMachine.load(store, "m").snapshot() == machine.snapshot()


def test_without_history_a_save_has_no_records(store: Store) -> None:
    machine = acting(store, record_history=False)
    beat(machine, 3)
    machine.save()
    stored = store.load("m")
    assert stored is not None and stored["history"] == [] and stored["total_transitions"] == 6
    assert stored_rows(store, "m") == []


def test_saving_to_another_store_hands_over_every_record(store: Store) -> None:
    other = Recording(MemoryStore())
    machine = acting(store)
    machine.save()
    other.inner.save("m", machine.snapshot(), 0)  # the same instance at the same revision there
    beat(machine, 2)
    machine.save(other)  # the records the other store holds are not known to be the machine's
    assert other.updates[-1].since is None and len(other.updates[-1].records) == 5
    assert other.load("m") == {**machine.snapshot(), "revision": 2}


def test_a_whole_snapshot_becomes_records_on_the_first_update(store: Store) -> None:
    machine = acting(None, history_limit=None)
    beat(machine, 4)
    store.save("m", machine.snapshot(), 0)  # whole, as save() and earlier releases wrote it
    loaded = PlainTaskMachine.load(store, "m", options=MachineOptions(history_limit=None))
    beat(loaded, 1)
    loaded.save()
    assert stored_rows(store, "m") == list(range(1, 9))
    unbounded = MachineOptions(history_limit=None)
    assert PlainTaskMachine.load(store, "m", options=unbounded).history == loaded.history


def test_a_lost_race_is_a_conflict_before_anything_else(store: Store) -> None:
    machine = acting(store)
    machine.save()
    a = PlainTaskMachine.load(store, "m")
    b = PlainTaskMachine.load(store, "m")
    beat(a, 2)
    a.save()
    beat(b, 1)
    with pytest.raises(Conflict) as lost:
        b.save()
    assert (lost.value.expected, lost.value.actual) == (1, 2)
    assert PlainTaskMachine.load(store, "m").snapshot() == a.snapshot()


def test_missing_or_changed_rows_are_snapshot_errors(store: Store) -> None:
    machine = acting(store)
    machine.save()
    beat(machine, FLUSH_RECORDS + 1)  # more than a head row keeps: the records become rows
    machine.save()
    if isinstance(store, MemoryStore):
        first, texts = store._records["m"]
        texts[-1] = texts[-1].replace('"beat', '"BEAT')
    elif isinstance(store, SqliteStore):
        store._db.execute(
            "UPDATE statewright_history SET record = replace(record, 'beat', 'BEAT') "
            "WHERE event_id = 5"
        )
    else:
        with store._lock, store._session("test") as db:  # type: ignore[attr-defined]
            db.execute(
                "UPDATE statewright_history SET record = replace(record, 'beat', 'BEAT') "
                "WHERE event_id = 5"
            )
    with pytest.raises(SnapshotError, match="checksum"):
        store.load("m")
    if isinstance(store, MemoryStore):
        store._records["m"] = (first, type(texts)(list(texts)[:2]))
    elif isinstance(store, SqliteStore):
        store._db.execute("DELETE FROM statewright_history WHERE event_id >= 5")
    else:
        with store._lock, store._session("test") as db:  # type: ignore[attr-defined]
            db.execute("DELETE FROM statewright_history WHERE event_id >= 5")
    with pytest.raises(SnapshotError, match="records"):
        store.load("m")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda u: setattr(u, "retained", 9), "retain"),
        (lambda u: u.records.pop(0), "replacing update"),
        (lambda u: u.records[0].update(event_id=7), "event id 1"),
        (lambda u: u.head.update(checksum="x"), "reserved"),
        (lambda u: u.head.update(total_transitions="3"), "integer"),
        (lambda u: u.records.append(float("nan")), "JSON"),
    ],
)
def test_a_broken_update_is_refused_before_anything_is_written(
    store: Store, change: Any, message: str
) -> None:
    from statewright._snapshot import incremental

    assert incremental(type(store))
    recording = Recording(store)
    machine = acting(recording)
    machine.save()
    update = recording.updates[-1]
    update.since = None
    update.records = machine._history_json(0)
    change(update)
    with pytest.raises((SnapshotError, StoreError), match=message):
        store.save_update("n", update, 0)  # type: ignore[attr-defined]
    assert store.load("n") is None


@pytest.mark.parametrize("kind", KINDS)
def test_every_store_keeps_a_machines_snapshot(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    with open_kind(kind, tmp_path, request) as opened:
        machine = acting(opened, history_limit=50)
        for _ in range(12):
            beat(machine, 9)
            machine.save()
        assert PlainTaskMachine.load(opened, "m").snapshot() == machine.snapshot()
        assert opened.list_ids() == ["m"]
        assert opened.delete("m") and opened.load("m") is None
        if kind != "json":
            assert stored_rows(opened, "m") == []

"""Stores (memory, JSON file, SQLite), machine persistence and the registry."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from statewright import (
    Conflict,
    JsonFileStore,
    MachineOptions,
    MachineRegistry,
    MemoryStore,
    SnapshotError,
    SqliteStore,
    StatewrightError,
    Store,
    StoreError,
    UnknownInstance,
)

from tests.runtime.machines import (
    HAPPY_PATH,
    PlainTaskMachine,
    TaskContext,
    TaskEvent,
    TaskHandlers,
    TaskMachine,
    TaskState,
)

St, Ev = TaskState, TaskEvent


@pytest.fixture(params=["memory", "json", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
    elif request.param == "json":
        yield JsonFileStore(tmp_path / "snaps")
    elif request.param == "sqlite":
        with SqliteStore(tmp_path / "db.sqlite") as sqlite:
            yield sqlite
    else:
        from tests.runtime.store_kinds import open_kind

        with open_kind("postgres", tmp_path, request) as postgres:
            yield postgres


def test_store_protocol(store: Store) -> None:
    assert isinstance(store, Store)
    assert store.load("a") is None
    assert store.list_ids() == []
    assert store.save("a", {"x": 1}, 0) == 1
    assert store.load("a") == {"x": 1, "revision": 1}
    assert store.save("a", {"x": 2}, 1) == 2
    assert store.save("b", {"y": 1}, 0) == 1
    assert store.list_ids() == ["a", "b"]
    assert store.delete("a") is True
    assert store.delete("a") is False
    assert store.list_ids() == ["b"]


def test_store_conflicts_write_nothing(store: Store) -> None:
    store.save("a", {"x": 1}, 0)
    with pytest.raises(Conflict) as info:
        store.save("a", {"x": "lost?"}, 0)  # second creator
    assert (info.value.expected, info.value.actual) == (0, 1)
    with pytest.raises(Conflict):
        store.save("a", {"x": "stale"}, 5)
    with pytest.raises(Conflict) as missing:
        store.save("nobody", {"x": 1}, 3)
    assert missing.value.actual is None
    assert store.load("a") == {"x": 1, "revision": 1}


def test_store_rejects_unsafe_ids(store: Store) -> None:
    for bad in ["../etc", "", "a/b", ".hidden", "x" * 300]:
        with pytest.raises(StoreError):
            store.save(bad, {}, 0)


def test_machine_checkpoints_on_marked_transitions(store: Store) -> None:
    options = MachineOptions(store=store, instance_id="job-1")
    m = TaskMachine(TaskContext(), TaskHandlers(), options=options)
    m.send(Ev.TASK_CREATED, task_id="t")
    assert store.load("job-1") is None  # not a checkpoint transition
    m.send(Ev.PLAN_DONE, steps=["a", "b"])  # checkpoint=True
    stored = store.load("job-1")
    assert stored is not None and stored["state"] == "plan_review" and stored["revision"] == 1
    assert m.revision == 1
    m.send(Ev.PLAN_APPROVED)
    assert m.save() == 2
    loaded = TaskMachine.load(store, "job-1", TaskHandlers())
    assert loaded.snapshot() == m.snapshot()
    assert loaded.revision == 2 and loaded.options.store is store
    loaded.send(Ev.TOOL_CALLED)
    loaded.send(Ev.TOOL_CALL_COMPLETED, result="r")  # guarded checkpoint alternative
    stored = store.load("job-1")
    assert stored is not None and stored["state"] == "observing"


def test_lost_race_marks_machine_stale(store: Store) -> None:
    options = MachineOptions(store=store, instance_id="job-2")
    first = PlainTaskMachine(None, options=options)
    first.save()
    a = PlainTaskMachine.load(store, "job-2")
    b = PlainTaskMachine.load(store, "job-2")
    a.send(Ev.TASK_CREATED)
    a.save()
    b.send(Ev.CANCEL)
    with pytest.raises(Conflict):
        b.save()
    with pytest.raises(StatewrightError, match="stale"):
        b.send(Ev.HEARTBEAT)
    stored = store.load("job-2")
    assert stored is not None and stored["state"] == "planning" and stored["revision"] == 2


def test_save_without_store_and_load_unknown(store: Store) -> None:
    with pytest.raises(StatewrightError, match="no store"):
        PlainTaskMachine(None).save()
    with pytest.raises(UnknownInstance) as info:
        PlainTaskMachine.load(store, "missing")
    assert isinstance(info.value, KeyError)
    assert "missing" in str(info.value)


def test_json_file_store_is_atomic_and_reports_corruption(tmp_path: Path) -> None:
    store = JsonFileStore(tmp_path)
    m = TaskMachine(
        TaskContext(), TaskHandlers(), options=MachineOptions(store=store, instance_id="j")
    )
    for event, payload in HAPPY_PATH[:3]:
        m.send(event, **payload)
    m.save()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [".lock", "j.json"]  # no temporary files left behind
    assert json.loads((tmp_path / "j.json").read_text())["state"] == "acting"
    (tmp_path / "j.json").write_text('{"state": "act')
    with pytest.raises(SnapshotError):
        store.load("j")
    (tmp_path / ".j.123.tmp").write_text("partial")  # a crashed writer's leftover
    assert store.list_ids() == ["j"]


def test_sqlite_store_reports_corruption(tmp_path: Path) -> None:
    import sqlite3

    with SqliteStore(tmp_path / "db.sqlite") as store:
        store.save("x", {"a": 1}, 0)
    db = sqlite3.connect(tmp_path / "db.sqlite")
    db.execute("UPDATE statewright_instances SET snapshot = '{trunc'")
    db.commit()
    db.close()
    with SqliteStore(tmp_path / "db.sqlite") as store:
        with pytest.raises(SnapshotError):
            store.load("x")
        mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_registry(caplog: pytest.LogCaptureFixture) -> None:
    registry: MachineRegistry[PlainTaskMachine] = MachineRegistry(max_active=2)
    machines = [
        PlainTaskMachine(None, options=MachineOptions(instance_id=f"m{i}")) for i in range(3)
    ]
    with caplog.at_level(logging.WARNING, logger="statewright"):
        for m in machines:
            m.send(Ev.TASK_CREATED)
            registry.register(m)
    assert any("max_active=2" in r.getMessage() for r in caplog.records)
    assert len(registry) == 3 and "m1" in registry
    assert registry.get("m1") is machines[1]
    assert registry.get_or_none("zz") is None
    with pytest.raises(UnknownInstance, match="zz"):
        registry.get("zz")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(PlainTaskMachine(None, options=MachineOptions(instance_id="m1")))
    machines[0].send(Ev.CANCEL)
    assert registry.active_count() == 2
    assert registry.list_active() == machines[1:]
    assert registry.list_all() == machines
    assert registry.cleanup_terminal() == ["m0"]
    assert registry.list_all() == machines[1:]
    assert registry.remove("m2") is machines[2]
    with pytest.raises(UnknownInstance):
        registry.remove("m2")


def test_registry_backed_by_store(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "reg.sqlite")
    registry: MachineRegistry[PlainTaskMachine] = MachineRegistry(store=store)
    for i in range(3):
        m = PlainTaskMachine(None, options=MachineOptions(instance_id=f"r{i}"))
        m.send(Ev.TASK_CREATED)
        registry.register(m)
    assert registry.save_all() == {"r0": 1, "r1": 1, "r2": 1}
    assert store.list_ids() == ["r0", "r1", "r2"]
    fresh: MachineRegistry[PlainTaskMachine] = MachineRegistry(store=store)
    loaded = fresh.load(PlainTaskMachine, "r1")
    assert loaded.state is St.PLANNING and fresh.get("r1") is loaded
    loaded.send(Ev.CANCEL)
    assert fresh.cleanup_terminal(delete_stored=True) == ["r1"]
    assert store.list_ids() == ["r0", "r2"]
    registry.remove("r0", delete_stored=True)
    assert store.list_ids() == ["r2"]
    store.close()


def test_checkpoint_conflict_propagates_from_send(store: Store) -> None:
    options = MachineOptions(store=store, instance_id="race")
    base = TaskMachine(TaskContext(), TaskHandlers(), options=options)
    base.send(Ev.TASK_CREATED, task_id="t")
    base.save()
    a = TaskMachine.load(store, "race", TaskHandlers())
    b = TaskMachine.load(store, "race", TaskHandlers())
    a.send(Ev.PLAN_DONE, steps=["x"])  # checkpoint: revision 2
    with pytest.raises(Conflict):
        b.send(Ev.PLAN_DONE, steps=["y"])  # its checkpoint loses
    with pytest.raises(StatewrightError, match="stale"):
        b.send(Ev.PLAN_APPROVED)
    stored = store.load("race")
    assert stored is not None and stored["context"]["plan"] == ["x"]


def test_options_validation_and_unlocked_machine() -> None:
    with pytest.raises(ValueError, match="history_limit"):
        MachineOptions(history_limit=-1)
    m = PlainTaskMachine(None, options=MachineOptions(thread_safe=False))
    assert m.send(Ev.TASK_CREATED) is St.PLANNING
    assert m.can_send(Ev.PLAN_DONE)


def test_checkpoint_comes_after_history_and_before_listeners() -> None:
    store = MemoryStore()
    m = TaskMachine(
        TaskContext(), TaskHandlers(), options=MachineOptions(store=store, instance_id="order")
    )
    seen_in_store: list[tuple[str, str]] = []

    def listener(record: object) -> None:
        stored = store.load("order")
        if stored is not None:
            seen_in_store.append((stored["state"], stored["history"][-1]["event"]))

    m.add_listener(listener)
    m.send(Ev.TASK_CREATED, task_id="t")  # no checkpoint: nothing stored yet
    m.send(Ev.PLAN_DONE, steps=["a"])  # checkpoint: stored snapshot already has this record
    assert seen_in_store == [("plan_review", "PLAN_DONE")]

"""Crash safety and multi-process concurrency with real child processes.

A child writing snapshots in a loop is killed with SIGKILL at an arbitrary moment: the store must
still load, holding the last committed revision (or the one being committed when the kill hit,
which is complete or absent, never half-written). Several processes advancing the same SQLite
instances must never lose an update or apply one twice, and every history must be a valid path.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from statewright import JsonFileStore, MachineOptions, Snapshot, SqliteStore, Store

from tests.runtime.machines import TASK_TABLE, PlainTaskMachine, TaskEvent, TaskState

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals"),
]

WORKER = Path(__file__).resolve().parent / "proc_worker.py"
St = TaskState


def _store(kind: str, path: Path) -> Store:
    return JsonFileStore(path) if kind == "json" else SqliteStore(path)


def _path(kind: str, tmp_path: Path) -> Path:
    return tmp_path / ("snaps" if kind == "json" else "db.sqlite")


def _acting_instance(store: Store, instance_id: str) -> None:
    m = PlainTaskMachine(
        None, options=MachineOptions(instance_id=instance_id, store=store, history_limit=None)
    )
    for event in (TaskEvent.TASK_CREATED, TaskEvent.PLAN_DONE, TaskEvent.PLAN_APPROVED):
        m.send(event)
    m.save()


def _assert_valid_path(machine: PlainTaskMachine) -> None:
    state = St.IDLE
    for record in machine.history:
        assert record.source is state
        assert TASK_TABLE[state][record.event] is record.target
        state = record.target
    assert state is machine.state
    assert [r.event_id for r in machine.history] == list(range(1, machine.total_transitions + 1))


@pytest.mark.parametrize("kind", ["json", "sqlite"])
@pytest.mark.parametrize("after", [3, 17, 40])
def test_sigkill_while_writing_leaves_last_committed_revision(
    kind: str, after: int, tmp_path: Path
) -> None:
    path = _path(kind, tmp_path)
    setup = _store(kind, path)
    _acting_instance(setup, "crash")
    if isinstance(setup, SqliteStore):
        setup.close()
    child = subprocess.Popen(
        [sys.executable, str(WORKER), "writer", kind, str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    last = 1
    try:
        for line in child.stdout:
            last = int(line.split()[1])
            if last >= after:
                break
        os.kill(child.pid, signal.SIGKILL)  # lands mid-loop: often inside the next save
        for line in child.stdout:  # commits reported after the one we reacted to
            last = int(line.split()[1])
    finally:
        child.kill()
        child.wait(timeout=30)
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert last >= after, "child stopped before committing enough revisions"
    store = _store(kind, path)
    try:
        _check_after_crash(kind, store, last)
    finally:
        if isinstance(store, SqliteStore):
            store.close()


def _check_after_crash(kind: str, store: Store, last: int) -> None:
    snapshot = store.load("crash")
    assert snapshot is not None
    assert snapshot["revision"] in (last, last + 1)  # the kill may land after one more commit
    machine = PlainTaskMachine.restore(
        Snapshot(snapshot), options=MachineOptions(history_limit=None)
    )
    assert machine.total_transitions == 3 + snapshot["revision"] - 1
    _assert_valid_path(machine)
    # the store keeps working after the crash
    machine2 = PlainTaskMachine.load(store, "crash", options=MachineOptions(history_limit=None))
    machine2.send(TaskEvent.CANCEL)
    assert machine2.save() == snapshot["revision"] + 1
    if kind == "json":
        assert store.list_ids() == ["crash"]  # stray temp files are never mistaken for instances
        assert isinstance(store, JsonFileStore)
        assert not list(store.directory.glob(".*.tmp"))  # opening the store removed them


@pytest.mark.parametrize("kind", ["sqlite", "json"])
def test_processes_advancing_shared_instances(kind: str, tmp_path: Path) -> None:
    path = _path(kind, tmp_path)
    ids = ["a", "b"]
    setup = _store(kind, path)
    for instance_id in ids:
        _acting_instance(setup, instance_id)
    if isinstance(setup, SqliteStore):
        setup.close()
    workers, per_worker = 3, 30
    children = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                "advance",
                kind,
                str(path),
                str(w),
                str(per_worker),
                ",".join(ids),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for w in range(workers)
    ]
    outputs = [child.communicate(timeout=120)[0] for child in children]
    assert [child.returncode for child in children] == [0] * workers, outputs
    assert all(out.startswith("done ") for out in outputs)
    seen: list[tuple[int, int]] = []
    total = 0
    store = _store(kind, path)
    try:
        for instance_id in ids:
            machine = PlainTaskMachine.load(
                store, instance_id, options=MachineOptions(history_limit=None)
            )
            _assert_valid_path(machine)
            applied = machine.total_transitions - 3
            assert machine.revision == 1 + applied  # every save carried exactly one event
            total += applied
            seen.extend((r.payload["worker"], r.payload["n"]) for r in machine.history[3:])
    finally:
        if isinstance(store, SqliteStore):
            store.close()
    assert total == workers * per_worker  # no lost update
    assert sorted(seen) == sorted((w, n) for w in range(workers) for n in range(per_worker))

"""Child-process programs for the crash and multi-process tests (run as ``python proc_worker.py``).

``writer STORE_KIND PATH``: advance one instance forever, saving after every event and printing
``committed <revision>`` after each successful save, until killed.

``advance STORE_KIND PATH WORKER COUNT IDS``: apply COUNT events spread over the comma-separated
instance ids, each as load -> send -> save, retrying on Conflict; print ``done <conflicts>``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "runtime")]

from statewright import Conflict, JsonFileStore, MachineOptions, SqliteStore, Store  # noqa: E402

from tests.runtime.machines import PlainTaskMachine, TaskEvent  # noqa: E402

CYCLE = [TaskEvent.HEARTBEAT, TaskEvent.PAUSE, TaskEvent.RESUME]
UNBOUNDED = MachineOptions(history_limit=None)


def open_store(kind: str, path: str) -> Store:
    return JsonFileStore(path) if kind == "json" else SqliteStore(path)


def writer(kind: str, path: str) -> None:
    store = open_store(kind, path)
    machine = PlainTaskMachine.load(store, "crash", options=UNBOUNDED)
    i = 0
    while True:
        machine.send(CYCLE[i % 3], i=i, blob="x" * 2000)  # a big snapshot widens the write window
        revision = machine.save()
        print(f"committed {revision}", flush=True)
        i += 1


def advance(kind: str, path: str, worker: int, count: int, ids: list[str]) -> None:
    store = open_store(kind, path)
    conflicts = 0
    for n in range(count):
        instance_id = ids[n % len(ids)]
        while True:
            machine = PlainTaskMachine.load(store, instance_id, options=UNBOUNDED)
            event = CYCLE[machine.total_transitions % 3]
            machine.send(event, worker=worker, n=n)
            try:
                machine.save()
            except Conflict:
                conflicts += 1
                continue
            break
    print(f"done {conflicts}", flush=True)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "writer":
        writer(sys.argv[2], sys.argv[3])
    elif command == "advance":
        advance(
            sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6].split(",")
        )
    else:
        raise SystemExit(f"unknown command {command!r}")

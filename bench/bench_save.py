"""What a save costs on SQLite with 1,000 records of history, with none, and a raw UPSERT.

Everything runs in ONE process, on one SQLite file in a temporary directory, with the store's
settings (WAL, ``synchronous=FULL`` unless ``--synchronous NORMAL``), interleaved round by round
so that a burst of load on a shared host hits every variant alike. The ratios use each variant's
median round: with ``FULL`` a save waits for an fsync, whose time varies on a shared host from
round to round more than anything else measured here (the best round is printed too). Per
timed save, each machine first takes one trivial event, so that every save has one new record
to append (or, without history, a new head to write):

* ``raw UPSERT``: ``INSERT ... ON CONFLICT DO UPDATE`` of one row holding the head text of the
  1,000-record machine (each with a revision of its own, as every save's head has, all made
  before the timing starts), on a connection of its own with the same settings: what storing the
  head costs when nothing else happens;
* ``the save's SQL alone``: the statements a save of the 1,000-record machine runs, taken from
  the store's dialect (``BEGIN IMMEDIATE``, the head's compare-and-swap ``UPDATE ... WHERE
  revision = ?``, the new record's ``INSERT``, the ``DELETE`` of the record that fell out of the
  kept history, ``COMMIT``) with precomputed texts, on a connection of its own: the least any
  save with this contract (a revision check, history as rows, one transaction) can cost,
  Python's part taken out;
* ``save, no history``: ``machine.save()`` of a machine with ``record_history=False``;
* ``save, 1 record kept``: the same with history on and ``history_limit=1``: each save writes
  the head and one record and drops the one before, as the 1,000-record save does, so the ratio
  of the two is what the history's length costs a save;
* ``save, 1,000 records``: ``machine.save()`` of the same machine with a full history of 1,000
  records (payloads of a few fields each, as an agent's events carry);
* ``whole snapshot (0.2)``: the same machine saved through a store that only has ``save``, so
  the whole snapshot with its history is written every time, as statewright 0.2 did.

    PYTHONPATH=runtime python bench/bench_save.py [--saves N] [--rounds R] [--synchronous FULL]

Targets: a save with 1,000 records within 1.5x of a save with none, and within 1.25x of the raw
UPSERT, under the same journal and synchronous settings.
"""

from __future__ import annotations

import argparse
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT)]

from statewright import MachineOptions, SqliteStore  # noqa: E402
from statewright._stores.dialect import SQLITE  # noqa: E402  # the store's own statements

from tests.runtime.machines import PlainTaskMachine, TaskEvent  # noqa: E402

Ev = TaskEvent
Runner = Callable[[int], float]


class WholeSnapshots:
    """A store with only the four methods of ``Store``: machines hand it whole snapshots."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner = inner

    def save(self, instance_id: str, snapshot: Any, expected_revision: int, /) -> int:
        return self.inner.save(instance_id, snapshot, expected_revision)

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        return self.inner.load(instance_id)

    def delete(self, instance_id: str, /) -> bool:
        return self.inner.delete(instance_id)

    def list_ids(self) -> list[str]:
        return self.inner.list_ids()


def machine(store: Any, instance_id: str, history: bool, limit: int = 1000) -> PlainTaskMachine:
    options = MachineOptions(
        store=store, instance_id=instance_id, record_history=history, history_limit=limit
    )
    built = PlainTaskMachine(None, options=options)
    for event in (Ev.TASK_CREATED, Ev.PLAN_DONE, Ev.PLAN_APPROVED):
        built.send(event)
    for i in range(1000):
        built.send(Ev.HEARTBEAT, i=i, tool="search", query=f"step {i}", ok=True)
    built.save()
    return built


def saving(target: PlainTaskMachine) -> Runner:
    def run(saves: int) -> float:
        send, save = target.send, target.save
        start = time.perf_counter()
        for i in range(saves):
            send(Ev.HEARTBEAT, i=i, tool="search", query=f"step {i}", ok=True)
            save()
        return time.perf_counter() - start

    return run


def upserting(path: Path, synchronous: str, text: str, saves: int) -> Runner:
    """UPSERTs of the head text; each one differs (its revision), as every save's head does,
    and all of them are made before the timing starts."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("CREATE TABLE IF NOT EXISTS raw (id TEXT PRIMARY KEY, snapshot TEXT NOT NULL)")
    marker = '"revision":'
    at = text.index(marker) + len(marker)
    end = text.index(",", at)
    revisions = iter(range(1, 10**9))

    def run(count: int) -> float:
        texts = [f"{text[:at]}{next(revisions)}{text[end:]}" for _ in range(count)]
        start = time.perf_counter()
        for head in texts:
            db.execute(
                "INSERT INTO raw VALUES (?, ?) ON CONFLICT (id) DO UPDATE "
                "SET snapshot = excluded.snapshot",
                ("m", head),
            )
        return time.perf_counter() - start

    return run


def sql_alone(path: Path, synchronous: str, text: str, record: str) -> Runner:
    """A save's statements with precomputed texts, on an instance of their own."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("DELETE FROM statewright_instances WHERE instance_id = 'sql'")
    db.execute(
        "INSERT INTO statewright_instances (instance_id, machine, revision, snapshot, "
        "updated_at, checksum) VALUES ('sql', 'Task', 1, ?, 0, '')",
        (text,),
    )
    state = {"revision": 1, "event": 0}

    def run(count: int) -> float:
        first = state["revision"]
        start = time.perf_counter()
        for revision in range(first, first + count):
            event = state["event"] = state["event"] + 1
            db.execute(SQLITE.begin_write)
            db.execute(SQLITE.update_head, ("Task", revision + 1, text, 0.0, "c", "sql", revision))
            db.execute(SQLITE.upsert_record, ("sql", event, record, "c"))
            db.execute(SQLITE.prune_records, ("sql", event - 999))
            db.execute("COMMIT")
        elapsed = time.perf_counter() - start
        state["revision"] = first + count
        return elapsed

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=0, help="saves per timed run")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (median)")
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    args = parser.parse_args()
    saves = args.saves or (100 if args.synchronous == "FULL" else 1000)
    with tempfile.TemporaryDirectory(prefix="bench-save-", dir=ROOT / ".cache") as folder:
        path = Path(folder) / "bench.sqlite"
        store = SqliteStore(path, synchronous=args.synchronous)
        full = machine(store, "full", history=True)
        empty = machine(store, "empty", history=False)
        one = machine(store, "one", history=True, limit=1)
        whole = machine(WholeSnapshots(store), "whole", history=True)
        head = store._db.execute(
            "SELECT snapshot FROM statewright_instances WHERE instance_id = 'full'"
        ).fetchone()[0]
        record = store._db.execute(
            "SELECT record FROM statewright_history WHERE instance_id = 'full' "
            "ORDER BY event_id DESC LIMIT 1"
        ).fetchone()[0]
        variants: dict[str, Runner] = {
            "raw UPSERT of the head row": upserting(path, args.synchronous, head, saves),
            "the save's SQL alone": sql_alone(path, args.synchronous, head, record),
            "save, no history": saving(empty),
            "save, 1 record kept": saving(one),
            "save, 1,000 records": saving(full),
            "whole snapshot (0.2)": saving(whole),
        }
        print(
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, WAL, "
            f"synchronous={args.synchronous}, {saves} saves per run, median of {args.rounds} "
            f"interleaved rounds; head row {len(head):,} bytes"
        )
        # The whole snapshot costs tens of milliseconds: fewer of them per run.
        count = {name: saves if "whole" not in name else min(saves // 3, 50) for name in variants}
        rounds: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, run in variants.items():
                rounds[name].append(run(count[name]) / count[name])
        # With synchronous=FULL a save waits for an fsync, whose time on a shared host varies
        # from round to round more than anything measured here: the ratios use the medians.
        median = {name: statistics.median(times) for name, times in rounds.items()}
        for name, times in rounds.items():
            print(
                f"  {name:<28} median {median[name] * 1e6:8.1f} us/save, best "
                f"{min(times) * 1e6:8.1f} us ({1 / median[name]:6.0f} saves/s)"
            )
        records = median["save, 1,000 records"]
        print(
            f"save with 1,000 records / save with none: "
            f"{records / median['save, no history']:.2f}x (target <= 1.5x)"
        )
        print(
            f"save with 1,000 records / raw UPSERT:     "
            f"{records / median['raw UPSERT of the head row']:.2f}x (target <= 1.25x)"
        )
        print(
            f"save with 1,000 records / save keeping 1: "
            f"{records / median['save, 1 record kept']:.2f}x (O(1) in the history's length)"
        )
        sql = median["the save's SQL alone"]
        print(
            f"save with 1,000 records / its SQL alone:  {records / sql:.2f}x; "
            f"its SQL alone / raw UPSERT: {sql / median['raw UPSERT of the head row']:.2f}x"
        )
        print(
            f"whole snapshot (0.2) / save with 1,000 records: "
            f"{median['whole snapshot (0.2)'] / records:.1f}x"
        )
        store.close()


if __name__ == "__main__":
    main()

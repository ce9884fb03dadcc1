"""What ``fire_due_timers`` costs per fired timer, on the memory store and on SQLite, next to the
least a store-backed fire must do.

The machine is the README's statechart (``examples/agent_task.toml``, generated as
``agent_task``): each instance has planned and waits for its tool, its 30 s watchdog running, and
is saved; at ``now`` (31 s later) every watchdog is due. A run stores ``--instances`` such
instances (not timed), then calls ``fire_due_timers(store, AgentTaskMachine, ..., limit=100)``
until it fires nothing, as a worker does; the figure is the run's time over the timers fired.
Every variant has a store (and, for SQLite, a file) of its own, and the rounds are interleaved so
that a burst of load on a shared host hits every variant alike; the ratios use each variant's
median round.

* ``floor``: the least a fire from a store must do, per instance: parse the stored JSON text of
  the machine's snapshot and write it back out (``json.loads`` + ``json.dumps``), and fire the
  same timer on a live machine (built, planned, before the timing starts); three times as many
  per run as the stores fire, so that its run lasts long enough for a shared host's scheduling
  to even out;
* ``memory store``: ``fire_due_timers`` on a ``MemoryStore``; target: <= 3x the floor;
* ``raw SQL``: on a SQLite file of its own with the store's settings (WAL, ``synchronous``), a
  table of ``(id, snapshot, next_due, lease_until)`` indexed by ``next_due``, and per batch of
  100 the claim (``BEGIN IMMEDIATE``, ``SELECT`` the due ids, ``UPDATE`` their leases,
  ``COMMIT``), then per instance the UPSERT of its new snapshot text (precomputed, one
  statement): what claiming and saving cost in SQL alone;
* ``SQLite store``: ``fire_due_timers`` on a ``SqliteStore``; target: <= 1.5x the memory
  store plus the raw SQL.

    PYTHONPATH=runtime:generated python bench/bench_timers.py [--instances N] [--rounds R]
        [--synchronous NORMAL|FULL] [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import json
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
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT / "generated"), str(ROOT)]

from agent_task import AgentTaskMachine  # noqa: E402
from statewright import MachineOptions, MemoryStore, SqliteStore, Store, fire_due_timers  # noqa: E402

from bench.json_results import row, write  # noqa: E402

#: When every instance was saved; its watchdog falls due 30 s later.
START = 1_767_225_600.0
NOW = START + 31
BATCH = 100

#: ``(seconds, timers fired)`` of one timed run.
Run = Callable[[], tuple[float, int]]


class Handlers:
    def succeeded(self, context: object, payload: Any, /) -> bool:
        return bool(payload["ok"])


def _clock() -> float:
    return START


OPTIONS = MachineOptions(clock=_clock)


def waiting(store: Store | None, instance_id: str) -> AgentTaskMachine[None]:
    """A task waiting for its tool, its watchdog due at ``START + 30``, saved if ``store``."""
    options = MachineOptions(clock=_clock, store=store, instance_id=instance_id)
    machine: AgentTaskMachine[None] = AgentTaskMachine(None, Handlers(), options=options)
    machine.planned()
    if store is not None:
        machine.save()
    return machine


def firing(make_store: Callable[[int], Any], instances: int) -> Run:
    """``fire_due_timers`` over a fresh store of ``instances`` due tasks, per run."""
    runs = iter(range(1_000_000))

    def run() -> tuple[float, int]:
        store = make_store(next(runs))
        for i in range(instances):
            waiting(store, f"task-{i}")
        gc.collect()
        fired = 0
        start = time.perf_counter()
        while True:
            count = fire_due_timers(
                store, AgentTaskMachine, Handlers(), now=NOW, limit=BATCH, options=OPTIONS
            )
            if not count:
                break
            fired += count
        elapsed = time.perf_counter() - start
        store.close()
        assert fired == instances, (fired, instances)
        return elapsed, fired

    return run


def floor(instances: int) -> Run:
    """``json.loads`` + ``json.dumps`` of a stored snapshot's text, and the same timer fired on
    a live machine, per instance."""
    text = json.dumps(waiting(None, "task-0").snapshot())

    def run() -> tuple[float, int]:
        live = [waiting(None, f"task-{i}") for i in range(instances)]
        texts = [text] * instances
        loads, dumps = json.loads, json.dumps
        gc.collect()
        start = time.perf_counter()
        for machine, stored in zip(live, texts, strict=True):
            dumps(loads(stored))
            machine.fire_due(NOW)
        elapsed = time.perf_counter() - start
        return elapsed, instances

    return run


def raw_sql(folder: Path, synchronous: str, instances: int) -> Run:
    """The claim's statements per batch and one UPSERT per instance (see the module)."""
    machine = waiting(None, "task-0")
    machine.fire_due(NOW)
    text = json.dumps(machine.snapshot(), separators=(",", ":"))
    db = sqlite3.connect(folder / "raw.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute(
        "CREATE TABLE raw (id TEXT PRIMARY KEY, snapshot TEXT NOT NULL, next_due REAL, "
        "lease_until REAL)"
    )
    db.execute("CREATE INDEX raw_due ON raw (next_due)")

    def run() -> tuple[float, int]:
        db.execute("DELETE FROM raw")
        db.executemany(
            "INSERT INTO raw VALUES (?, ?, ?, NULL)",
            [(f"task-{i}", text, START + 30) for i in range(instances)],
        )
        # Each save's text differs from the one before it, as every save's does.
        texts = [text.replace('"revision":1', f'"revision":{i + 2}') for i in range(instances)]
        gc.collect()
        start = time.perf_counter()
        written = 0
        while True:
            db.execute("BEGIN IMMEDIATE")
            ids = db.execute(
                "SELECT id FROM raw WHERE next_due <= ? AND (lease_until IS NULL OR "
                "lease_until <= ?) ORDER BY next_due, id LIMIT ?",
                (NOW, NOW, BATCH),
            ).fetchall()
            db.executemany(
                "UPDATE raw SET lease_until = ? WHERE id = ?", [(NOW + 30, i) for (i,) in ids]
            )
            db.execute("COMMIT")
            if not ids:
                break
            for (instance_id,) in ids:
                db.execute(
                    "INSERT INTO raw (id, snapshot) VALUES (?, ?) ON CONFLICT (id) DO UPDATE "
                    "SET snapshot = excluded.snapshot, next_due = NULL, lease_until = NULL",
                    (instance_id, texts[written]),
                )
                written += 1
        elapsed = time.perf_counter() - start
        assert written == instances
        return elapsed, written

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=1000, help="due instances per run")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (median)")
    parser.add_argument("--synchronous", choices=["NORMAL", "FULL"], default="NORMAL")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    n, synchronous = args.instances, args.synchronous
    with tempfile.TemporaryDirectory(prefix="bench-timers-", dir=ROOT / ".cache") as name:
        folder = Path(name)

        def sqlite_store(run: int) -> SqliteStore:
            return SqliteStore(folder / f"store-{run}.sqlite", synchronous=synchronous)

        variants: dict[str, Run] = {
            "floor": floor(3 * n),
            "memory store": firing(lambda run: MemoryStore(), n),
            "raw SQL": raw_sql(folder, synchronous, n),
            "SQLite store": firing(sqlite_store, n),
        }
        rounds: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for label, run in variants.items():
                elapsed, fired = run()
                rounds[label].append(elapsed / fired)
    median = {label: statistics.median(times) for label, times in rounds.items()}
    print(
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, WAL, "
        f"synchronous={synchronous}; {n} due instances per run, batches of {BATCH}, median of "
        f"{args.rounds} interleaved rounds"
    )
    for label, times in rounds.items():
        print(
            f"  {label:<14} median {median[label] * 1e6:8.1f} us per fired timer, "
            f"best {min(times) * 1e6:8.1f} us"
        )
    memory_ratio = median["memory store"] / median["floor"]
    sql_floor = median["memory store"] + median["raw SQL"]
    sqlite_ratio = median["SQLite store"] / sql_floor
    print(f"memory store / floor:               {memory_ratio:5.2f}x (target <= 3x)")
    print(f"SQLite store / (memory + raw SQL):  {sqlite_ratio:5.2f}x (target <= 1.5x)")
    if args.json:
        results = [
            row("floor: json.loads + json.dumps + live fire", median["floor"] * 1e6, "us"),
            row(
                "fire_due_timers, memory store",
                median["memory store"] * 1e6,
                "us",
                against="floor: json.loads + json.dumps + live fire",
                ratio=memory_ratio,
                target=3.0,
                target_op="<=",
            ),
            row("raw SQL: claim + UPSERT", median["raw SQL"] * 1e6, "us"),
            row("memory store + raw SQL", sql_floor * 1e6, "us"),
            row(
                "fire_due_timers, SQLite store",
                median["SQLite store"] * 1e6,
                "us",
                against="memory store + raw SQL",
                ratio=sqlite_ratio,
                target=1.5,
                target_op="<=",
            ),
        ]
        settings = {
            "synchronous": synchronous,
            "journal": "WAL",
            "sqlite": sqlite3.sqlite_version,
            "instances": str(n),
            "rounds": str(args.rounds),
            "per": "fired timer",
        }
        write(args.json, "bench_timers", settings, results)


if __name__ == "__main__":
    main()

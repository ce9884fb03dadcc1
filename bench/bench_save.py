"""What a save costs with 1,000 records of history, with none, and a raw UPSERT, on SQLite and on
PostgreSQL.

Everything runs in ONE process, interleaved round by round so that a burst of load on a shared
host hits every variant alike; the ratios use each variant's median round (the best round is
printed too). Every SQLite variant has a database file of its own, with the store's settings
(WAL, ``synchronous=NORMAL`` unless ``--synchronous FULL``): with every variant in one file,
WAL checkpoints would be charged to whichever variant triggers them. Per timed save, each
machine first takes one trivial event, so that every save has one new record to append (or,
without history, a new head to write):

* ``raw UPSERT``: ``INSERT ... ON CONFLICT DO UPDATE`` of one row holding the head text of the
  1,000-record machine (its snapshot without its history, as the store keeps it; each with a
  revision of its own, as every save's head has, all made before the timing starts), on a
  connection of its own with the same settings: what storing the head costs when nothing else
  happens;
* ``save, no history``: ``machine.save()`` of a machine with ``record_history=False``;
* ``save, 1 record kept``: the same with history on and ``history_limit=1``: each save writes
  the head and one record and drops the one before, as the 1,000-record save does, so the ratio
  of the two is what the history's length costs a save;
* ``save, 1,000 records``: ``machine.save()`` of the same machine with a full history of 1,000
  records (payloads of a few fields each, as an agent's events carry);
* ``whole snapshot (0.2)``: the same machine saved through a store that only has ``save``, so
  the whole snapshot with its history is written every time, as statewright 0.2 did;
* ``save's Python, no SQL run``: the 1,000-record save with the store's connection replaced by
  one whose statements do nothing: what the save costs before any SQL runs (the machine's
  texts, the checksum, the store's bookkeeping). Over the raw UPSERT, it says how much of the
  target the Python alone takes: the save's SQL (a statement that does what the UPSERT does,
  and more) cannot cost less than the UPSERT.

On PostgreSQL (a throwaway server started as the tests start theirs, ``tests/postgres_server.py``,
when its programs are installed; ``--no-postgres`` skips it), with ``synchronous_commit=off`` on
every connection, each variant in a schema of its own: ``raw UPSERT`` and ``save, 1,000
records``.

    PYTHONPATH=runtime python bench/bench_save.py [--saves N] [--rounds R]
        [--synchronous NORMAL|FULL] [--no-postgres] [--json FILE]

Target (issue #22): a save with 1,000 records within 2.5x of the raw UPSERT of its head row,
under the same settings, on SQLite (``NORMAL``) and on PostgreSQL (``synchronous_commit=off``).
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT)]

from statewright import MachineOptions, PostgresStore, SqliteStore  # noqa: E402

from bench.json_results import row, write  # noqa: E402
from tests.runtime.machines import PlainTaskMachine, TaskEvent  # noqa: E402

Ev = TaskEvent
Runner = Callable[[int], float]
UPSERT = "raw UPSERT of the head row"
RECORDS = "save, 1,000 records"
NONE = "save, no history"
ONE = "save, 1 record kept"
WHOLE = "whole snapshot (0.2)"
PYTHON = "save's Python, no SQL run"
SQL = "save's SQL, no Python run"
PG_UPSERT = "PostgreSQL: raw UPSERT of the head row"
PG_RECORDS = "PostgreSQL: save, 1,000 records"
TARGET = 2.5


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


class NoSql:
    """A connection whose statements do nothing and each change one row (a compare and swap
    that won): a store on it runs a save's Python and no SQL."""

    rowcount = 1

    def cursor(self) -> NoSql:
        return self

    def execute(self, statement: str, parameters: Any = (), /) -> NoSql:
        return self

    def executemany(self, statement: str, parameters: Any, /) -> NoSql:
        return self

    def close(self) -> None:
        pass


class Recording:
    """A connection that runs each statement on ``inner`` and keeps it (and its values)."""

    def __init__(self, inner: sqlite3.Connection) -> None:
        self.inner = inner
        self.statements: list[tuple[bool, str, Any]] = []

    def cursor(self) -> Recording:
        return self

    def execute(self, statement: str, parameters: Any = (), /) -> sqlite3.Cursor:
        self.statements.append((False, statement, parameters))
        return self.inner.execute(statement, parameters)

    def executemany(self, statement: str, parameters: Any, /) -> sqlite3.Cursor:
        rows = list(parameters)
        self.statements.append((True, statement, rows))
        return self.inner.executemany(statement, rows)

    def close(self) -> None:
        self.inner.close()


def replaying(recorded: PlainTaskMachine, connection: Recording, db: sqlite3.Connection) -> Runner:
    """Each run: ``recorded``'s saves (untimed), then their statements run again on ``db``
    (timed), which is one run behind: it holds what the recorded file held before them."""
    record = saving(recorded)

    def run(saves: int) -> float:
        connection.statements.clear()
        record(saves)
        statements = list(connection.statements)
        execute, executemany = db.execute, db.executemany
        start = time.perf_counter()
        for many, statement, parameters in statements:
            (executemany if many else execute)(statement, parameters)
        return time.perf_counter() - start

    return run


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


def head_text(target: PlainTaskMachine) -> str:
    """The head a store keeps of ``target``: its snapshot without the history, as canonical
    JSON (what the raw UPSERT writes)."""
    from statewright._stores.codec import canonical

    snapshot = dict(target.snapshot())
    del snapshot["history"]
    return canonical(snapshot)


def revisions(text: str, count: int, first: int) -> list[str]:
    """``count`` copies of ``text``, each with a revision of its own from ``first`` on."""
    marker = '"revision":'
    at = text.index(marker) + len(marker)
    end = text.index(",", at)
    return [f"{text[:at]}{revision}{text[end:]}" for revision in range(first, first + count)]


def upserting(execute: Callable[[str, tuple[Any, ...]], Any], text: str, mark: str) -> Runner:
    """UPSERTs of the head text through ``execute`` (``mark``: the driver's placeholder); each
    one differs (its revision), as every save's head does, all made before the timing starts."""
    statement = (
        f"INSERT INTO raw VALUES ({mark}, {mark}) ON CONFLICT (id) DO UPDATE "
        "SET snapshot = excluded.snapshot"
    )
    done = [1]

    def run(count: int) -> float:
        texts = revisions(text, count, done[0])
        done[0] += count
        start = time.perf_counter()
        for head in texts:
            execute(statement, ("m", head))
        return time.perf_counter() - start

    return run


def sqlite_upserting(path: Path, synchronous: str, text: str) -> Runner:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("CREATE TABLE IF NOT EXISTS raw (id TEXT PRIMARY KEY, snapshot TEXT NOT NULL)")
    return upserting(db.execute, text, "?")


@contextlib.contextmanager
def postgres_server() -> Iterator[str | None]:
    """A throwaway server's URL, or None (said why) when none can be started here."""
    try:
        from tests.postgres_server import running_server

        with running_server() as url:
            yield url
    except BaseException as exc:  # pytest's skip is a BaseException: no server here
        if isinstance(exc, KeyboardInterrupt):
            raise
        print(f"PostgreSQL: not measured ({type(exc).__name__}: {str(exc)[:200]})")
        yield None


def schema_url(base: str, schema: str) -> str:
    """A URL whose connections use the fresh ``schema`` and ``synchronous_commit=off``."""
    import psycopg

    with psycopg.connect(base, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    options = quote(f"-c search_path={schema} -c synchronous_commit=off")
    return f"{base}&options={options}"


def postgres_variants(base: str, stores: list[Any]) -> dict[str, Runner]:
    """The raw UPSERT and the 1,000-record save, each in a schema of its own."""
    import psycopg

    store = PostgresStore(schema_url(base, "saves"))
    stores.append(store)
    full = machine(store, "full", history=True)
    connection = psycopg.connect(schema_url(base, "raw"), autocommit=True)
    stores.append(connection)
    connection.execute("CREATE TABLE raw (id text PRIMARY KEY, snapshot text NOT NULL)")
    return {
        PG_UPSERT: upserting(connection.execute, head_text(full), "%s"),
        PG_RECORDS: saving(full),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=0, help="saves per timed run")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (median)")
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="NORMAL")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    saves = args.saves or (100 if args.synchronous == "FULL" else 1000)
    server = contextlib.nullcontext(None) if args.no_postgres else postgres_server()
    with (
        tempfile.TemporaryDirectory(prefix="bench-save-", dir=ROOT / ".cache") as folder,
        server as postgres_url,
    ):
        stores: list[Any] = []

        def store(name: str) -> SqliteStore:
            opened = SqliteStore(Path(folder) / f"{name}.sqlite", synchronous=args.synchronous)
            stores.append(opened)
            return opened

        full = machine(store("full"), "full", history=True)
        variants: dict[str, Runner] = {
            UPSERT: sqlite_upserting(
                Path(folder) / "raw.sqlite", args.synchronous, head_text(full)
            ),
            NONE: saving(machine(store("none"), "none", history=False)),
            ONE: saving(machine(store("one"), "one", history=True, limit=1)),
            RECORDS: saving(full),
            WHOLE: saving(machine(WholeSnapshots(store("whole")), "whole", history=True)),
        }
        no_sql = store("python")
        python_only = machine(no_sql, "python", history=True)
        stores.append(no_sql._db)  # closed at the end, as the others are
        no_sql._db = NoSql()  # type: ignore[assignment]  # after the machine's first save
        variants[PYTHON] = saving(python_only)
        recorder = store("recorded")
        recorded = machine(recorder, "full", history=True)
        recorder._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all of it in the file
        shutil.copy(Path(folder) / "recorded.sqlite", Path(folder) / "replica.sqlite")
        replica = sqlite3.connect(Path(folder) / "replica.sqlite", isolation_level=None)
        replica.execute("PRAGMA journal_mode=WAL")
        replica.execute(f"PRAGMA synchronous={args.synchronous}")
        stores.append(replica)
        recording = Recording(recorder._db)
        recorder._db = recording  # type: ignore[assignment]
        variants[SQL] = replaying(recorded, recording, replica)
        if postgres_url is not None:
            try:
                variants.update(postgres_variants(postgres_url, stores))
            except Exception as exc:  # psycopg missing, or the server refused
                print(f"PostgreSQL: not measured ({type(exc).__name__}: {str(exc)[:200]})")
        print(
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, WAL, "
            f"synchronous={args.synchronous}, a file per variant, {saves} saves per run, median "
            f"of {args.rounds} interleaved rounds; head row {len(head_text(full)):,} bytes"
        )
        # The whole snapshot costs milliseconds: fewer of them per run.
        count = {name: saves if name != WHOLE else min(saves // 3, 50) for name in variants}
        rounds: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, run in variants.items():
                rounds[name].append(run(count[name]) / count[name])
        for opened in stores:
            opened.close()
    median = {name: statistics.median(times) for name, times in rounds.items()}
    for name, times in rounds.items():
        print(
            f"  {name:<40} median {median[name] * 1e6:8.1f} us/save, best "
            f"{min(times) * 1e6:8.1f} us ({1 / median[name]:6.0f} saves/s)"
        )
    records = median[RECORDS]
    ratios = {
        "none": records / median[NONE],
        "upsert": records / median[UPSERT],
        "one": records / median[ONE],
        "whole": median[WHOLE] / records,
        "python": median[PYTHON] / median[UPSERT],
        "sql": median[SQL] / median[UPSERT],
    }
    print(f"save with 1,000 records / save with none: {ratios['none']:.2f}x")
    print(
        f"save with 1,000 records / raw UPSERT:     {ratios['upsert']:.2f}x (target <= {TARGET}x)"
    )
    print(f"save with 1,000 records / save keeping 1: {ratios['one']:.2f}x (O(1) in the history)")
    print(f"whole snapshot (0.2) / save with 1,000 records: {ratios['whole']:.1f}x")
    print(f"the save's Python alone (no SQL run) / raw UPSERT: {ratios['python']:.2f}x")
    print(f"the save's SQL alone (no Python run) / raw UPSERT: {ratios['sql']:.2f}x")
    if PG_RECORDS in median:
        ratios["postgres"] = median[PG_RECORDS] / median[PG_UPSERT]
        print(
            f"PostgreSQL: save with 1,000 records / raw UPSERT: {ratios['postgres']:.2f}x "
            f"(target <= {TARGET}x)"
        )
    if args.json:
        us = {name: value * 1e6 for name, value in median.items()}
        results = [
            row(UPSERT, us[UPSERT], "us"),
            row(NONE, us[NONE], "us"),
            row(ONE, us[ONE], "us"),
            row(
                RECORDS,
                us[RECORDS],
                "us",
                against=UPSERT,
                ratio=ratios["upsert"],
                target=TARGET,
                target_op="<=",
            ),
            row(f"{RECORDS} / {NONE}", ratios["none"], "x"),
            row(f"{RECORDS} / {ONE}", ratios["one"], "x"),
            row(WHOLE, us[WHOLE], "us", against=RECORDS, ratio=ratios["whole"]),
            row(PYTHON, us[PYTHON], "us", against=UPSERT, ratio=ratios["python"]),
            row(SQL, us[SQL], "us", against=UPSERT, ratio=ratios["sql"]),
        ]
        settings = {
            "synchronous": args.synchronous,
            "journal": "WAL",
            "sqlite": sqlite3.sqlite_version,
            "saves per run": str(saves),
            "rounds": str(args.rounds),
            "postgresql": "not measured" if PG_RECORDS not in median else "synchronous_commit=off",
        }
        if PG_RECORDS in median:
            results += [
                row(PG_UPSERT, us[PG_UPSERT], "us"),
                row(
                    PG_RECORDS,
                    us[PG_RECORDS],
                    "us",
                    against=PG_UPSERT,
                    ratio=ratios["postgres"],
                    target=TARGET,
                    target_op="<=",
                ),
            ]
        write(args.json, "bench_save", settings, results)


if __name__ == "__main__":
    main()

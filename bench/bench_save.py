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
  and more) cannot cost less than the UPSERT;
* ``save's SQL, no Python run``: the statements the 1,000-record saves ran, recorded, and run
  again on a copy of the database file (one run behind the recording): the save's SQL alone;
* ``a save's texts and checksum alone``: what no save can skip, with no store at all: the
  texts a machine writes for a save (its head's and its new record's) and the SHA-256 of the
  head row (head and record only: the row a store writes holds more records, so this is a
  lower bound);
* ``save's Python, then a raw UPSERT``: each UPSERT (a file of its own) after a save's
  Python (no SQL run): does running one after the other cost more than each alone, with none
  of the store's SQL involved?

Then the budget: the target (2.5x the UPSERT) less the save's SQL alone is what it leaves the
save's Python, to set beside what the Python takes alone, what its texts and checksum take, and
how much a save costs beyond its Python and its SQL each run alone (run one after the other,
each runs slower than alone: the caches hold the other's code and data).

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
TEXTS = "a save's texts and checksum alone"
BUDGET = "what 2.5x leaves the save's Python (target less SQL alone)"
TOGETHER = "a save beyond its Python and its SQL run alone"
INTERLEAVED = "save's Python, then a raw UPSERT"
SLOWER = "a save's Python and a raw UPSERT beyond each alone"
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
    if store is not None:  # texts_only's machine has none
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


def texts_only(target: PlainTaskMachine) -> Runner:
    """Per save, the texts a machine hands a store (its head's, its new record's) and the
    SHA-256 of a row holding them: the least a save's Python does (no store is called)."""
    from statewright._snapshot_text import own_text
    from statewright._stores.codec import checksum

    def run(saves: int) -> float:
        send = target.send
        start = time.perf_counter()
        for i in range(saves):
            send(Ev.HEARTBEAT, i=i, tool="search", query=f"step {i}", ok=True)
            own = own_text(target, target.total_transitions - 1)
            checksum(f"{own.before}{own.revision + 1}{own.after}{own.records[0]}")
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


def upserting(
    execute: Callable[[str, tuple[Any, ...]], Any],
    text: str,
    mark: str,
    python_of: PlainTaskMachine | None = None,
) -> Runner:
    """UPSERTs of the head text through ``execute`` (``mark``: the driver's placeholder); each
    one differs (its revision), as every save's head does, all made before the timing starts.
    With ``python_of`` (a machine whose store runs no SQL), each UPSERT follows its save's
    Python."""
    statement = (
        f"INSERT INTO raw VALUES ({mark}, {mark}) ON CONFLICT (id) DO UPDATE "
        "SET snapshot = excluded.snapshot"
    )
    done = [1]

    def run(count: int) -> float:
        texts = revisions(text, count, done[0])
        done[0] += count
        if python_of is None:
            start = time.perf_counter()
            for head in texts:
                execute(statement, ("m", head))
            return time.perf_counter() - start
        send, save = python_of.send, python_of.save
        start = time.perf_counter()
        for i, head in enumerate(texts):
            send(Ev.HEARTBEAT, i=i, tool="search", query=f"step {i}", ok=True)
            save()
            execute(statement, ("m", head))
        return time.perf_counter() - start

    return run


def sqlite_connection(path: Path, synchronous: str) -> sqlite3.Connection:
    """A connection with the store's settings (WAL, ``synchronous``), committing each statement."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    return db


def sqlite_upserting(
    path: Path, synchronous: str, text: str, python_of: PlainTaskMachine | None = None
) -> Runner:
    db = sqlite_connection(path, synchronous)
    db.execute("CREATE TABLE IF NOT EXISTS raw (id TEXT PRIMARY KEY, snapshot TEXT NOT NULL)")
    return upserting(db.execute, text, "?", python_of)


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
        head = head_text(full)
        variants: dict[str, Runner] = {
            UPSERT: sqlite_upserting(Path(folder) / "raw.sqlite", args.synchronous, head),
            NONE: saving(machine(store("none"), "none", history=False)),
            ONE: saving(machine(store("one"), "one", history=True, limit=1)),
            RECORDS: saving(full),
            WHOLE: saving(machine(WholeSnapshots(store("whole")), "whole", history=True)),
        }

        def without_sql(name: str) -> PlainTaskMachine:
            """A 1,000-record machine whose store runs no SQL after its first save."""
            no_sql = store(name)
            built = machine(no_sql, "python", history=True)
            stores.append(no_sql._db)  # closed at the end, as the others are
            no_sql._db = NoSql()  # type: ignore[assignment]
            return built

        variants[PYTHON] = saving(without_sql("python"))
        variants[INTERLEAVED] = sqlite_upserting(
            Path(folder) / "raw-after-python.sqlite",
            args.synchronous,
            head,
            without_sql("python-then-upsert"),
        )
        recorder = store("recorded")
        recorded = machine(recorder, "full", history=True)
        recorder._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all of it in the file
        shutil.copy(Path(folder) / "recorded.sqlite", Path(folder) / "replica.sqlite")
        replica = sqlite_connection(Path(folder) / "replica.sqlite", args.synchronous)
        stores.append(replica)
        recording = Recording(recorder._db)
        recorder._db = recording  # type: ignore[assignment]
        variants[SQL] = replaying(recorded, recording, replica)
        variants[TEXTS] = texts_only(machine(None, "texts", history=True))
        if postgres_url is not None:
            try:
                variants.update(postgres_variants(postgres_url, stores))
            except Exception as exc:  # psycopg missing, or the server refused
                print(f"PostgreSQL: not measured ({type(exc).__name__}: {str(exc)[:200]})")
        print(
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, WAL, "
            f"synchronous={args.synchronous}, a file per variant, {saves} saves per run, median "
            f"of {args.rounds} interleaved rounds; head row {len(head):,} bytes"
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
    us = {name: value * 1e6 for name, value in median.items()}
    budget = TARGET * us[UPSERT] - us[SQL]
    together = us[RECORDS] - us[PYTHON] - us[SQL]
    slower = us[INTERLEAVED] - us[PYTHON] - us[UPSERT]
    print(
        f"{TARGET}x the raw UPSERT leaves the save's Python {budget:.1f} us beside its SQL alone; "
        f"the Python alone takes {us[PYTHON]:.1f} us, its texts and checksum alone "
        f"{us[TEXTS]:.1f} us"
    )
    print(
        f"run together, a save costs {together:.1f} us more than its Python and its SQL each run "
        f"alone; a save's Python and a raw UPSERT, one after the other, {slower:.1f} us more"
    )
    if PG_RECORDS in median:
        ratios["postgres"] = median[PG_RECORDS] / median[PG_UPSERT]
        print(
            f"PostgreSQL: save with 1,000 records / raw UPSERT: {ratios['postgres']:.2f}x "
            f"(target <= {TARGET}x)"
        )
    if args.json:
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
            row(TEXTS, us[TEXTS], "us", against=UPSERT, ratio=us[TEXTS] / us[UPSERT]),
            row(BUDGET, budget, "us", against=UPSERT, ratio=budget / us[UPSERT]),
            row(TOGETHER, together, "us", against=UPSERT, ratio=together / us[UPSERT]),
            row(INTERLEAVED, us[INTERLEAVED], "us"),
            row(SLOWER, slower, "us", against=UPSERT, ratio=slower / us[UPSERT]),
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

"""The SQL stores' layout 2 (statewright._stores.layout): the newest history records kept in the
head row, so that a save is one statement, flushed to record rows once the row is full; the
due-timer index as two columns of the instance row, so that a save that moves a timer is one
statement too. A store written before layout 2 opens (its due times moved in), loads and goes on
(``fixtures/layout1``, written by the runtime before it)."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_task import AgentTaskMachine, AgentTaskState
from hypothesis import given, settings
from hypothesis import strategies as st
from statewright import (
    Conflict,
    MachineOptions,
    PostgresStore,
    SqliteStore,
    Store,
    fire_due_timers,
)
from statewright._stores.layout import FLUSH_RECORDS, LAYOUT, Recent, split_records

from tests.fuzz import examples
from tests.runtime.fixtures.write_layout1 import EXPECTED, START
from tests.runtime.fixtures.write_legacy import _AgentHandlers
from tests.runtime.machines import PlainTaskMachine, TaskEvent
from tests.runtime.store_kinds import open_kind, postgres_schema_url, stored_rows

LAYOUT1 = Path(__file__).resolve().parent / "fixtures" / "layout1"
Ev = TaskEvent


@pytest.fixture
def layout1(tmp_path: Path) -> Iterator[SqliteStore]:
    shutil.copy(LAYOUT1 / "store.sqlite", tmp_path / "store.sqlite")
    with SqliteStore(tmp_path / "store.sqlite") as store:
        yield store


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_kind(request.param, tmp_path, request) as opened:
        yield opened


def statements(store: SqliteStore) -> list[str]:
    """The statements the store's connection runs from now on (their first words)."""
    ran: list[str] = []
    store._db.set_trace_callback(lambda statement: ran.append(statement.split(" (")[0][:40]))
    return ran


def acting(store: Any, instance_id: str = "m", **options: Any) -> PlainTaskMachine:
    machine = PlainTaskMachine(
        None, options=MachineOptions(store=store, instance_id=instance_id, **options)
    )
    for event in (Ev.TASK_CREATED, Ev.PLAN_DONE, Ev.PLAN_APPROVED):
        machine.send(event)
    machine.save()
    return machine


def beat(machine: PlainTaskMachine, times: int) -> None:
    for i in range(times):
        machine.send(Ev.HEARTBEAT, i=i, note=f"beat {i}")


def test_a_layout1_store_opens_loads_and_goes_on(layout1: SqliteStore) -> None:
    db = layout1._db
    assert db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
    assert db.execute("SELECT count(*) FROM statewright_due").fetchone()[0] == 0  # moved in
    due = dict(db.execute("SELECT instance_id, next_due FROM statewright_instances").fetchall())
    assert due == {"plain": None, "chart": START + 30, "whole": None}
    expected = json.loads((LAYOUT1 / EXPECTED).read_text(encoding="utf-8"))
    unbounded = MachineOptions(history_limit=None)
    for name in ("plain", "whole"):
        assert layout1.load(name) == expected[name]["snapshot"]
        machine = PlainTaskMachine.load(layout1, name, options=unbounded)
        assert [r.as_dict() for r in machine.history] == expected[name]["history"]
        revision = machine.revision
        beat(machine, 3)
        assert machine.save() == revision + 1  # written in layout 2 from now on
        again = PlainTaskMachine.load(layout1, name, options=unbounded)
        assert again.snapshot() == machine.snapshot()
        total = machine.total_transitions
        assert stored_rows(layout1, name)[-len(machine.history) :] == list(
            range(total - len(machine.history) + 1, total + 1)
        )
    assert layout1.load("chart") == expected["chart"]["snapshot"]
    assert layout1.claim_due(START + 29, 10, 60) == []
    layout1.release("chart")
    options = MachineOptions(clock=lambda: START + 31)
    fired = fire_due_timers(
        layout1, AgentTaskMachine, _AgentHandlers(), now=START + 31, options=options
    )
    assert fired == 1
    chart: AgentTaskMachine[None] = AgentTaskMachine.load(layout1, "chart", _AgentHandlers())
    assert chart.state is AgentTaskState.FAILED and chart.history[-1].lateness == 1.0


def test_a_save_is_one_statement_until_the_head_row_is_full(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "db.sqlite", synchronous="NORMAL") as store:
        machine = acting(store)
        loaded = PlainTaskMachine.load(store, "m")  # what a store learns loading it
        ran = statements(store)
        each: list[list[str]] = []
        while not each or each[-1][0] != "BEGIN IMMEDIATE":
            beat(loaded, 1)
            loaded.save()
            each.append(list(ran))
            ran.clear()
            assert len(each) <= FLUSH_RECORDS + 1
        *common, flush = each
        assert len(common) >= 8  # records of some 270 characters: a dozen fit in the row
        assert all(one == ["UPDATE statewright_instances SET machine"] for one in common)
        assert stored_rows(store, "m") == list(range(1, loaded.total_transitions + 1))
        assert flush[-1] == "COMMIT" and "INSERT INTO statewright_history VALUES" in flush
        rows = store._db.execute("SELECT count(*) FROM statewright_history").fetchone()[0]
        assert rows == loaded.total_transitions  # all of them rows now: the head row keeps none
        assert PlainTaskMachine.load(store, "m").snapshot() == loaded.snapshot()
        assert machine.revision == 1  # the first machine is stale now


def test_a_timer_moved_by_a_save_is_in_its_one_statement(tmp_path: Path) -> None:
    now = [START]
    with SqliteStore(tmp_path / "db.sqlite") as store:
        options = MachineOptions(store=store, instance_id="c", clock=lambda: now[0])
        machine: AgentTaskMachine[None] = AgentTaskMachine(None, _AgentHandlers(), options=options)
        machine.planned()
        machine.save()
        ran = statements(store)
        now[0] += 5
        machine.suspend()  # the watchdog is cancelled: no due time
        machine.save()
        assert store.claim_due(START + 1000, 10, 60) == []
        now[0] += 5
        machine.resume()  # the watchdog starts again, due 30 s from now
        machine.save()
        assert store.claim_due(START + 39, 10, 60) == []
        assert store.claim_due(START + 40, 10, 60) == ["c"]
        assert [
            s
            for s in ran
            if not s.startswith(
                ("BEGIN", "SELECT", "UPDATE statewright_instances SET lease", "COMMIT")
            )
        ] == ["UPDATE statewright_instances SET machine"] * 2


def test_a_release_after_a_save_writes_nothing(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "db.sqlite") as store:
        options = MachineOptions(store=store, instance_id="c", clock=lambda: START)
        created: AgentTaskMachine[None] = AgentTaskMachine(None, _AgentHandlers(), options=options)
        created.planned()
        created.save()
        machine: AgentTaskMachine[None] = AgentTaskMachine.load(store, "c", _AgentHandlers())
        assert machine.revision == 1
        assert store.claim_due(START + 31, 10, 60) == ["c"]
        assert store.claim_due(START + 31, 10, 60) == []  # leased
        store.release("c")  # nothing fired: the lease ends
        assert store.claim_due(START + 32, 10, 60) == ["c"]
        ran = statements(store)
        machine.fire_due(START + 32)
        machine.save()  # ends the lease with the write
        store.release("c")
        assert ran == ["UPDATE statewright_instances SET machine"]
        assert store.claim_due(START + 1000, 10, 60) == []  # the watchdog fired


def test_a_lost_race_while_flushing_writes_nothing(store: Store) -> None:
    first = acting(store)
    a = PlainTaskMachine.load(store, "m")
    b = PlainTaskMachine.load(store, "m")
    beat(a, 2)
    a.save()
    beat(b, FLUSH_RECORDS + 5)  # more than the row keeps: b's save would flush
    with pytest.raises(Conflict):
        b.save()
    assert PlainTaskMachine.load(store, "m").snapshot() == a.snapshot()
    assert stored_rows(store, "m") == list(range(1, a.total_transitions + 1))
    assert first.total_transitions == 3


def test_a_store_that_did_not_write_the_row_reads_it_first(store: Store, tmp_path: Path) -> None:
    machine = acting(store, history_limit=40)
    for _ in range(6):
        beat(machine, 9)
        machine.save()
        if isinstance(store, SqliteStore):  # another store object: it knows nothing yet
            store._heads.clear()
        else:
            assert isinstance(store, PostgresStore)
            store._heads.clear()
        assert PlainTaskMachine.load(store, "m").snapshot() == machine.snapshot()
    assert stored_rows(store, "m")[-40:] == list(range(18, 58))


def test_a_postgres_layout1_store_moves_its_due_times_in(postgres_url: str) -> None:
    import psycopg

    url = postgres_schema_url(postgres_url)
    with psycopg.connect(url, autocommit=True) as db:  # the tables as layout 1 created them
        db.execute(
            "CREATE TABLE statewright_instances (instance_id text PRIMARY KEY, machine text NOT "
            "NULL, revision bigint NOT NULL, snapshot text NOT NULL, updated_at double precision "
            "NOT NULL, checksum text NOT NULL, split boolean NOT NULL, total_transitions bigint)"
        )
        db.execute(
            "CREATE TABLE statewright_due (instance_id text PRIMARY KEY, next_due double "
            "precision NOT NULL, lease_until double precision)"
        )
        db.execute(
            "INSERT INTO statewright_instances VALUES ('c', 'AgentTask', 1, '{}', 0, '', true, 1)"
        )
        db.execute("INSERT INTO statewright_due VALUES ('c', %s, NULL)", (START + 30,))
    with PostgresStore(url) as store:
        assert store.claim_due(START + 29, 10, 60) == []
        assert store.claim_due(START + 30, 10, 60) == ["c"]
    with psycopg.connect(url, autocommit=True) as db:
        assert db.execute("SELECT count(*) FROM statewright_due").fetchone() == (0,)
        options = "SELECT reloptions FROM pg_class WHERE oid = 'statewright_instances'::regclass"
        assert db.execute(options).fetchone() == (["toast_tuple_target=8160"],)  # tuned


def test_postgres_keeps_a_full_head_row_uncompressed(postgres_url: str) -> None:
    """A head row with the records it keeps (up to a SQLite page's worth) is stored as it is:
    PostgreSQL would compress it from ~2 kB on, at every save, unless the table says not to."""
    import psycopg

    url = postgres_schema_url(postgres_url)
    with PostgresStore(url) as store:
        machine = PlainTaskMachine(None, options=MachineOptions(store=store, instance_id="m"))
        for event in (Ev.TASK_CREATED, Ev.PLAN_DONE, Ev.PLAN_APPROVED):
            machine.send(event)
        machine.save()
        longest = 0
        with psycopg.connect(url, autocommit=True) as db:
            for i in range(FLUSH_RECORDS):
                machine.send(Ev.HEARTBEAT, i=i, note="x" * 150)
                machine.save()
                row = db.execute(
                    "SELECT length(snapshot), pg_column_compression(snapshot) "
                    "FROM statewright_instances"
                ).fetchone()
                assert row is not None
                length, compression = row
                assert compression is None
                longest = max(longest, length)
    assert longest > 3000  # well past the ~2 kB from which PostgreSQL compresses by default


def test_a_broken_descriptor_is_a_snapshot_error(tmp_path: Path) -> None:
    from statewright import SnapshotError
    from statewright._stores.codec import checksum

    with SqliteStore(tmp_path / "db.sqlite") as store:
        machine = acting(store)
        beat(machine, 2)
        machine.save()
        (text,) = store._db.execute("SELECT snapshot FROM statewright_instances").fetchone()
        for broken in (
            text.replace('"recent_chars":', '"recent_chars":1', 1),
            text.replace('"retained":5', '"retained":4', 1),
            text.replace('"event_id":4', '"event_id":9', 1),
        ):
            assert broken != text
            store._db.execute(
                "UPDATE statewright_instances SET snapshot = ?, checksum = ?",
                (broken, checksum(broken)),
            )
            with pytest.raises(SnapshotError):
                store.load("m")
    with contextlib.closing(sqlite3.connect(tmp_path / "db.sqlite")) as db:
        assert db.execute("PRAGMA user_version").fetchone()


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=1, max_size=12),
    st.integers(1, 20),
)
def test_records_kept_as_texts_or_as_a_read_fragment_extend_alike(
    batches: list[tuple[int, bool]], retained: int
) -> None:
    """A store keeps the records it wrote as their texts (a flush takes them as they are) and
    those it read from a row as the row's fragment (split when a flush needs them): extended by
    the same records, with gaps and windows, both hold the same records."""
    total = 0
    written = read = Recent.of_texts([], 0)
    for count, gap in batches:
        total += count + (2 if gap and count else 0)
        texts = [json.dumps({"event_id": i, "s": "a,]}"}) for i in range(total - count, total)]
        written = written.extended(texts, total, retained)
        read = Recent(read.fragment, read.count, read.total).extended(texts, total, retained)
        assert (written.fragment, written.count, written.total) == (
            read.fragment,
            read.count,
            read.total,
        )
        assert written.texts == read.texts == split_records(written.fragment)
        assert written.count == len(written.texts) <= retained

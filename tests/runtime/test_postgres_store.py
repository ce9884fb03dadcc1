"""What only the PostgreSQL store does, against a real server: the revision checked after the
row lock, claims that skip locked rows, a restarted database; and ``open_store`` by URL."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest
from statewright import (
    Conflict,
    JsonFileStore,
    MachineOptions,
    MemoryStore,
    PostgresStore,
    SqliteStore,
    StoreError,
    open_store,
)

from tests.runtime.machines import PlainTaskMachine, TaskEvent
from tests.runtime.store_kinds import postgres_schema_url

Ev = TaskEvent


@pytest.fixture
def url(postgres_url: str) -> str:
    return postgres_schema_url(postgres_url)


def test_open_store_by_url(tmp_path: Path, url: str) -> None:
    assert isinstance(open_store("memory://"), MemoryStore)
    files = open_store(f"file://{tmp_path}/files")
    assert isinstance(files, JsonFileStore) and files.directory == tmp_path / "files"
    sqlite = open_store(f"sqlite://{tmp_path}/db.sqlite?synchronous=NORMAL&timeout=2")
    assert isinstance(sqlite, SqliteStore) and sqlite.path == f"{tmp_path}/db.sqlite"
    sqlite.close()
    postgres = open_store(url)
    assert isinstance(postgres, PostgresStore)
    assert repr(postgres).startswith("PostgresStore('postgresql://postgres@/tmp/sw-pg-")
    postgres.close()
    secret = PostgresStore.__new__(PostgresStore)
    secret.url = "postgresql://app:s3cret@db.internal:5432/fsm"
    assert repr(secret) == "PostgresStore('postgresql://app@db.internal/fsm')"
    for bad in [
        "mysql://x",
        "sqlite://host/db",
        "sqlite:///x?journal=off",
        "sqlite:///x?timeout=soon",
        "memory://?x=1",
        "file://elsewhere/dir",
        "",
    ]:
        with pytest.raises(StoreError):
            open_store(bad)


def test_without_psycopg_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what an install without it raises
    with pytest.raises(StoreError, match=r"pip install 'statewright\[postgres\]'"):
        open_store("postgresql://nobody@/nowhere")


def test_a_writer_behind_the_row_lock_sees_the_winners_revision(url: str) -> None:
    import psycopg

    store = PostgresStore(url)
    machine = PlainTaskMachine(None, options=MachineOptions(store=store, instance_id="m"))
    machine.save()
    loser = PlainTaskMachine.load(store, "m")
    loser.send(Ev.TASK_CREATED)
    with psycopg.connect(url) as other:  # a transaction holding the row, about to save
        other.execute(
            "SELECT revision FROM statewright_instances WHERE instance_id = 'm' FOR UPDATE"
        )
        outcome: list[BaseException | int] = []
        waiting = threading.Thread(target=lambda: outcome.append(_save(loser)))
        waiting.start()
        time.sleep(0.3)
        assert outcome == []  # the loser waits for the row lock...
        other.execute("UPDATE statewright_instances SET revision = 2 WHERE instance_id = 'm'")
        other.commit()
        waiting.join(timeout=30)
    assert len(outcome) == 1 and isinstance(outcome[0], Conflict)  # ...then sees revision 2
    assert outcome[0].actual == 2
    store.close()


def _save(machine: PlainTaskMachine) -> BaseException | int:
    try:
        return machine.save()
    except Conflict as conflict:
        return conflict


def test_claims_skip_rows_another_worker_holds(url: str) -> None:
    import psycopg

    store = PostgresStore(url)
    with store._lock, store._session("test") as db:
        for i in range(4):  # the due-timer index is two columns of the instance rows
            db.execute(
                "INSERT INTO statewright_instances (instance_id, machine, revision, snapshot, "
                "updated_at, checksum, split, next_due) "
                "VALUES (%s, 'M', 1, '{}', 0, '', false, %s)",
                (f"i{i}", i),
            )
    with psycopg.connect(url) as other:
        other.execute("SELECT * FROM statewright_instances WHERE instance_id = 'i0' FOR UPDATE")
        started = time.monotonic()
        assert store.claim_due(10, 2, 60) == ["i1", "i2"]  # i0 skipped, not waited for
        assert time.monotonic() - started < 5
    assert store.claim_due(10, 10, 60) == ["i0", "i3"]
    assert store.claim_due(10, 10, 60) == []
    store.close()


@pytest.mark.slow  # stops and starts the server
def test_a_database_restart_is_a_store_error_then_the_store_reconnects(tmp_path: Path) -> None:
    from tests.postgres_server import running_server, stop_and_start

    with running_server() as own:
        store = PostgresStore(own)
        machine = PlainTaskMachine(None, options=MachineOptions(store=store, instance_id="m"))
        machine.save()
        stop_and_start(own)
        machine.send(Ev.TASK_CREATED)
        with pytest.raises(StoreError, match="cannot save"):
            machine.save()  # on the connection the server dropped
        assert machine.revision == 1  # not saved; the machine is still usable
        assert machine.save() == 2  # on a new connection
        stored = store.load("m")
        assert stored is not None and stored["state"] == "planning"
        store.close()

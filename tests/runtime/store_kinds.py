"""Open each kind of store for a test: memory, JSON files, SQLite, and PostgreSQL (a schema of
its own on the session's throwaway server, so tests never see each other's rows)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
from statewright import JsonFileStore, MemoryStore, PostgresStore, SqliteStore, Store

#: Every kind; ``RECORD_KINDS`` keep history as records.
KINDS = ["memory", "json", "sqlite", "postgres"]
RECORD_KINDS = ["memory", "sqlite", "postgres"]
_SCHEMAS = itertools.count(1)


def postgres_schema_url(base_url: str) -> str:
    """A URL whose connections use a fresh, empty schema."""
    import psycopg

    schema = f"test_{next(_SCHEMAS)}"
    with psycopg.connect(base_url, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        connection.execute(f"CREATE SCHEMA {schema}")
    return f"{base_url}&options={quote(f'-c search_path={schema}')}"


@contextmanager
def open_kind(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Store]:
    if kind == "memory":
        yield MemoryStore()
    elif kind == "json":
        yield JsonFileStore(tmp_path / "files")
    elif kind == "sqlite":
        with SqliteStore(tmp_path / "db.sqlite") as sqlite:
            yield sqlite
    else:
        url = postgres_schema_url(request.getfixturevalue("postgres_url"))
        with PostgresStore(url) as postgres:
            yield postgres


def stored_rows(store: Store, instance_id: str) -> list[int]:
    """The event ids of the history records a store holds for ``instance_id``, oldest first: a
    database store's record rows and the newest records its head row keeps
    (statewright._stores.layout), the memory store's record texts."""
    if isinstance(store, SqliteStore):
        rows = store._db.execute(
            "SELECT event_id FROM statewright_history WHERE instance_id = ? ORDER BY event_id",
            (instance_id,),
        ).fetchall()
        head = store._db.execute(
            "SELECT snapshot FROM statewright_instances WHERE instance_id = ?", (instance_id,)
        ).fetchone()
    elif isinstance(store, PostgresStore):
        with store._lock, store._session("test") as db:
            rows = db.execute(
                "SELECT event_id FROM statewright_history WHERE instance_id = %s ORDER BY event_id",
                (instance_id,),
            ).fetchall()
            head = db.execute(
                "SELECT snapshot FROM statewright_instances WHERE instance_id = %s",
                (instance_id,),
            ).fetchone()
    else:
        assert isinstance(store, MemoryStore)
        first, texts = store._records.get(instance_id, (1, []))
        return list(range(first, first + len(texts)))
    kept = [] if head is None else json.loads(head[0]).get("stored_history", {}).get("recent", [])
    return [int(row[0]) for row in rows] + [int(record["event_id"]) for record in kept]

"""The PostgreSQL store (``postgresql://...``): many workers on many hosts, one database.

It keeps the SQLite store's contract: optimistic revisions (:class:`Conflict`, nothing written),
checksums over every stored text, history as one row per record, ``StoreError`` and
``SnapshotError`` and nothing else. A save is one transaction that first locks the instance's
row (``SELECT ... FOR UPDATE``) and checks the revision *after* the lock is granted, so a writer
that waited behind another one sees that one's revision and loses (``Conflict``) instead of
overwriting it. The due-timer index (``statewright_due``) is claimed with
``FOR UPDATE SKIP LOCKED`` plus a lease: workers never wait for each other's claims and never
get the same instance while a lease runs.

psycopg 3 is imported when a store is opened (``pip install 'statewright[postgres]'``); the
runtime stays standard library only without it. Texts are stored as ``text`` (canonical JSON is
ASCII), so the checksum is over exactly what was written. A lost connection (a database
restart) is a :class:`StoreError` and the next call reconnects; a save whose COMMIT may or may
not have reached the server cannot know which: reload the instance (its stored revision says).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from statewright._errors import Conflict, SnapshotError, StoreError
from statewright._stores.codec import (
    MAX_REVISION,
    STORED_HISTORY_KEY,
    assemble,
    canonical,
    checksum,
    earliest_due,
    encode_snapshot,
    head_of_row,
    new_revision,
    prune_below,
    record_rows,
    retained_of,
    stored_record,
    stored_update,
    whole_history,
)
from statewright._stores.protocol import SnapshotUpdate

__all__ = ["PostgresStore"]

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS statewright_instances (
        instance_id text PRIMARY KEY,
        machine text NOT NULL,
        revision bigint NOT NULL,
        snapshot text NOT NULL,
        updated_at double precision NOT NULL,
        checksum text NOT NULL,
        split boolean NOT NULL,
        total_transitions bigint
    )""",
    """CREATE TABLE IF NOT EXISTS statewright_history (
        instance_id text NOT NULL,
        event_id bigint NOT NULL,
        record text NOT NULL,
        checksum text NOT NULL,
        PRIMARY KEY (instance_id, event_id)
    )""",
    """CREATE TABLE IF NOT EXISTS statewright_due (
        instance_id text PRIMARY KEY,
        next_due double precision NOT NULL,
        lease_until double precision
    )""",
    "CREATE INDEX IF NOT EXISTS statewright_due_by_time ON statewright_due (next_due)",
)


class PostgresStore:
    """Snapshots in a PostgreSQL database (tables created on first use).

    One connection per store object, shared by its threads under a lock; open one store per
    process (connections must not cross ``fork``). ``url`` is any libpq connection string.
    """

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError(
                "the PostgreSQL store needs psycopg 3: pip install 'statewright[postgres]'"
            ) from exc
        self._psycopg = psycopg
        self.url = url
        self._lock = threading.Lock()
        self._connection: Any = None
        with self._lock, self._session("open") as db, db.transaction():
            # One process creates the tables; concurrent CREATE ... IF NOT EXISTS can race.
            db.execute("SELECT pg_advisory_xact_lock(7428001)")
            for statement in _SCHEMA:
                db.execute(statement)

    @contextmanager
    def _session(self, doing: str) -> Iterator[Any]:
        """The connection (reconnecting after a lost one); psycopg errors become StoreError."""
        psycopg = self._psycopg
        try:
            connection = self._connection
            if connection is None or connection.closed or connection.broken:
                if connection is not None and connection.closed and not connection.broken:
                    raise StoreError(f"{self!r}: the store is closed")
                self._connection = connection = psycopg.connect(self.url, autocommit=True)
            yield connection
        except psycopg.Error as exc:
            raise StoreError(f"{self!r}: cannot {doing}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        where = f"postgresql {instance_id!r:.80}"
        with self._lock, self._session(f"load {instance_id!r:.80}") as db:
            db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")  # head and records
            try:
                row = db.execute(
                    "SELECT revision, snapshot, checksum FROM statewright_instances "
                    "WHERE instance_id = %s",
                    (instance_id,),
                ).fetchone()
                rows: list[Any] = []
                data = None if row is None else head_of_row(row, where)
                stored = None if data is None else data.pop(STORED_HISTORY_KEY, None)
                if data is not None and stored is not None:
                    retained = retained_of(stored, data, where)
                    total = data["total_transitions"]
                    rows = db.execute(
                        "SELECT event_id, record, checksum FROM statewright_history "
                        "WHERE instance_id = %s AND event_id > %s AND event_id <= %s "
                        "ORDER BY event_id",
                        (instance_id, total - retained, total),
                    ).fetchall()
            finally:
                db.execute("COMMIT")
        if data is None or stored is None:
            return data
        start = data["total_transitions"] - retained + 1
        records = [
            stored_record(text, f"{where} record {event_id}", start + i, digest)
            for i, (event_id, text, digest) in enumerate(rows)
        ]
        return assemble(data, records, retained, where)

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        revision = new_revision(instance_id, expected_revision)
        text = encode_snapshot(snapshot, revision)
        due = earliest_due(snapshot)
        total = snapshot.get("total_transitions")
        with self._lock, self._session(f"save {instance_id!r}") as db, db.transaction():
            self._locked_head(db, instance_id, expected_revision)
            self._write_head(
                db, instance_id, snapshot, revision, text, expected_revision, False, total
            )
            db.execute("DELETE FROM statewright_history WHERE instance_id = %s", (instance_id,))
            self._set_due(db, instance_id, due, snapshot)
        return revision

    def save_update(
        self, instance_id: str, update: SnapshotUpdate, expected_revision: int, /
    ) -> int:
        """Update the head row and insert the new records (see :class:`SnapshotUpdate`)."""
        revision, head, records, total = stored_update(instance_id, update, expected_revision)
        retained: int = update.retained
        text = canonical(head)
        rows = record_rows(instance_id, records)
        due = earliest_due(head)
        since = update.since
        with self._lock, self._session(f"save {instance_id!r}") as db, db.transaction():
            old = self._locked_head(db, instance_id, expected_revision)
            if old is None or since is None:
                db.execute("DELETE FROM statewright_history WHERE instance_id = %s", (instance_id,))
            elif len(rows) < retained and not old[1]:  # a whole snapshot: its records become rows
                rows[:0] = self._whole_records(db, instance_id, total - retained + 1, since)
            elif len(rows) < retained and old[2] != since:
                raise SnapshotError(
                    f"postgresql {instance_id!r}: the stored history ends at event {old[2]}, not "
                    f"at {since}: load the instance again"
                )
            self._write_head(db, instance_id, head, revision, text, expected_revision, True, total)
            with db.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO statewright_history VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (instance_id, event_id) DO UPDATE "
                    "SET record = excluded.record, checksum = excluded.checksum",
                    rows,
                )
            below = prune_below(total - len(records), total, retained)
            if below is not None:
                db.execute(
                    "DELETE FROM statewright_history WHERE instance_id = %s AND event_id < %s",
                    (instance_id, below),
                )
            self._set_due(db, instance_id, due, head)
        return revision

    def _locked_head(
        self, db: Any, instance_id: str, expected_revision: int
    ) -> tuple[int, bool, int | None] | None:
        """Lock the instance's row and check its revision *after* the lock was granted:
        ``(revision, split, total_transitions)``, None for a new instance, else Conflict."""
        row = db.execute(
            "SELECT revision, split, total_transitions FROM statewright_instances "
            "WHERE instance_id = %s FOR UPDATE",
            (instance_id,),
        ).fetchone()
        actual = None if row is None else row[0]
        if actual is not None and (type(actual) is not int or not 1 <= actual <= MAX_REVISION):
            raise SnapshotError(f"postgresql {instance_id!r} has revision {actual!r:.40}")
        if (actual or 0) != expected_revision:
            raise Conflict(instance_id, expected_revision, actual)
        return None if row is None else (row[0], row[1], row[2])

    def _write_head(
        self,
        db: Any,
        instance_id: str,
        head: Mapping[str, Any],
        revision: int,
        text: str,
        expected_revision: int,
        split: bool,
        total: object,
    ) -> None:
        machine = str(head.get("machine", ""))
        count = total if type(total) is int else None
        values = (machine, revision, text, time.time(), checksum(text), split, count)
        if expected_revision == 0:
            inserted = db.execute(
                "INSERT INTO statewright_instances VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (instance_id) DO NOTHING",
                (instance_id, *values),
            )
            if inserted.rowcount != 1:  # created by another writer since the check
                raise Conflict(instance_id, 0, None)
            return
        db.execute(
            "UPDATE statewright_instances SET machine = %s, revision = %s, snapshot = %s, "
            "updated_at = %s, checksum = %s, split = %s, total_transitions = %s "
            "WHERE instance_id = %s",
            (*values, instance_id),
        )

    def _whole_records(
        self, db: Any, instance_id: str, first: int, since: int
    ) -> list[tuple[str, int, str, str]]:
        where = f"postgresql {instance_id!r:.80}"
        row = db.execute(
            "SELECT revision, snapshot, checksum FROM statewright_instances WHERE instance_id = %s",
            (instance_id,),
        ).fetchone()
        kept = whole_history(head_of_row(row, where), where)
        return record_rows(instance_id, (r for r in kept if first <= r["event_id"] <= since))

    def _set_due(
        self, db: Any, instance_id: str, due: float | None, head: Mapping[str, Any]
    ) -> None:
        if due is not None:
            db.execute(
                "INSERT INTO statewright_due (instance_id, next_due) VALUES (%s, %s) "
                "ON CONFLICT (instance_id) DO UPDATE SET next_due = excluded.next_due",
                (instance_id, due),
            )
        elif "chart" in head:  # a flat machine never has a timer: spare it the statement
            db.execute("DELETE FROM statewright_due WHERE instance_id = %s", (instance_id,))

    def delete(self, instance_id: str, /) -> bool:
        with self._lock, self._session(f"delete {instance_id!r}") as db, db.transaction():
            deleted = db.execute(
                "DELETE FROM statewright_instances WHERE instance_id = %s", (instance_id,)
            ).rowcount
            db.execute("DELETE FROM statewright_history WHERE instance_id = %s", (instance_id,))
            db.execute("DELETE FROM statewright_due WHERE instance_id = %s", (instance_id,))
        return bool(deleted == 1)

    def list_ids(self) -> list[str]:
        with self._lock, self._session("list instances") as db:
            rows = db.execute(
                "SELECT instance_id FROM statewright_instances ORDER BY instance_id"
            ).fetchall()
        return [str(row[0]) for row in rows]

    def claim_due(self, now: float, limit: int, lease_seconds: float) -> list[str]:
        """Instances with a timer due at ``now``, earliest first, leased to the caller for
        ``lease_seconds``. ``FOR UPDATE SKIP LOCKED``: rows another worker is claiming (or a
        save is updating) right now are skipped, not waited for."""
        with self._lock, self._session("claim due timers") as db:
            rows = db.execute(
                "UPDATE statewright_due SET lease_until = %s WHERE instance_id IN ("
                "SELECT instance_id FROM statewright_due WHERE next_due <= %s "
                "AND (lease_until IS NULL OR lease_until <= %s) "
                "ORDER BY next_due LIMIT %s FOR UPDATE SKIP LOCKED) "
                "RETURNING instance_id, next_due",
                (now + lease_seconds, now, now, max(0, limit)),
            ).fetchall()
        return [str(instance_id) for instance_id, _ in sorted(rows, key=lambda r: (r[1], r[0]))]

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id`` (see :meth:`claim_due`)."""
        with self._lock, self._session(f"release {instance_id!r}") as db:
            db.execute(
                "UPDATE statewright_due SET lease_until = NULL WHERE instance_id = %s",
                (instance_id,),
            )

    def __repr__(self) -> str:
        from urllib.parse import parse_qs, urlsplit

        parts = urlsplit(self.url)  # never a password: user, host (or socket folder), database
        host = parts.hostname or parse_qs(parts.query).get("host", [""])[-1]
        user = f"{parts.username}@" if parts.username else ""
        return f"PostgresStore('{parts.scheme}://{user}{host}{parts.path}')"

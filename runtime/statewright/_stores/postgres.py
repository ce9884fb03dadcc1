"""The PostgreSQL store (``postgresql://...``): many workers on many hosts, one database.

It keeps the SQLite store's contract, with its statements, steps and layout
(:mod:`statewright._stores.sql` over the ``POSTGRES`` dialect): optimistic revisions
(:class:`Conflict`, nothing written), checksums over every stored text, history as the head
row's newest records and one row per older record, ``StoreError`` and ``SnapshotError`` and
nothing else. A save is usually one ``UPDATE ... WHERE revision = ?`` of the head row, which
PostgreSQL applies to the row as it is once the row's lock is granted (a writer that waited
behind another one sees that one's revision and loses, :class:`Conflict`); a save that must
read the stored row first locks it (``SELECT ... FOR UPDATE``) in a transaction. The due-timer
index (the instance row's ``next_due`` and ``lease_until``) is claimed with ``FOR UPDATE SKIP
LOCKED`` plus a lease: workers never wait for each other's claims and never get the same
instance while a lease runs.

psycopg 3 is imported when a store is opened (``pip install 'statewright[postgres]'``); the
runtime stays standard library only without it. Texts are stored as ``text`` (canonical JSON is
ASCII), so the checksum is over exactly what was written. A lost connection (a database
restart) is a :class:`StoreError` and the next call reconnects; a save whose COMMIT may or may
not have reached the server cannot know which: reload the instance (its stored revision says).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final

from statewright._errors import StoreError
from statewright._stores import sql, sql_save
from statewright._stores.dialect import POSTGRES, TOAST_TUPLE_TARGET
from statewright._stores.protocol import SnapshotUpdate

__all__ = ["PostgresStore", "psycopg_module", "shown_url"]

#: Taken while the tables are created: concurrent ``CREATE ... IF NOT EXISTS`` can race.
_SCHEMA_LOCK: Final = "SELECT pg_advisory_xact_lock(7428001)"
#: The instance table's storage option (see ``TOAST_TUPLE_TARGET``): a table created before it
#: was set gets it when a store first opens it (rows written since are stored uncompressed).
_TOAST_OPTION: Final = f"toast_tuple_target={TOAST_TUPLE_TARGET}"
_INSTANCE_OPTIONS: Final = (
    "SELECT reloptions FROM pg_class WHERE oid = to_regclass('statewright_instances')"
)
_TUNE_INSTANCES: Final = f"ALTER TABLE statewright_instances SET ({_TOAST_OPTION})"


class PostgresStore:
    """Snapshots in a PostgreSQL database (tables created on first use).

    One connection per store object, shared by its threads under a lock; open one store per
    process (connections must not cross ``fork``). ``url`` is any libpq connection string.
    """

    def __init__(self, url: str) -> None:
        self._psycopg = psycopg_module()
        self.url = url
        self._lock = threading.Lock()
        self._connection: Any = None
        self._kept_cursor: Any = None
        #: What this store object learnt of each instance's head row (see ``SqliteStore``).
        self._heads: dict[str, sql.Head] = {}
        #: Instances this store object claimed whose lease no save has ended since.
        self._leased: set[str] = set()
        with self._writing("open") as cursor:
            cursor.execute(_SCHEMA_LOCK)  # one process creates the tables, or migrates them
            for statement in (
                *POSTGRES.schema,
                *POSTGRES.add_columns.values(),
                POSTGRES.index,
                *POSTGRES.move_due,
            ):
                cursor.execute(statement)
            options = cursor.execute(_INSTANCE_OPTIONS).fetchone()
            if _TOAST_OPTION not in (options[0] or ()):  # a table made before: tune it once
                cursor.execute(_TUNE_INSTANCES)

    @contextmanager
    def _session(self, doing: str) -> Iterator[Any]:
        """The connection (reconnecting after a lost one); psycopg errors become StoreError."""
        try:
            yield self._connected()
        except self._psycopg.Error as exc:
            raise StoreError(f"{self!r}: cannot {doing}: {exc}") from exc

    def _connected(self) -> Any:
        """The connection, made again after a lost one (caller holds the lock and turns
        psycopg's errors into StoreError)."""
        connection = self._connection
        if connection is None or connection.closed or connection.broken:
            if connection is not None and connection.closed and not connection.broken:
                raise StoreError(f"{self!r}: the store is closed")
            self._connection = connection = self._psycopg.connect(self.url, autocommit=True)
        return connection

    def _live_cursor(self) -> Any:
        """A cursor of the connection, kept for the next call while the connection lasts (making
        one costs as much as a small statement; caller holds the lock)."""
        connection = self._connected()
        cursor = self._kept_cursor
        if cursor is None or cursor.connection is not connection or cursor.closed:
            cursor = self._kept_cursor = connection.cursor()
        return cursor

    @contextmanager
    def _cursor(self, doing: str) -> Iterator[Any]:
        """A cursor of the connection, under the store's lock; psycopg's errors StoreError."""
        with self._lock:
            try:
                yield self._live_cursor()
            except self._psycopg.Error as exc:
                raise StoreError(f"{self!r}: cannot {doing}: {exc}") from exc

    @contextmanager
    def _writing(self, doing: str) -> Iterator[Any]:
        """:meth:`_cursor` in a write transaction."""
        with self._cursor(doing) as cursor, sql.Transaction(cursor, POSTGRES.begin_write):
            yield cursor

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        found = self._load(instance_id)
        return None if found is None else found[0]

    def _load(self, instance_id: str, /) -> tuple[dict[str, Any], bool] | None:
        """The snapshot, and whether its checksum vouched for it (``statewright._snapshot``'s
        trust rule); None when the instance is not stored."""
        where = f"postgresql {instance_id!r:.80}"
        with self._cursor(f"load {instance_id!r:.80}") as cursor:
            found = sql.read(cursor, POSTGRES, POSTGRES.select_head, instance_id, where)
            if found is not None:
                self._learn(instance_id, found.head)
        if found is None:
            return None
        return sql.snapshot_of(found, where), found.verified

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        return self._save(sql_save.Write.whole(instance_id, snapshot, expected_revision))

    def save_update(
        self, instance_id: str, update: SnapshotUpdate, expected_revision: int, /
    ) -> int:
        """Update the head row and its records (see :class:`SnapshotUpdate`)."""
        return self._save(sql_save.Write.update(instance_id, update, expected_revision))

    def _save(self, write: sql_save.Write) -> int:
        instance_id = write.instance_id
        with self._lock:  # no context manager of its own: this runs on every save
            known = self._heads.pop(instance_id, None)  # learnt again once written
            try:
                cursor = self._live_cursor()
                head = sql_save.save(cursor, POSTGRES, write, known, f"postgresql {instance_id!r}")
            except self._psycopg.Error as exc:
                raise StoreError(f"{self!r}: cannot save {instance_id!r}: {exc}") from exc
            self._learn(instance_id, head)
            self._leased.discard(instance_id)  # the save ended the lease
        return write.revision

    def _learn(self, instance_id: str, head: sql.Head | None) -> None:
        """Remember ``head`` for ``instance_id`` (None: forget it; caller holds the lock)."""
        if head is None:
            self._heads.pop(instance_id, None)
            return
        if len(self._heads) >= 4096:
            self._heads.clear()
        self._heads[instance_id] = head

    def delete(self, instance_id: str, /) -> bool:
        with self._writing(f"delete {instance_id!r}") as cursor:
            self._heads.pop(instance_id, None)
            self._leased.discard(instance_id)
            return sql.delete(cursor, POSTGRES, instance_id)

    def list_ids(self) -> list[str]:
        with self._cursor("list instances") as cursor:
            rows = cursor.execute(POSTGRES.list_ids).fetchall()
        return [str(row[0]) for row in rows]

    def claim_due(self, now: float, limit: int, lease_seconds: float) -> list[str]:
        """Instances with a timer due at ``now``, earliest first, leased to the caller for
        ``lease_seconds``. ``FOR UPDATE SKIP LOCKED``: rows another worker is claiming (or a
        save is updating) right now are skipped, not waited for."""
        with self._cursor("claim due timers") as cursor:
            claimed = sql.claim_due(cursor, POSTGRES, now, limit, lease_seconds)
            self._leased.update(claimed)
            return claimed

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id`` (see :meth:`claim_due`): nothing to write
        when this store object saved the instance since (the save ended it)."""
        with self._cursor(f"release {instance_id!r}") as cursor:
            if instance_id in self._leased:
                cursor.execute(POSTGRES.release, (instance_id,))
                self._leased.discard(instance_id)

    def __repr__(self) -> str:
        return f"PostgresStore('{shown_url(self.url)}')"


def psycopg_module() -> Any:
    """psycopg 3, imported on first use (an optional extra): a StoreError saying how to install
    it when it is not there."""
    try:
        import psycopg
    except ImportError as exc:
        raise StoreError(
            "the PostgreSQL store needs psycopg 3: pip install 'statewright[postgres]'"
        ) from exc
    return psycopg


def shown_url(url: str) -> str:
    """``url`` as messages show it: never a password, only the user, the host (or socket
    folder) and the database."""
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    host = parts.hostname or parse_qs(parts.query).get("host", [""])[-1]
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{host}{parts.path}"

"""The embedded default store (``sqlite:///path``): SQLite, optimistic concurrency, history as rows.

SQLite ships with Python, survives process crashes (a transaction is either in the file or not)
and lets several processes share one database; WAL mode keeps readers from blocking the writer.

Tables: ``statewright_instances`` (one row per instance: the head, with its newest history
records, or a whole snapshot written by ``save`` or by an earlier release; its revision and
checksum; its earliest due timer and the lease of the worker that claimed it) and
``statewright_history`` (the older history records, one row each, keyed by instance and event
id, each with its checksum). A save is usually one statement, the compare-and-swap ``UPDATE``
of the head row (a lost race: :class:`Conflict`, nothing written); the layout and when records
move to rows are :mod:`statewright._stores.layout`'s, the statements and the steps the
PostgreSQL store's too (:mod:`statewright._stores.sql` over the ``SQLITE`` dialect). What is
SQLite's own is here: the connection, and bringing old databases up to date.

Every ``sqlite3`` failure is a :class:`StoreError`; wrong content (not JSON, a checksum that does
not match, a revision column that disagrees with the snapshot, missing history rows) is a
:class:`SnapshotError`. Older databases get what they lack on first open (the ``checksum``
column, the history table, the due-timer columns, their due times moved from the table that
held them before), in one transaction, which records the layout as the database's
``user_version``; a read-only one still loads.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from typing import Any, Final, Literal

from statewright._errors import Conflict, SnapshotError, StoreError
from statewright._stores import sql, sql_save
from statewright._stores.dialect import ADDED_COLUMNS, SQLITE
from statewright._stores.layout import LAYOUT
from statewright._stores.protocol import SnapshotUpdate

__all__ = ["SqliteStore"]

#: A head in a database not yet migrated from before checksums: its rows load unverified.
_SELECT_UNVERIFIED: Final = (
    "SELECT revision, snapshot, NULL FROM statewright_instances WHERE instance_id = ?"
)
#: How many instances' heads a store object remembers (see ``SqliteStore._heads``).
KNOWN_HEADS: Final = 4096


class SqliteStore:
    """Snapshots in a SQLite database file (created on first use).

    One connection per store object, shared by its threads under a lock; open one store per
    process (connections must not cross ``fork``). ``synchronous="FULL"`` (the default) makes
    every committed save survive power loss too; ``"NORMAL"`` is still crash-safe for process
    crashes and faster.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        synchronous: Literal["FULL", "NORMAL"] = "FULL",
    ) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        #: What this store object learnt of each instance's head row when it last loaded or
        #: saved it (``sql.Head``): while the revision is the same, a save need not read the
        #: row (bounded: forgetting costs one read).
        self._heads: dict[str, sql.Head] = {}
        #: Instances this store object claimed whose lease no save has ended since.
        self._leased: set[str] = set()
        try:
            self._db = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            #: Whether the database has everything this version writes (a read-only old one
            #: still loads; saving tries the migration again first).
            self._migrated = _migrate(self._db)
            self._select_head = SQLITE.select_head
            if not self._migrated and not _has_checksums(self._db):
                self._select_head = _SELECT_UNVERIFIED
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc

    @contextlib.contextmanager
    def _session(self, doing: str) -> Iterator[sqlite3.Cursor]:
        """A cursor, under the store's lock; sqlite3 errors become :class:`StoreError`."""
        with self._lock:
            try:
                yield self._db.cursor()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot {doing}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        found = self._load(instance_id)
        return None if found is None else found[0]

    def _load(self, instance_id: str, /) -> tuple[dict[str, Any], bool] | None:
        """The snapshot, and whether its checksum vouched for it (``statewright._snapshot``'s
        trust rule); None when the instance is not stored."""
        where = f"{self.path}: {instance_id!r:.80}"
        with self._lock:  # no _session: a timer driver loads once per timer it fires
            try:
                found = sql.read(self._db.cursor(), SQLITE, self._select_head, instance_id, where)
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot load {instance_id!r:.80}: {exc}") from exc
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
            try:
                if not self._migrated:
                    self._migrate_again()
                known = self._heads.get(instance_id)
                where = f"{self.path}: {instance_id!r}"
                head = sql_save.save(self._db.cursor(), SQLITE, write, known, where)
            except (Conflict, SnapshotError):
                self._heads.pop(instance_id, None)
                raise
            except sqlite3.Error as exc:
                self._heads.pop(instance_id, None)
                raise StoreError(f"{self.path}: cannot save {instance_id!r}: {exc}") from exc
            self._learn(instance_id, head)
            self._leased.discard(instance_id)  # the save ended the lease
        return write.revision

    def _migrate_again(self) -> None:
        """Bring the database up to date before a write (it could not be when opened)."""
        self._migrated = _migrate(self._db)
        if not self._migrated:
            raise StoreError(f"{self.path}: cannot add the tables this version needs")
        self._select_head = SQLITE.select_head

    def _learn(self, instance_id: str, head: sql.Head | None) -> None:
        """Remember ``head`` for ``instance_id`` (None: forget it; caller holds the lock)."""
        if head is None:
            self._heads.pop(instance_id, None)
            return
        if len(self._heads) >= KNOWN_HEADS:
            self._heads.clear()
        self._heads[instance_id] = head

    def delete(self, instance_id: str, /) -> bool:
        with (
            self._session(f"delete {instance_id!r}") as cursor,
            sql.Transaction(cursor, SQLITE.begin_write),
        ):
            deleted = sql.delete(cursor, SQLITE, instance_id, records=self._migrated)
            self._heads.pop(instance_id, None)
            self._leased.discard(instance_id)
        return deleted

    def list_ids(self) -> list[str]:
        with self._session("list instances") as cursor:
            rows = cursor.execute(SQLITE.list_ids).fetchall()
        return [str(r[0]) for r in rows]

    def claim_due(self, now: float, limit: int, lease_seconds: float) -> list[str]:
        """Instances with a timer due at ``now``, earliest first, leased to the caller for
        ``lease_seconds``: SQLite's write lock (``BEGIN IMMEDIATE``) makes the pick and the lease
        one step, so two workers never claim the same instance while a lease runs."""
        with self._session("claim due timers") as cursor:
            if not self._migrated:
                return []
            claimed = sql.claim_due(cursor, SQLITE, now, limit, lease_seconds)
            self._leased.update(claimed)
            return claimed

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id`` (see :meth:`claim_due`): nothing to write
        when this store object saved the instance since (the save ended it)."""
        with self._lock:  # no _session: a timer driver releases once per timer it fires
            if self._migrated and instance_id in self._leased:
                try:
                    self._db.cursor().execute(SQLITE.release, (instance_id,))
                except sqlite3.Error as exc:
                    raise StoreError(f"{self.path}: cannot release {instance_id!r}: {exc}") from exc
                self._leased.discard(instance_id)

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"


def _migrate(db: sqlite3.Connection) -> bool:
    """Create or complete the tables (``SQLITE.schema``) up to layout 2; False when the
    database cannot be written (read-only). ``sqlite3.Error`` escapes only from the first
    statement (a file that is no database).

    ``statewright_instances`` keeps the layout of statewright 0.2, so that 0.2 can still read
    what it wrote; later versions add tables of their own and nullable columns (0.2's later
    releases the ``checksum``, layout 2 the due-timer columns, whose values it moves in from
    the table that held them), in one ``BEGIN IMMEDIATE`` transaction (one process migrates,
    the others then find it done), which sets the database's ``user_version`` to the layout.
    """
    instances, *added = SQLITE.schema
    db.execute(instances)  # a no-op on a read-only database that has it
    if db.execute("PRAGMA user_version").fetchone()[0] >= LAYOUT:
        return True
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        return False
    try:
        columns = _columns(db)
        if "checksum" not in columns:
            db.execute("ALTER TABLE statewright_instances ADD COLUMN checksum TEXT")
        for column in ADDED_COLUMNS:
            if column not in columns:
                db.execute(SQLITE.add_columns[column])
        for statement in (*added, SQLITE.index, *SQLITE.move_due):
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {LAYOUT}")
        db.execute("COMMIT")
    except sqlite3.Error:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        return False
    return True


def _columns(db: sqlite3.Connection) -> set[str]:
    return {row[1] for row in db.execute("PRAGMA table_info(statewright_instances)")}


def _has_checksums(db: sqlite3.Connection) -> bool:
    return "checksum" in _columns(db)

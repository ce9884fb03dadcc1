"""The embedded default store (``sqlite:///path``): SQLite, optimistic concurrency, history as rows.

SQLite ships with Python, survives process crashes (a transaction is either in the file or not)
and lets several processes share one database; WAL mode keeps readers from blocking the writer.

Tables: ``statewright_instances`` (one row per instance: the head, or a whole snapshot written by
``save`` or by an earlier release, its revision and checksum; the layout of 0.2.0),
``statewright_history`` (one row per history record, keyed by instance and event id, each with
its checksum) and ``statewright_due`` (the earliest due timer of each instance that has one, and
the lease of the worker that claimed it). A save is one ``BEGIN IMMEDIATE`` transaction (the
database's write lock): the revision is checked (a lost race: :class:`Conflict`, nothing
written), the head row written, the new records inserted, and once every ``PRUNE_EVERY`` events
the records that fell out of the window are deleted. The statements and the steps are the
PostgreSQL store's too (:mod:`statewright._stores.sql` over the ``SQLITE`` dialect); what is
SQLite's own is here: the connection, bringing old databases up to date, and where an
instance's record rows end (asked of the history table, unless this store object wrote them).

Every ``sqlite3`` failure is a :class:`StoreError`; wrong content (not JSON, a checksum that does
not match, a revision column that disagrees with the snapshot, missing history rows) is a
:class:`SnapshotError`. Older databases get what they lack on first open (the ``checksum``
column, the two new tables), in one transaction; a read-only one still loads.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, Literal

from statewright._errors import StoreError
from statewright._stores import sql
from statewright._stores.dialect import SQLITE
from statewright._stores.protocol import SnapshotUpdate

__all__ = ["SqliteStore"]

#: Where an instance's record rows end (SQLite's instance table has no column saying so).
_RECORDS_END: Final = "SELECT max(event_id) FROM statewright_history WHERE instance_id = ?"
#: A head in a database not yet migrated from before checksums: its rows load unverified.
_SELECT_UNVERIFIED: Final = (
    "SELECT revision, snapshot, NULL FROM statewright_instances WHERE instance_id = ?"
)


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
        #: ``instance id -> (revision, newest event id of its rows)`` as this store object last
        #: loaded or saved it: while the revision is the same, the rows end there, so a save
        #: need not ask (what ``load`` and ``save_update`` learn; bounded).
        self._ends: dict[str, tuple[int, int]] = {}
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
        where = f"{self.path}: {instance_id!r:.80}"
        with self._session(f"load {instance_id!r:.80}") as cursor:
            found = sql.read(cursor, SQLITE, self._select_head, instance_id, where)
        if found is None:
            return None
        snapshot = sql.snapshot_of(*found, where)
        if found[1] is not None:  # a head: its rows end at its total_transitions
            self._learn(instance_id, snapshot["revision"], snapshot["total_transitions"])
        return snapshot

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        return self._save(sql.Write.whole(instance_id, snapshot, expected_revision))

    def save_update(
        self, instance_id: str, update: SnapshotUpdate, expected_revision: int, /
    ) -> int:
        """Update the head row and insert the new records (see :class:`SnapshotUpdate`)."""
        return self._save(sql.Write.update(instance_id, update, expected_revision))

    def _save(self, write: sql.Write) -> int:
        instance_id = write.instance_id
        with self._lock:  # no context manager of its own: this runs on every save
            try:
                if not self._migrated:
                    self._migrate_again()
                cursor = self._db.cursor()
                with sql.Transaction(cursor, SQLITE.begin_write):
                    sql.save(
                        cursor, SQLITE, write, f"{self.path}: {instance_id!r}", self._records_end
                    )
                    self._ends.pop(instance_id, None)  # learnt again once committed
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot save {instance_id!r}: {exc}") from exc
        total = write.total_transitions
        if write.split and total is not None:
            self._learn(instance_id, write.revision, total)
        return write.revision

    def _migrate_again(self) -> None:
        """Bring the database up to date before a write (it could not be when opened)."""
        self._migrated = _migrate(self._db)
        if not self._migrated:
            raise StoreError(f"{self.path}: cannot add the tables this version needs")
        self._select_head = SQLITE.select_head

    def _records_end(
        self, cursor: sql.Cursor, old: Sequence[Any] | None, write: sql.Write
    ) -> int | None:
        if self._ends.get(write.instance_id) == (write.expected_revision, write.since):
            return write.since  # this store object wrote or read them at that revision
        end: int | None = cursor.execute(_RECORDS_END, (write.instance_id,)).fetchone()[0]
        return end

    def _learn(self, instance_id: str, revision: int, total: int) -> None:
        if len(self._ends) >= 4096:
            self._ends.clear()
        self._ends[instance_id] = (revision, total)

    def delete(self, instance_id: str, /) -> bool:
        with (
            self._session(f"delete {instance_id!r}") as cursor,
            sql.Transaction(cursor, SQLITE.begin_write),
        ):
            deleted = sql.delete(cursor, SQLITE, instance_id, records=self._migrated)
            self._ends.pop(instance_id, None)
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
            return sql.claim_due(cursor, SQLITE, now, limit, lease_seconds)

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id`` (see :meth:`claim_due`)."""
        with self._session(f"release {instance_id!r}") as cursor:
            if self._migrated:
                cursor.execute(SQLITE.release, (instance_id,))

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"


def _migrate(db: sqlite3.Connection) -> bool:
    """Create or complete the tables (``SQLITE.schema``); False when the database cannot be
    written (read-only). ``sqlite3.Error`` escapes only from the first statement (a file that is
    no database).

    ``statewright_instances`` keeps the layout of statewright 0.2, so that 0.2 can still read
    what it wrote; later versions add tables of their own, and the ``checksum`` column that 0.2's
    later releases added, in one ``BEGIN IMMEDIATE`` transaction (one process migrates, the
    others then find it done).
    """
    instances, *added = SQLITE.schema
    db.execute(instances)  # a no-op on a read-only database that has it
    if _has_checksums(db) and _has_added_tables(db):
        return True
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        return False
    try:
        if not _has_checksums(db):
            db.execute("ALTER TABLE statewright_instances ADD COLUMN checksum TEXT")
        for statement in added:
            db.execute(statement)
        db.execute("COMMIT")
    except sqlite3.Error:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        return False
    return True


def _has_checksums(db: sqlite3.Connection) -> bool:
    rows = db.execute("PRAGMA table_info(statewright_instances)").fetchall()
    return any(row[1] == "checksum" for row in rows)


def _has_added_tables(db: sqlite3.Connection) -> bool:
    tables = db.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
        "('statewright_history', 'statewright_due')"
    ).fetchone()
    return bool(tables[0] == 2)

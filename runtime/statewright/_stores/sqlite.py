"""The embedded default store (``sqlite:///path``): SQLite, optimistic concurrency, history as rows.

SQLite ships with Python, survives process crashes (a transaction is either in the file or not)
and lets several processes share one database; WAL mode keeps readers from blocking the writer.

Tables: ``statewright_instances`` (one row per instance: the head, or a whole snapshot written by
``save`` or by an earlier release, its revision and checksum; the layout of 0.2.0),
``statewright_history`` (one row per history record, keyed by instance and event id, each with
its checksum) and ``statewright_due`` (the earliest due timer of each instance that has one, and
the lease of the worker that claimed it). A save is one transaction: the head row is updated
``WHERE instance_id = ? AND revision = ?`` (a lost race matches no row: :class:`Conflict`,
nothing written), the new records are inserted, and once every ``PRUNE_EVERY`` events the
records that fell out of the window are deleted.

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
import time
from collections.abc import Mapping
from typing import Any, Literal

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
from statewright._stores.sqlite_schema import checksum_column, migrate

__all__ = ["SqliteStore"]


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
            self._migrated = migrate(self._db)
            self._checksum_column = "checksum" if self._migrated else checksum_column(self._db)
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        where = f"{self.path}: {instance_id!r:.80}"
        with self._lock:
            try:
                self._db.execute("BEGIN")  # the head and its records from one snapshot
                try:
                    row = self._db.execute(
                        f"SELECT revision, snapshot, {self._checksum_column} "
                        "FROM statewright_instances WHERE instance_id = ?",
                        (instance_id,),
                    ).fetchone()
                    if row is None:
                        return None
                    data = head_of_row(row, where)
                    stored = data.pop(STORED_HISTORY_KEY, None)
                    if stored is None:
                        return data
                    retained, start, rows = retained_of(stored, data, where), 0, []
                    if retained:
                        start = data["total_transitions"] - retained + 1
                        rows = self._db.execute(
                            "SELECT event_id, record, checksum FROM statewright_history "
                            "WHERE instance_id = ? AND event_id >= ? AND event_id <= ? "
                            "ORDER BY event_id",
                            (instance_id, start, data["total_transitions"]),
                        ).fetchall()
                finally:
                    self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"{where}: cannot load: {exc}") from exc
        records = [
            stored_record(_text(text, where), f"{where} record {event_id}", start + i, digest)
            for i, (event_id, text, digest) in enumerate(rows)
        ]
        snapshot = assemble(data, records, retained, where)
        self._learn(instance_id, snapshot["revision"], snapshot["total_transitions"])
        return snapshot

    def _learn(self, instance_id: str, revision: int, total: int) -> None:
        if len(self._ends) >= 4096:
            self._ends.clear()
        self._ends[instance_id] = (revision, total)

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        revision = new_revision(instance_id, expected_revision)
        text = encode_snapshot(snapshot, revision)
        machine = str(snapshot.get("machine", ""))
        due = earliest_due(snapshot)
        with self._lock, self._transaction(instance_id):
            self._write_head(instance_id, machine, revision, text, expected_revision)
            self._db.execute(
                "DELETE FROM statewright_history WHERE instance_id = ?", (instance_id,)
            )
            self._set_due(instance_id, due, snapshot)
            self._ends.pop(instance_id, None)
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
        machine = str(head.get("machine", ""))
        with self._lock, self._transaction(instance_id):
            problem = None
            if update.since is None or not expected_revision:
                self._db.execute(
                    "DELETE FROM statewright_history WHERE instance_id = ?", (instance_id,)
                )
            elif len(rows) < retained and self._ends.get(instance_id) != (
                expected_revision,
                update.since,
            ):  # older records must be there: where they end is checked
                last = self._db.execute(
                    "SELECT max(event_id) FROM statewright_history WHERE instance_id = ?",
                    (instance_id,),
                ).fetchone()[0]
                if last is None:
                    older = self._whole_records(instance_id, total - retained + 1, update.since)
                    if older is None:
                        problem = "its history rows are missing"
                    else:
                        rows[:0] = older
                elif last != update.since:
                    problem = f"its stored history ends at event {last}, not at {update.since}"
            # The revision first: a writer that lost the race gets Conflict, whatever else.
            self._write_head(instance_id, machine, revision, text, expected_revision)
            if problem is not None:
                raise SnapshotError(
                    f"{self.path}: {instance_id!r}: {problem}: load the instance again"
                )
            self._db.executemany(
                "INSERT OR REPLACE INTO statewright_history VALUES (?, ?, ?, ?)", rows
            )
            below = prune_below(total - len(records), total, retained)
            if below is not None:
                self._db.execute(
                    "DELETE FROM statewright_history WHERE instance_id = ? AND event_id < ?",
                    (instance_id, below),
                )
            self._set_due(instance_id, due, head)
            self._ends.pop(instance_id, None)  # learnt again once committed
        self._learn(instance_id, revision, total)
        return revision

    @contextlib.contextmanager
    def _transaction(self, instance_id: str) -> Any:
        """One write transaction; every sqlite3 failure in it is a :class:`StoreError`."""
        try:
            if not self._migrated:
                self._migrated = migrate(self._db)
                if self._migrated:
                    self._checksum_column = "checksum"
                else:
                    raise StoreError(f"{self.path}: cannot add the tables this version needs")
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot save {instance_id!r}: {exc}") from exc
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"{self.path}: cannot save {instance_id!r}: {exc}") from exc
            raise

    def _write_head(
        self, instance_id: str, machine: str, revision: int, text: str, expected_revision: int
    ) -> None:
        """Write the head row at ``revision``; :class:`Conflict` when the stored one is not
        ``expected_revision`` (nothing written: the caller's transaction is rolled back)."""
        digest = checksum(text)
        if expected_revision == 0:
            try:
                self._db.execute(
                    "INSERT INTO statewright_instances (instance_id, machine, revision, "
                    "snapshot, updated_at, checksum) VALUES (?, ?, ?, ?, ?, ?)",
                    (instance_id, machine, revision, text, time.time(), digest),
                )
            except sqlite3.IntegrityError:
                raise Conflict(
                    instance_id, expected_revision, self._revision(instance_id)
                ) from None
            return
        cursor = self._db.execute(
            "UPDATE statewright_instances SET revision = ?, snapshot = ?, machine = ?, "
            "updated_at = ?, checksum = ? WHERE instance_id = ? AND revision = ?",
            (revision, text, machine, time.time(), digest, instance_id, expected_revision),
        )
        if cursor.rowcount != 1:
            raise Conflict(instance_id, expected_revision, self._revision(instance_id))

    def _whole_records(
        self, instance_id: str, first: int, since: int
    ) -> list[tuple[str, int, str, str]] | None:
        """The records still kept of the whole snapshot this save replaces (an instance saved by
        ``save`` or by an earlier release): they become rows now, once. None when the stored
        row is a head (its rows are missing)."""
        where = f"{self.path}: {instance_id!r:.80}"
        row = self._db.execute(
            f"SELECT revision, snapshot, {self._checksum_column} FROM statewright_instances "
            "WHERE instance_id = ?",
            (instance_id,),
        ).fetchone()
        if row is None:  # the update below reports the Conflict
            return []
        old = head_of_row(row, where)
        if STORED_HISTORY_KEY in old:
            return None
        kept = whole_history(old, where)
        return record_rows(instance_id, (r for r in kept if first <= r["event_id"] <= since))

    def _set_due(self, instance_id: str, due: float | None, head: Mapping[str, Any]) -> None:
        if due is not None:
            self._db.execute(
                "INSERT INTO statewright_due (instance_id, next_due) VALUES (?, ?) "
                "ON CONFLICT (instance_id) DO UPDATE SET next_due = excluded.next_due",
                (instance_id, due),
            )
        elif "chart" in head:  # a flat machine never has a timer: spare it the statement
            self._db.execute("DELETE FROM statewright_due WHERE instance_id = ?", (instance_id,))

    def _revision(self, instance_id: str) -> int | None:
        row = self._db.execute(
            "SELECT revision FROM statewright_instances WHERE instance_id = ?", (instance_id,)
        ).fetchone()
        if row is None:
            return None
        if type(row[0]) is not int or not 1 <= row[0] <= MAX_REVISION:
            raise SnapshotError(f"{self.path}: {instance_id!r} has revision {row[0]!r:.40}")
        return int(row[0])

    def delete(self, instance_id: str, /) -> bool:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    cursor = self._db.execute(
                        "DELETE FROM statewright_instances WHERE instance_id = ?", (instance_id,)
                    )
                    if self._migrated:
                        for table in ("statewright_history", "statewright_due"):
                            self._db.execute(
                                f"DELETE FROM {table} WHERE instance_id = ?", (instance_id,)
                            )
                    self._db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot delete {instance_id!r}: {exc}") from exc
            self._ends.pop(instance_id, None)
            return cursor.rowcount == 1

    def list_ids(self) -> list[str]:
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT instance_id FROM statewright_instances ORDER BY instance_id"
                ).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot list instances: {exc}") from exc
        return [str(r[0]) for r in rows]

    def claim_due(self, now: float, limit: int, lease_seconds: float) -> list[str]:
        """Instances with a timer due at ``now``, earliest first, leased to the caller for
        ``lease_seconds``: SQLite's write lock (``BEGIN IMMEDIATE``) makes the pick and the lease
        one step, so two workers never claim the same instance while a lease runs."""
        with self._lock:
            try:
                if not self._migrated:
                    return []
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    rows = self._db.execute(
                        "SELECT instance_id FROM statewright_due WHERE next_due <= ? "
                        "AND (lease_until IS NULL OR lease_until <= ?) "
                        "ORDER BY next_due, instance_id LIMIT ?",
                        (now, now, max(0, limit)),
                    ).fetchall()
                    self._db.executemany(
                        "UPDATE statewright_due SET lease_until = ? WHERE instance_id = ?",
                        [(now + lease_seconds, row[0]) for row in rows],
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot claim due timers: {exc}") from exc
        return [str(row[0]) for row in rows]

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id`` (see :meth:`claim_due`)."""
        with self._lock:
            try:
                if self._migrated:
                    self._db.execute(
                        "UPDATE statewright_due SET lease_until = NULL WHERE instance_id = ?",
                        (instance_id,),
                    )
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot release {instance_id!r}: {exc}") from exc

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"


def _text(value: object, where: str) -> str | bytes:
    if not isinstance(value, (str, bytes)):
        raise SnapshotError(f"{where}: a text column holds {type(value).__name__}")
    return value

"""The embedded default store: one SQLite row per machine instance, optimistic concurrency.

SQLite ships with Python, survives process crashes (a transaction is either in the file or not)
and lets several processes share one database. WAL mode keeps readers from blocking the writer.
Each save is ``UPDATE ... WHERE instance_id = ? AND revision = ?`` (or an INSERT for revision 0):
if another writer got there first, no row matches, nothing is written and the loser gets
:class:`Conflict`, so no update is ever lost silently.

Every ``sqlite3`` failure is a :class:`StoreError`; a row whose content is wrong (not JSON, a
checksum that does not match, a revision column that disagrees with the snapshot) is a
:class:`SnapshotError`. Databases created before checksums get the ``checksum`` column on first
open (``ALTER TABLE``); their rows load unverified until they are saved again.
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
from statewright._stores import (
    MAX_REVISION,
    checksum,
    encode_snapshot,
    new_revision,
    stored_snapshot,
)

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS statewright_instances (
    instance_id TEXT PRIMARY KEY,
    machine TEXT NOT NULL,
    revision INTEGER NOT NULL,
    snapshot TEXT NOT NULL,
    updated_at REAL NOT NULL,
    checksum TEXT
)
"""


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
        try:
            self._db = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute(_SCHEMA)
            #: Whether the table has its checksum column (added on first open of an old database;
            #: a read-only one still loads, and ``save`` tries again before writing).
            self._checksums = self._add_checksum_column()
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc

    def _add_checksum_column(self) -> bool:
        def has_column() -> bool:
            rows = self._db.execute("PRAGMA table_info(statewright_instances)").fetchall()
            return any(row[1] == "checksum" for row in rows)

        if has_column():
            return True
        try:
            self._db.execute("BEGIN IMMEDIATE")  # one process migrates, the others then see it
        except sqlite3.Error:
            return False
        try:
            if not has_column():
                self._db.execute("ALTER TABLE statewright_instances ADD COLUMN checksum TEXT")
            self._db.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            return False
        return True

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
                column = ", checksum" if self._checksums else ""
                row = self._db.execute(
                    f"SELECT revision, snapshot{column} FROM statewright_instances "
                    "WHERE instance_id = ?",
                    (instance_id,),
                ).fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"{where}: cannot load: {exc}") from exc
        if row is None:
            return None
        revision, text = row[0], row[1]
        stored_checksum = row[2] if self._checksums else None
        if not isinstance(text, (str, bytes)):
            raise SnapshotError(f"{where}: the snapshot column holds {type(text).__name__}")
        if stored_checksum is not None and type(stored_checksum) is not str:
            raise SnapshotError(f"{where}: the checksum column holds {stored_checksum!r:.40}")
        data = stored_snapshot(text, where, stored_checksum)
        if revision != data["revision"] or type(revision) is not int:
            raise SnapshotError(
                f"{where}: the revision column holds {revision!r:.40} but the snapshot says "
                f"{data['revision']}"
            )
        return data

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        revision = new_revision(instance_id, expected_revision)
        text = encode_snapshot(snapshot, revision)
        digest = checksum(text)
        machine = str(snapshot.get("machine", ""))
        with self._lock:
            try:
                if not self._checksums:
                    self._checksums = self._add_checksum_column()
                    if not self._checksums:
                        raise StoreError(f"{self.path}: cannot add the checksum column")
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
                    return revision
                cursor = self._db.execute(
                    "UPDATE statewright_instances SET revision = ?, snapshot = ?, machine = ?, "
                    "updated_at = ?, checksum = ? WHERE instance_id = ? AND revision = ?",
                    (revision, text, machine, time.time(), digest, instance_id, expected_revision),
                )
                if cursor.rowcount != 1:
                    raise Conflict(instance_id, expected_revision, self._revision(instance_id))
                return revision
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot save {instance_id!r}: {exc}") from exc

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
                cursor = self._db.execute(
                    "DELETE FROM statewright_instances WHERE instance_id = ?", (instance_id,)
                )
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot delete {instance_id!r}: {exc}") from exc
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

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

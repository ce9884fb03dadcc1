"""The embedded default store: one SQLite row per machine instance, optimistic concurrency.

SQLite ships with Python, survives process crashes (a transaction is either in the file or not)
and lets several processes share one database. WAL mode keeps readers from blocking the writer.
Each save is ``UPDATE ... WHERE instance_id = ? AND revision = ?`` (or an INSERT for revision 0):
if another writer got there first, no row matches, nothing is written and the loser gets
:class:`Conflict`, so no update is ever lost silently.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from typing import Any, Literal

from statewright._errors import Conflict, SnapshotError, StoreError
from statewright._stores import check_instance_id

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS statewright_instances (
    instance_id TEXT PRIMARY KEY,
    machine TEXT NOT NULL,
    revision INTEGER NOT NULL,
    snapshot TEXT NOT NULL,
    updated_at REAL NOT NULL
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
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT revision, snapshot FROM statewright_instances WHERE instance_id = ?",
                    (instance_id,),
                ).fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot load {instance_id!r}: {exc}") from exc
        if row is None:
            return None
        revision, text = row
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SnapshotError(
                f"{self.path}: stored snapshot {instance_id!r} is corrupted"
            ) from exc
        if not isinstance(data, dict):
            raise SnapshotError(f"{self.path}: stored snapshot {instance_id!r} is not an object")
        data["revision"] = int(revision)
        return data

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        check_instance_id(instance_id)
        revision = expected_revision + 1
        data = dict(snapshot)
        data["revision"] = revision
        text = json.dumps(data, separators=(",", ":"), sort_keys=True)
        machine = str(data.get("machine", ""))
        with self._lock:
            try:
                if expected_revision == 0:
                    try:
                        self._db.execute(
                            "INSERT INTO statewright_instances "
                            "(instance_id, machine, revision, snapshot, updated_at) "
                            "VALUES (?, ?, ?, ?, ?)",
                            (instance_id, machine, revision, text, time.time()),
                        )
                    except sqlite3.IntegrityError:
                        raise Conflict(
                            instance_id, expected_revision, self._revision(instance_id)
                        ) from None
                    return revision
                cursor = self._db.execute(
                    "UPDATE statewright_instances SET revision = ?, snapshot = ?, machine = ?, "
                    "updated_at = ? WHERE instance_id = ? AND revision = ?",
                    (revision, text, machine, time.time(), instance_id, expected_revision),
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
        return None if row is None else int(row[0])

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
            rows = self._db.execute(
                "SELECT instance_id FROM statewright_instances ORDER BY instance_id"
            ).fetchall()
        return [str(r[0]) for r in rows]

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

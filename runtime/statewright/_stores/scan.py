"""Every stored instance of one machine, read-only and a batch at a time: what ``statewright
check-store`` reads before a deploy.

Such a check reads the production store, so it never writes it and never holds all of it:
:func:`scan_store` opens the store read-only where the backend allows it (SQLite's ``mode=ro``
with ``query_only``, a PostgreSQL session whose transactions are all read only; a JSON store's
files are read, never locked, swept or created) and walks it by id ranges, ``batch`` instances
at a time (``WHERE instance_id > <the last one> ORDER BY instance_id LIMIT <batch>``). A batch is
read in one read transaction and its instances are handed out one at a time, each with its
history records, so memory holds one batch's heads and one instance's records whatever the
store's size. Each instance comes as the store's ``load`` would give it (its head and records
assembled and checked against their checksums), or as the :class:`SnapshotError` saying what is
wrong with what is stored. Only the named machine's instances are read; the others are counted.

Instances saved while a scan runs are seen as of their batch's transaction: one created behind
the scan's position is not seen, one saved ahead of it is seen as saved.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, NamedTuple

from statewright._errors import SnapshotError, StoreError
from statewright._stores import sql
from statewright._stores.codec import stored_snapshot
from statewright._stores.dialect import POSTGRES, SQLITE, Dialect
from statewright._stores.protocol import is_instance_id
from statewright._stores.url import store_location

__all__ = ["DEFAULT_BATCH", "StoreScan", "StoredInstance", "scan_store"]

#: Instances per batch (and per read transaction) unless told otherwise.
DEFAULT_BATCH: Final = 500


class StoredInstance(NamedTuple):
    """One stored instance: its snapshot as stored, or what is wrong with it."""

    instance_id: str
    snapshot: dict[str, Any] | None
    error: SnapshotError | None


class StoreScan:
    """An open, read-only scan; iterate for each instance of the machine, in id order; close
    when done (or use ``with``). ``total`` is how many instances it reads (a JSON store's files
    of every machine); ``others`` the count of other machines' instances, by name (complete
    once the scan is). Any failure of the store itself is a :class:`StoreError`."""

    total: int
    others: dict[str, int]

    def __iter__(self) -> Iterator[StoredInstance]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the connection (nothing was written)."""

    def __enter__(self) -> StoreScan:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def scan_store(url: str, machine: str, batch: int = DEFAULT_BATCH) -> StoreScan:
    """A read-only scan of the instances of ``machine`` in the store ``url`` names (see the
    module); :class:`StoreError` when the URL names no store that can be read so (``memory://``
    holds nothing another process could read) or it cannot be opened."""
    if type(batch) is not int or batch < 1:
        raise ValueError(f"batch must be a positive integer, not {batch!r}")
    backend, place, _ = store_location(url)
    if backend == "file":
        return _FileScan(Path(place), machine, batch)
    if backend == "sqlite":
        return _SqlScan(_SqliteReader(place), machine, batch)
    if backend == "postgresql":
        return _SqlScan(_PostgresReader(place), machine, batch)
    raise StoreError(f"{url!r}: a memory store lives in its own process; nothing to scan")


class _Reader:
    """A read-only database connection (``_db``): its dialect, which tables it has, its
    driver's errors (``error_type``) as :class:`StoreError`."""

    dialect: Dialect
    where: str
    has_history: bool
    select_heads: str
    error_type: type[Exception]
    _db: Any

    def cursor(self) -> Any:
        return self._db.cursor()

    @contextlib.contextmanager
    def errors(self, doing: str) -> Iterator[None]:
        try:
            yield
        except self.error_type as exc:
            raise StoreError(f"{self.where}: cannot {doing}: {exc}") from exc

    def close(self) -> None:
        self._db.close()

    @contextlib.contextmanager
    def _closed_on_error(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            self.close()
            raise


#: Each instance's head, a batch at a time (``machine``, the last id read, the batch's size).
_HEADS: Final = (
    "SELECT instance_id, revision, snapshot, {checksum} FROM statewright_instances "
    "WHERE machine = ? AND instance_id > ? ORDER BY instance_id LIMIT ?"
)
_COUNTS: Final = "SELECT machine, count(*) FROM statewright_instances GROUP BY machine"


class _SqliteReader(_Reader):
    def __init__(self, path: str) -> None:
        import sqlite3
        from urllib.parse import quote

        self.error_type, self.dialect, self.where = sqlite3.Error, SQLITE, path
        if not os.path.isfile(path):
            raise StoreError(f"{path}: no such SQLite database")
        uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
        with self.errors("open the database read-only"):
            self._db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)
        with self._closed_on_error(), self.errors("open the database read-only"):
            self._db.execute("PRAGMA query_only = ON")
            tables = {
                row[0]
                for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            columns = {
                row[1] for row in self._db.execute("PRAGMA table_info(statewright_instances)")
            }
        if "statewright_instances" not in tables:
            self._db.close()
            raise StoreError(f"{path}: no statewright_instances table: not a statewright store")
        self.has_history = "statewright_history" in tables
        checksum = "checksum" if "checksum" in columns else "NULL"  # before checksums: unverified
        self.select_heads = _HEADS.format(checksum=checksum)


class _PostgresReader(_Reader):
    def __init__(self, url: str) -> None:
        from statewright._stores.postgres import psycopg_module, shown_url

        psycopg = psycopg_module()

        self.error_type, self.dialect, self.where = psycopg.Error, POSTGRES, shown_url(url)
        with self.errors("connect"):
            self._db = psycopg.connect(url, autocommit=True)
        with self._closed_on_error(), self.errors("connect"):
            self._db.execute("SET default_transaction_read_only = on")
            found = self._db.execute(
                "SELECT to_regclass('statewright_instances') IS NOT NULL, "
                "to_regclass('statewright_history') IS NOT NULL"
            ).fetchone() or (False, False)
        if not found[0]:
            self._db.close()
            raise StoreError(
                f"{self.where}: no statewright_instances table: not a statewright store"
            )
        self.has_history = bool(found[1])
        self.select_heads = _HEADS.format(checksum="checksum").replace("?", POSTGRES.placeholder)


class _SqlScan(StoreScan):
    """A SQL store's instances, a batch per read transaction (see the module)."""

    def __init__(self, reader: _Reader, machine: str, batch: int) -> None:
        self._reader, self._machine, self._batch = reader, machine, batch
        try:
            with reader.errors("count the instances"):
                counts = dict(reader.cursor().execute(_COUNTS).fetchall())
        except BaseException:
            reader.close()
            raise
        self.total = int(counts.pop(machine, 0))
        self.others = {str(name): int(n) for name, n in sorted(counts.items())}

    def __iter__(self) -> Iterator[StoredInstance]:
        reader, dialect = self._reader, self._reader.dialect
        last = ""
        while True:
            cursor = reader.cursor()
            with reader.errors("read the instances"), sql.Transaction(cursor, dialect.begin_read):
                heads = cursor.execute(
                    reader.select_heads, (self._machine, last, self._batch)
                ).fetchall()
                for instance_id, *row in heads:
                    yield self._instance(cursor, str(instance_id), row)
            if len(heads) < self._batch:
                return
            last = str(heads[-1][0])

    def _instance(self, cursor: Any, instance_id: str, row: list[Any]) -> StoredInstance:
        where = f"{self._reader.where}: {instance_id!r:.80}"
        try:
            found = sql.Found(row, where)
            span = found.missing()
            if span is not None and self._reader.has_history:
                found.rows = cursor.execute(
                    self._reader.dialect.select_records, (instance_id, *span)
                ).fetchall()
            return StoredInstance(instance_id, sql.snapshot_of(found, where), None)
        except SnapshotError as error:
            return StoredInstance(instance_id, None, error)

    def close(self) -> None:
        self._reader.close()


class _FileScan(StoreScan):
    """A JSON store's files, read (never locked: a file is replaced whole, so each read sees a
    complete snapshot), ``batch`` names at a time. Which machine a file holds is known once it
    is read: ``total`` counts every file, and ``others`` is complete once the scan is."""

    def __init__(self, directory: Path, machine: str, batch: int) -> None:
        if not directory.is_dir():
            raise StoreError(f"{directory}: no such store directory")
        self._directory, self._machine, self._batch = directory, machine, batch
        try:
            names = os.listdir(directory)
        except OSError as exc:
            raise StoreError(f"cannot list {directory}: {exc}") from exc
        self._ids = sorted(
            name[:-5] for name in names if name.endswith(".json") and is_instance_id(name[:-5])
        )
        self.total, self.others = len(self._ids), {}

    def __iter__(self) -> Iterator[StoredInstance]:
        for start in range(0, len(self._ids), self._batch):
            for instance_id in self._ids[start : start + self._batch]:
                found = self._read(instance_id)
                if found is not None:
                    yield found

    def _read(self, instance_id: str) -> StoredInstance | None:
        """The instance, None when it is gone or another machine's (counted)."""
        path = self._directory / f"{instance_id}.json"
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return None  # deleted since it was listed
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc}") from exc
        try:
            data = stored_snapshot(text, str(path))
        except SnapshotError as error:  # whose it is cannot be told: reported
            return StoredInstance(instance_id, None, error)
        name = data.get("machine")
        if name != self._machine:
            self.others[str(name)] = self.others.get(str(name), 0) + 1
            return None
        return StoredInstance(instance_id, data, None)

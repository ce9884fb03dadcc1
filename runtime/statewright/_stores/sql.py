"""What the SQLite and PostgreSQL stores do the same way, written once over a DB-API cursor and a
:class:`~statewright._stores.dialect.Dialect`: load, delete and the due-timer claim here, save in
:mod:`statewright._stores.sql_save`.

A store opens its connection, turns its driver's errors into :class:`StoreError`, and keeps, per
instance, what it learnt of the head row when it last loaded or saved it (a :class:`Head`: the
revision and the records the row keeps, :mod:`statewright._stores.layout`), so that its next
save need not read the row. A load (:func:`read`) is one ``SELECT`` of the head row when the
row keeps every record the snapshot has, else the head and its record rows read in one read
transaction; the records are parsed and checked outside the store's lock (:func:`snapshot_of`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from statewright._errors import SnapshotError
from statewright._stores.codec import (
    STORED_HISTORY_KEY,
    assemble,
    stored_record,
    verified_snapshot,
)
from statewright._stores.dialect import Dialect
from statewright._stores.layout import Recent, recent_of

__all__ = [
    "Cursor",
    "Found",
    "Head",
    "Transaction",
    "claim_due",
    "delete",
    "parsed_row",
    "read",
    "snapshot_of",
    "text_of",
]


class Cursor(Protocol):
    """What the shared steps use of a DB-API cursor (``sqlite3``'s and ``psycopg``'s)."""

    def execute(self, statement: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, statement: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...


class Head:
    """What a store object knows of an instance's head row at ``revision``: the records the row
    keeps (``recent``, ending at the instance's newest event id). Enough to write the next
    revision without reading the row: a lost race is caught by the revision either way."""

    __slots__ = ("recent", "revision")

    def __init__(self, revision: int, recent: Recent) -> None:
        self.revision = revision
        self.recent = recent


class Transaction:
    """``begin`` … ``COMMIT``, or ``ROLLBACK`` when anything fails (the commit too). A class, not
    a generator: it is entered on many saves and loads."""

    __slots__ = ("begin", "cursor")

    def __init__(self, cursor: Cursor, begin: str) -> None:
        self.cursor = cursor
        self.begin = begin

    def __enter__(self) -> None:
        self.cursor.execute(self.begin)

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            try:
                self.cursor.execute("COMMIT")
                return
            except BaseException:
                self._roll_back()
                raise
        self._roll_back()

    def _roll_back(self) -> None:
        with contextlib.suppress(Exception):  # the first failure is the one to report
            self.cursor.execute("ROLLBACK")


# ---------------------------------------------------------------------------------- loading


class Found:
    """A stored row as :func:`read` found it: the snapshot (a head without its records yet),
    whether a checksum vouched for it, the records the row keeps, the record rows read beside
    it, how many records it has (None: a whole snapshot), and what a store learns of it."""

    __slots__ = ("data", "head", "kept", "retained", "rows", "verified")

    def __init__(self, row: Sequence[Any], where: str) -> None:
        data, self.verified, text = parsed_row(row, where)
        self.data = data
        self.rows: list[Any] = []
        self.retained: int | None = None
        self.kept: list[dict[str, Any]] = []
        self.head: Head | None = None
        if STORED_HISTORY_KEY in data:
            self.retained, recent, self.kept = recent_of(data, text, where)
            self.head = Head(data["revision"], recent)

    def missing(self) -> tuple[int, int] | None:
        """The event ids ``(after, up to)`` of the records that are rows, or None."""
        if self.retained is None or self.head is None:
            return None
        recent = self.head.recent
        if self.retained <= recent.count:
            return None
        return recent.total - self.retained, recent.first - 1


def read(
    cursor: Cursor, dialect: Dialect, select_head: str, instance_id: str, where: str
) -> Found | None:
    """The stored row of ``instance_id`` (checked against its columns) and its record rows, or
    None when it is not stored: one ``SELECT`` when the head row keeps every record, else the
    head and the rows from one snapshot of the database (a read transaction). The rows are
    parsed by :func:`snapshot_of`, outside the store's lock."""
    row = cursor.execute(select_head, (instance_id,)).fetchone()
    if row is None:
        return None
    found = Found(row, where)
    if found.missing() is None:
        return found
    with Transaction(cursor, dialect.begin_read):
        row = cursor.execute(select_head, (instance_id,)).fetchone()
        if row is None:
            return None
        found = Found(row, where)
        span = found.missing()
        if span is not None:
            found.rows = cursor.execute(dialect.select_records, (instance_id, *span)).fetchall()
    return found


def snapshot_of(found: Found, where: str) -> dict[str, Any]:
    """The snapshot :func:`read` found: a head with its records (the rows' checked)."""
    data, retained = found.data, found.retained
    if retained is None:
        return data
    start = data["total_transitions"] - retained + 1
    records = [
        stored_record(text_of(text, where), f"{where} record {event_id}", start + i, digest)
        for i, (event_id, text, digest) in enumerate(found.rows)
    ]
    records += found.kept
    return assemble(data, records, retained, where)


def parsed_row(row: Sequence[Any], where: str) -> tuple[dict[str, Any], bool, str]:
    """The stored snapshot or head of a row ``(revision, text, checksum)``, checked against its
    columns (the checksum covers the text as it is; a row from before checksums has none and
    loads unverified), whether its checksum vouched for it, and its text."""
    revision, text, stored_checksum = row
    if stored_checksum is not None and type(stored_checksum) is not str:
        raise SnapshotError(f"{where}: the checksum column holds {stored_checksum!r:.40}")
    text = text_of(text, where)
    data, verified = verified_snapshot(text, where, stored_checksum)
    if revision != data["revision"] or type(revision) is not int:
        raise SnapshotError(
            f"{where}: the revision column holds {revision!r:.40} but the snapshot says "
            f"{data['revision']}"
        )
    return data, verified, text


# ------------------------------------------------------------------------ deleting, timers


def delete(cursor: Cursor, dialect: Dialect, instance_id: str, *, records: bool = True) -> bool:
    """Forget the instance, with its records unless ``records`` is false (a database that has
    no table for them); False if it was not stored."""
    deleted = cursor.execute(dialect.delete_instance, (instance_id,)).rowcount
    if records:
        cursor.execute(dialect.delete_records, (instance_id,))
    return bool(deleted == 1)


def claim_due(
    cursor: Cursor, dialect: Dialect, now: float, limit: int, lease_seconds: float
) -> list[str]:
    """Instances with a timer due at ``now``, earliest first, leased to the caller for
    ``lease_seconds``: the pick and the leases in one write transaction, so two workers never
    claim the same instance while a lease runs (see the dialect's ``claim_lock``)."""
    with Transaction(cursor, dialect.begin_write):
        rows = cursor.execute(dialect.select_due, (now, now, max(0, limit))).fetchall()
        if rows:
            cursor.executemany(dialect.lease, [(now + lease_seconds, row[0]) for row in rows])
    return [str(row[0]) for row in rows]


def text_of(value: object, where: str) -> str:
    """A text column's value as text: :class:`SnapshotError` for anything else."""
    if isinstance(value, bytes):  # a row written by hand as a blob
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise SnapshotError(f"{where}: a text column holds bytes that are no UTF-8") from None
    if not isinstance(value, str):
        raise SnapshotError(f"{where}: a text column holds {type(value).__name__}")
    return value

"""What the SQLite and PostgreSQL stores do the same way, written once over a DB-API cursor and a
:class:`~statewright._stores.dialect.Dialect`: load, save, delete and the due-timer claim.

A store opens its connection, turns its driver's errors into :class:`StoreError` and answers
the one question each database answers in its own place: where an instance's record rows end
(PostgreSQL keeps it in the instance's row; SQLite asks its history table, unless the store
object wrote them itself).

A save (:func:`save`) runs in the store's write transaction, under the dialect's lock (SQLite's
``BEGIN IMMEDIATE``, PostgreSQL's ``SELECT ... FOR UPDATE`` of the instance's row), so a writer
that waited behind another one reads that one's row. It replaces or extends the history rows,
writes the head with a compare-and-swap of its revision (``UPDATE ... WHERE revision = ?``, or
an insert that does nothing over an existing row: a lost race is :class:`Conflict`, nothing
written), inserts the new records, once every ``PRUNE_EVERY`` events deletes the records that
fell out of the window, and updates the due-timer index. What it writes is worked out before the
transaction starts (:class:`Write`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from statewright._errors import Conflict, SnapshotError
from statewright._stores.codec import (
    MAX_REVISION,
    STORED_HISTORY_KEY,
    assemble,
    canonical,
    checksum,
    earliest_due,
    encode_snapshot,
    new_revision,
    prune_below,
    record_text,
    retained_of,
    stored_record,
    stored_snapshot,
    stored_update,
    whole_history,
)
from statewright._stores.dialect import Dialect
from statewright._stores.protocol import SnapshotUpdate

__all__ = [
    "Cursor",
    "RecordsEnd",
    "Transaction",
    "Write",
    "claim_due",
    "delete",
    "read",
    "record_rows",
    "save",
    "snapshot_of",
]

#: A history row: ``(instance_id, event_id, record text, checksum)``.
Row = tuple[str, int, str, str]


class Cursor(Protocol):
    """What the shared steps use of a DB-API cursor (``sqlite3``'s and ``psycopg``'s)."""

    def execute(self, statement: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, statement: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...


class Write:
    """One save as the SQL stores write it, worked out (and checked) before the transaction: the
    head row's values, the new record rows, and what the save does to the history and to the
    due-timer index. ``split`` and ``total_transitions`` are the values of PostgreSQL's extra
    instance columns of the same names."""

    __slots__ = (
        "chart",
        "due",
        "expected_revision",
        "first_retained",
        "instance_id",
        "machine",
        "prune_below",
        "retained",
        "revision",
        "rows",
        "since",
        "split",
        "text",
        "total_transitions",
    )

    def __init__(
        self,
        instance_id: str,
        expected_revision: int,
        revision: int,
        head: Mapping[str, Any],
        text: str,
        *,
        rows: list[Row],
        since: int | None,
        retained: int,
        total_transitions: int | None,
        split: bool,
        prune_below: int | None,
    ) -> None:
        self.instance_id = instance_id
        self.expected_revision = expected_revision
        self.revision = revision
        self.text = text
        self.machine = str(head.get("machine", ""))
        self.due = earliest_due(head)
        self.chart = "chart" in head  # a flat machine never has a timer: no index to clear
        self.rows = rows
        self.since = since
        self.retained = retained
        self.total_transitions = total_transitions
        self.first_retained = (total_transitions or 0) - retained + 1
        self.split = split
        self.prune_below = prune_below

    @classmethod
    def whole(cls, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int) -> Write:
        """A whole snapshot (``save``): it replaces the instance's history rows with none."""
        revision = new_revision(instance_id, expected_revision)
        text = encode_snapshot(snapshot, revision)
        total = snapshot.get("total_transitions")
        return cls(
            instance_id,
            expected_revision,
            revision,
            snapshot,
            text,
            rows=[],
            since=None,
            retained=0,
            total_transitions=total if type(total) is int else None,
            split=False,
            prune_below=None,
        )

    @classmethod
    def update(cls, instance_id: str, update: SnapshotUpdate, expected_revision: int) -> Write:
        """A head and its new records (``save_update``, see :class:`SnapshotUpdate`)."""
        revision, head, records, total = stored_update(instance_id, update, expected_revision)
        retained: int = update.retained  # checked by stored_update
        return cls(
            instance_id,
            expected_revision,
            revision,
            head,
            canonical(head),
            rows=record_rows(instance_id, records),
            since=update.since,
            retained=retained,
            total_transitions=total,
            split=True,
            prune_below=prune_below(total - len(records), total, retained),
        )


#: Where the record rows of the instance being saved end (``None``: it has none, it is a whole
#: snapshot or its rows are missing), given the cursor, the row the dialect's ``lock_head``
#: returned (None without one, or when there is no row) and the save.
RecordsEnd = Callable[[Cursor, "Sequence[Any] | None", Write], "int | None"]


def record_rows(instance_id: str, records: Iterable[dict[str, Any]]) -> list[Row]:
    """Database rows of records (checked JSON data already)."""
    return [
        (instance_id, record["event_id"], text, checksum(text))
        for record in records
        for text in [record_text(record)]
    ]


class Transaction:
    """``begin`` … ``COMMIT``, or ``ROLLBACK`` when anything fails (the commit too). A class, not
    a generator: it is entered on every save."""

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


def read(
    cursor: Cursor, dialect: Dialect, select_head: str, instance_id: str, where: str
) -> tuple[dict[str, Any], int | None, list[Any]] | None:
    """The stored row of ``instance_id`` (checked against its columns) and its record rows,
    read from one snapshot of the database: ``(snapshot, None, [])`` for a whole snapshot,
    ``(head, retained, rows)`` for a head, None when it is not stored. The records are parsed
    by :func:`snapshot_of`, outside the store's lock."""
    with Transaction(cursor, dialect.begin_read):
        row = cursor.execute(select_head, (instance_id,)).fetchone()
        if row is None:
            return None
        data = head_of_row(row, where)
        stored = data.pop(STORED_HISTORY_KEY, None)
        if stored is None:
            return data, None, []
        retained = retained_of(stored, data, where)
        total = data["total_transitions"]
        rows = (
            cursor.execute(
                dialect.select_records, (instance_id, total - retained, total)
            ).fetchall()
            if retained
            else []
        )
    return data, retained, rows


def snapshot_of(
    data: dict[str, Any], retained: int | None, rows: list[Any], where: str
) -> dict[str, Any]:
    """The snapshot :func:`read` found: the head with its records, each checked."""
    if retained is None:
        return data
    start = data["total_transitions"] - retained + 1
    records = [
        stored_record(_text(text, where), f"{where} record {event_id}", start + i, digest)
        for i, (event_id, text, digest) in enumerate(rows)
    ]
    return assemble(data, records, retained, where)


def head_of_row(row: Sequence[Any], where: str) -> dict[str, Any]:
    """The stored snapshot or head of a row ``(revision, text, checksum)``, checked against its
    columns (the checksum covers the text as it is; a row from before checksums has none and
    loads unverified)."""
    revision, text, stored_checksum = row
    if stored_checksum is not None and type(stored_checksum) is not str:
        raise SnapshotError(f"{where}: the checksum column holds {stored_checksum!r:.40}")
    data = stored_snapshot(_text(text, where), where, stored_checksum)
    if revision != data["revision"] or type(revision) is not int:
        raise SnapshotError(
            f"{where}: the revision column holds {revision!r:.40} but the snapshot says "
            f"{data['revision']}"
        )
    return data


def save(
    cursor: Cursor, dialect: Dialect, write: Write, where: str, records_end: RecordsEnd
) -> None:
    """Write ``write`` in the caller's write transaction (see the module); :class:`Conflict`
    or :class:`SnapshotError` and the caller rolls back."""
    instance_id = write.instance_id
    old = None
    if dialect.lock_head is not None:  # wait for the row's other writers, then read it
        old = cursor.execute(dialect.lock_head, (instance_id,)).fetchone()
    since, problem = write.since, None
    if since is None or not write.expected_revision:
        cursor.execute(dialect.delete_records, (instance_id,))
    elif len(write.rows) < write.retained:  # older records must be there: where they end is checked
        try:
            end = records_end(cursor, old, write)
            write.rows[:0] = _older_rows(cursor, dialect, write, since, end, where)
        except SnapshotError as error:
            problem = error  # reported after the revision: a lost race is a Conflict, whatever else
    _write_head(cursor, dialect, write, where)
    if problem is not None:
        raise problem
    if write.rows:
        cursor.executemany(dialect.upsert_record, write.rows)
    if write.prune_below is not None:
        cursor.execute(dialect.prune_records, (instance_id, write.prune_below))
    if write.due is not None:
        cursor.execute(dialect.upsert_due, (instance_id, write.due))
    elif write.chart:
        cursor.execute(dialect.delete_due, (instance_id,))


def _write_head(cursor: Cursor, dialect: Dialect, write: Write, where: str) -> None:
    """Insert or update the head row, comparing and swapping the revision: :class:`Conflict`
    when the stored one is not ``write.expected_revision``."""
    instance_id, expected = write.instance_id, write.expected_revision
    extra = tuple(getattr(write, column) for column in dialect.extra_columns)
    values = (write.machine, write.revision, write.text, time.time(), checksum(write.text), *extra)
    if expected == 0:
        written = cursor.execute(dialect.insert_head, (instance_id, *values)).rowcount
    else:
        written = cursor.execute(dialect.update_head, (*values, instance_id, expected)).rowcount
    if written != 1:
        row = cursor.execute(dialect.select_revision, (instance_id,)).fetchone()
        actual = None if row is None else row[0]
        if actual is not None and (type(actual) is not int or not 1 <= actual <= MAX_REVISION):
            raise SnapshotError(f"{where}: the revision column holds {actual!r:.40}")
        raise Conflict(instance_id, expected, actual)


def _older_rows(
    cursor: Cursor, dialect: Dialect, write: Write, since: int, end: int | None, where: str
) -> list[Row]:
    """The retained records up to ``since`` that are not rows yet: none when the rows end at
    ``since``; a whole snapshot's (written by ``save`` or an earlier release), which become
    rows now, once; else :class:`SnapshotError` (the machine must load the instance again)."""
    if end is not None:
        if end != since:
            raise SnapshotError(
                f"{where}: its stored history ends at event {end}, not at {since}: load the "
                "instance again"
            )
        return []
    row = cursor.execute(dialect.select_head, (write.instance_id,)).fetchone()
    if row is None:  # the head's write reports the Conflict
        return []
    old = head_of_row(row, where)
    if STORED_HISTORY_KEY in old:
        raise SnapshotError(f"{where}: its history rows are missing: load the instance again")
    first = write.first_retained
    kept = whole_history(old, where)
    return record_rows(write.instance_id, (r for r in kept if first <= r["event_id"] <= since))


def delete(cursor: Cursor, dialect: Dialect, instance_id: str, *, records: bool = True) -> bool:
    """Forget the instance, with its records and its due timer unless ``records`` is false (a
    database that has no tables for them); False if it was not stored."""
    deleted = cursor.execute(dialect.delete_instance, (instance_id,)).rowcount
    if records:
        cursor.execute(dialect.delete_records, (instance_id,))
        cursor.execute(dialect.delete_due, (instance_id,))
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


def _text(value: object, where: str) -> str | bytes:
    if not isinstance(value, (str, bytes)):
        raise SnapshotError(f"{where}: a text column holds {type(value).__name__}")
    return value

"""How the SQLite and PostgreSQL stores write a save, over a DB-API cursor and a
:class:`~statewright._stores.dialect.Dialect` (the layout is :mod:`statewright._stores.layout`).

A save (:func:`save`) of the revision after the one the store knows (its
:class:`~statewright._stores.sql.Head`), with records that follow the ones it knows, is one
statement: the head row's ``UPDATE ... WHERE revision = ?`` (a compare-and-swap: a lost race is
:class:`Conflict`, nothing written), which writes the head, its newest records and its earliest
due timer together and commits them at once. Once the row keeps enough records, they are flushed
to record rows with it: one statement where the dialect has one (PostgreSQL), else a write
transaction of the ``UPDATE``, the ``INSERT`` of the rows and, once every ``PRUNE_EVERY``
events, the ``DELETE`` of the rows that fell out of the window. Any other save (the first, one to
another store, one the store knows nothing of, a whole snapshot) runs in the store's write
transaction, under the dialect's lock (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's ``SELECT ...
FOR UPDATE`` of the instance's row), reads the stored row, checks the revision and that the
records follow on, and writes what it must. What a save writes is worked out before anything is
executed (:class:`Write`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from statewright._errors import Conflict, SnapshotError
from statewright._stores.codec import (
    MAX_REVISION,
    STORED_HISTORY_KEY,
    canonical,
    checked_update,
    checksum,
    earliest_due,
    encode_snapshot,
    new_revision,
    prune_below,
    whole_history,
)
from statewright._stores.dialect import Dialect
from statewright._stores.layout import Recent, head_text, recent_of
from statewright._stores.protocol import OwnText, SnapshotUpdate
from statewright._stores.sql import Cursor, Head, Transaction, parsed_row

__all__ = ["Write", "save"]


class Write:
    """One save as the SQL stores write it, worked out (and checked) before anything is
    executed: the head row's values (``text``: a whole snapshot's text, or the canonical text of
    a head's fields, which the layout completes), the texts of the new records, and what the
    save does to the history. ``split`` and ``total`` are the values of PostgreSQL's extra
    instance columns ``split`` and ``total_transitions``."""

    __slots__ = (
        "due",
        "expected_revision",
        "instance_id",
        "machine",
        "retained",
        "revision",
        "since",
        "split",
        "text",
        "texts",
        "total",
    )

    def __init__(
        self,
        instance_id: str,
        expected_revision: int,
        head: Mapping[str, Any] | None,
        text: str,
        *,
        own: OwnText | None = None,
        texts: list[str],
        since: int | None,
        retained: int,
        total: int | None,
        split: bool,
    ) -> None:
        self.instance_id = instance_id
        self.expected_revision = expected_revision
        self.revision = expected_revision + 1  # checked by new_revision before
        self.text = text
        if head is None:  # a machine's own update as text: it said these
            assert own is not None
            self.machine, self.due = own.machine, own.due
        else:
            self.machine, self.due = str(head.get("machine", "")), earliest_due(head)
        self.texts = texts
        self.since = since
        self.retained = retained
        self.total = total
        self.split = split

    @classmethod
    def whole(cls, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int) -> Write:
        """A whole snapshot (``save``): it replaces the instance's history rows with none."""
        text = encode_snapshot(snapshot, new_revision(instance_id, expected_revision))
        total = snapshot.get("total_transitions")
        return cls(
            instance_id,
            expected_revision,
            snapshot,
            text,
            texts=[],
            since=None,
            retained=0,
            total=total if type(total) is int else None,
            split=False,
        )

    @classmethod
    def update(cls, instance_id: str, update: SnapshotUpdate, expected_revision: int) -> Write:
        """A head and its new records (``save_update``, see :class:`SnapshotUpdate`)."""
        revision = new_revision(instance_id, expected_revision, update._own)
        own = update._text
        if own is not None:  # the machine's own, as canonical text already
            return cls(
                instance_id,
                expected_revision,
                None,
                f"{own.before}{revision}{own.after}",
                own=own,
                texts=own.records,
                since=update.since,
                retained=update.retained,
                total=own.total,
                split=True,
            )
        head, records, total = checked_update(update)
        head["revision"] = revision
        return cls(
            instance_id,
            expected_revision,
            head,
            canonical(head),
            texts=[canonical(record) for record in records],
            since=update.since,
            retained=update.retained,  # checked by checked_update
            total=total,
            split=True,
        )

    def row(self, text: str) -> tuple[Any, ...]:
        """The values of the head row's columns when it holds ``text`` (see the dialect)."""
        return (self.machine, self.revision, text, time.time(), checksum(text), self.due)


def save(
    cursor: Cursor, dialect: Dialect, write: Write, known: Head | None, where: str
) -> Head | None:
    """Write ``write`` (see the module), ``known`` being what the store learnt of the row;
    returns what it knows of the row now (None: a whole snapshot). :class:`Conflict` or
    :class:`SnapshotError` leave the stored instance as it was."""
    if not write.split:
        with Transaction(cursor, dialect.begin_write):
            cursor.execute(dialect.delete_records, (write.instance_id,))
            _write_head(cursor, dialect, write, write.text, where)
        return None
    if (
        known is not None
        and known.revision == write.expected_revision
        and known.recent.total == write.since
    ):
        recent = known.recent.extended(write.texts, _total(write), write.retained)
        if not recent.full(write.text, dialect.row_chars):  # the common save: one statement
            _write_head(
                cursor, dialect, write, head_text(write.text, write.retained, recent), where
            )
            return Head(write.revision, recent)
        if dialect.flush is not None:  # so is a flush, where the database has one
            return _flushed_at_once(cursor, dialect, write, recent, where)
        with Transaction(cursor, dialect.begin_write):
            return _flushed(cursor, dialect, write, recent, where)
    with Transaction(cursor, dialect.begin_write):
        row = cursor.execute(dialect.lock_head, (write.instance_id,)).fetchone()
        kept = _kept(cursor, dialect, write, row, where)
        recent = kept.extended(write.texts, _total(write), write.retained)
        if recent.full(write.text, dialect.row_chars):
            return _flushed(cursor, dialect, write, recent, where)
        _write_head(cursor, dialect, write, head_text(write.text, write.retained, recent), where)
        return Head(write.revision, recent)


def _total(write: Write) -> int:
    total = write.total
    assert total is not None  # an update's: checked_update
    return total


def _kept(
    cursor: Cursor, dialect: Dialect, write: Write, row: Sequence[Any] | None, where: str
) -> Recent:
    """What the new head row keeps of the stored one (under the write lock): the revision
    checked first (a lost race is a :class:`Conflict`, whatever else is wrong), then the
    records the stored row keeps, which the new records must follow; a whole snapshot's
    records, which are kept from now on; or none, and no rows, when the save replaces what the
    store had (its first save, or a machine whose records the store does not hold)."""
    instance_id, expected = write.instance_id, write.expected_revision
    actual = None if row is None else row[0]
    if actual is not None and (type(actual) is not int or not 1 <= actual <= MAX_REVISION):
        raise SnapshotError(f"{where}: the revision column holds {actual!r:.40}")
    if (actual or 0) != expected:
        raise Conflict(instance_id, expected, actual)
    since, total = write.since, _total(write)
    if row is None or since is None:
        cursor.execute(dialect.delete_records, (instance_id,))
        return Recent.of_texts([], total - len(write.texts))
    data, _, text = parsed_row(row, where)
    if STORED_HISTORY_KEY not in data:  # a whole snapshot (``save``, or an earlier release)
        first = total - write.retained + 1
        kept = [r for r in whole_history(data, where) if first <= r["event_id"] <= since]
        cursor.execute(dialect.delete_records, (instance_id,))
        return Recent.of_texts([canonical(r) for r in kept], since)
    recent = recent_of(data, text, where)[1]
    if recent.total != since:
        raise SnapshotError(
            f"{where}: its stored history ends at event {recent.total}, not at {since}: load "
            "the instance again"
        )
    return recent


def _flushed(cursor: Cursor, dialect: Dialect, write: Write, recent: Recent, where: str) -> Head:
    """The head row without records, the records it would have kept as rows, and, once every
    :data:`~statewright._stores.codec.PRUNE_EVERY` events, the rows that fell out of the window
    deleted (in the caller's write transaction)."""
    instance_id = write.instance_id
    empty = Recent.of_texts([], recent.total)
    _write_head(cursor, dialect, write, head_text(write.text, write.retained, empty), where)
    event_ids, texts, checksums = _rows(recent)
    cursor.executemany(
        dialect.upsert_record,
        [(instance_id, *row) for row in zip(event_ids, texts, checksums, strict=True)],
    )
    below = _below(write, recent)
    if below:
        cursor.execute(dialect.prune_records, (instance_id, below))
    return Head(write.revision, empty)


def _flushed_at_once(
    cursor: Cursor, dialect: Dialect, write: Write, recent: Recent, where: str
) -> Head:
    """:func:`_flushed` as the dialect's one statement (see ``Dialect.flush``)."""
    assert dialect.flush is not None
    instance_id, expected = write.instance_id, write.expected_revision
    empty = Recent.of_texts([], recent.total)
    values = _values(dialect, write, head_text(write.text, write.retained, empty))
    rows = _rows(recent)
    found = cursor.execute(
        dialect.flush, (*values, instance_id, expected, *rows, _below(write, recent) or 0)
    ).fetchone()
    if found is None or found[0] != 1:
        _lost(cursor, dialect, instance_id, expected, where)
    return Head(write.revision, empty)


def _rows(recent: Recent) -> tuple[list[int], list[str], list[str]]:
    """The event ids, texts and checksums of the records in ``recent``, as rows."""
    texts = recent.texts
    first = recent.first
    return list(range(first, first + len(texts))), texts, [checksum(text) for text in texts]


def _below(write: Write, recent: Recent) -> int | None:
    """The event id below which rows are deleted when ``recent`` is flushed: once every
    ``PRUNE_EVERY`` events (the flush crosses a multiple of it), when the window is full."""
    below = prune_below(recent.first - 1, recent.total, write.retained)
    return below if below is not None and below > 1 else None


def _values(dialect: Dialect, write: Write, text: str) -> tuple[Any, ...]:
    """The head row's column values (the dialect's extra columns too)."""
    values = write.row(text)
    if dialect.extra_columns:
        values = (*values, write.split, write.total)
    return values


def _write_head(cursor: Cursor, dialect: Dialect, write: Write, text: str, where: str) -> None:
    """Insert or update the head row, comparing and swapping the revision: :class:`Conflict`
    when the stored one is not ``write.expected_revision``."""
    instance_id, expected = write.instance_id, write.expected_revision
    values = _values(dialect, write, text)
    if expected == 0:
        written = cursor.execute(dialect.insert_head, (instance_id, *values)).rowcount
    else:
        written = cursor.execute(dialect.update_head, (*values, instance_id, expected)).rowcount
    if written != 1:
        _lost(cursor, dialect, instance_id, expected, where)


def _lost(cursor: Cursor, dialect: Dialect, instance_id: str, expected: int, where: str) -> None:
    """The :class:`Conflict` of a head that was not written: the stored revision is not
    ``expected`` (the one it says, checked)."""
    row = cursor.execute(dialect.select_revision, (instance_id,)).fetchone()
    actual = None if row is None else row[0]
    if actual is not None and (type(actual) is not int or not 1 <= actual <= MAX_REVISION):
        raise SnapshotError(f"{where}: the revision column holds {actual!r:.40}")
    raise Conflict(instance_id, expected, actual)

"""How the SQL stores keep an instance's history: the newest records in its head row, older ones
as record rows (layout 2).

A save with history writes the head and its new records. Written as rows, that is a transaction
of four statements (``BEGIN``, the head's compare-and-swap ``UPDATE``, the records' ``INSERT``,
``COMMIT``, and a ``DELETE`` of the records that fell out of the window), about three times what
writing the head alone costs. So the head row keeps the newest records itself, after the head's
fields, and the common save is one statement: the ``UPDATE ... WHERE revision = ?`` of that row,
which commits the head and its new records together (or, on a lost race, nothing). Once the
row would keep more than :data:`FLUSH_RECORDS` records, or grow past the dialect's
``row_chars`` (a SQLite row within its page; PostgreSQL's the same, its table told not to
compress rows that short), a save *flushes* them: with the head's ``UPDATE`` it moves them to
record rows, each with its checksum (one statement on PostgreSQL, a write transaction on
SQLite), and once every ``PRUNE_EVERY`` events deletes the rows that fell out of the window; so
a save costs the same however long the history is, and a store holds at most ``PRUNE_EVERY +
FLUSH_RECORDS`` records beyond an instance's window.

The head row's text (its checksum column covers all of it)::

    {"stored_history":{"recent_chars":L,"retained":R,"recent":[<record>,...]},<the head's fields>}

``retained`` is how many records the snapshot has (the last ``R`` event ids up to
``total_transitions``); ``recent`` holds the newest of them (consecutive event ids ending at
``total_transitions``), ``recent_chars`` the length of their text between the brackets, so that
a store can append to it without parsing it; the record rows hold the others. A head written
before layout 2 has ``{"retained": R}`` alone, somewhere among its fields: all its records are
rows. Both load; the first save of an old head writes layout 2.
"""

from __future__ import annotations

import re
from typing import Any, Final

from statewright._errors import SnapshotError
from statewright._stores.codec import STORED_HISTORY_KEY, retained_of

__all__ = [
    "FLUSH_CHARS",
    "FLUSH_RECORDS",
    "LAYOUT",
    "Recent",
    "head_text",
    "recent_of",
    "split_records",
]

#: The layout this module writes (SQLite keeps it as the database's ``user_version``).
LAYOUT: Final = 2

#: A head row keeps at most this many records before a save flushes them to record rows...
FLUSH_RECORDS: Final = 16
#: ...and its text stays within the dialect's ``row_chars`` (a SQLite row within its page, and
#: PostgreSQL's the same: see ``dialect.TOAST_TUPLE_TARGET``), though it keeps this many
#: characters of records whatever the head's own length.
FLUSH_CHARS: Final = 1000

_PREFIX: Final = re.compile(
    r'\{"stored_history":\{"recent_chars":(\d+),"retained":(\d+),"recent":\['
)


class Recent:
    """The records a head row keeps: ``count`` of them, the newest ending at event id ``total``,
    as ``fragment`` (their texts joined by commas: a JSON array's inside) and as ``texts`` (each
    record's text). A store that wrote them keeps the texts, so that a flush need not split
    the fragment again; one read from a row has the fragment, split when a flush needs it."""

    __slots__ = ("_fragment", "_texts", "count", "total")

    def __init__(
        self, fragment: str | None, count: int, total: int, texts: list[str] | None = None
    ) -> None:
        self._fragment = fragment
        self._texts = texts
        self.count = count
        self.total = total

    @classmethod
    def of_texts(cls, texts: list[str], total: int) -> Recent:
        """The records ``texts``, the newest ending at event id ``total``."""
        return cls(None, len(texts), total, texts)

    @property
    def fragment(self) -> str:
        fragment = self._fragment
        if fragment is None:
            fragment = self._fragment = ",".join(self._texts or ())
        return fragment

    @property
    def texts(self) -> list[str]:
        texts = self._texts
        if texts is None:
            texts = self._texts = split_records(self.fragment)
        return texts

    @property
    def first(self) -> int:
        """The event id of the oldest record kept (``total + 1`` when none is)."""
        return self.total - self.count + 1

    def extended(self, texts: list[str], total: int, retained: int) -> Recent:
        """These records followed by ``texts`` (the records up to ``total``, consecutive),
        without those that fell out of a window of ``retained`` records."""
        if texts and self.total != total - len(texts):  # a gap: only the new ones are kept
            kept: list[str] = []
        elif self._texts is None and self.count:  # read from a row: extend its fragment
            return self._extended_fragment(texts, total, retained)
        else:
            kept = self._texts or []
        joined = kept + texts if texts else kept
        drop = len(joined) - retained
        return Recent.of_texts(joined[drop:] if drop > 0 else joined, total)

    def _extended_fragment(self, texts: list[str], total: int, retained: int) -> Recent:
        fragment = ",".join((self.fragment, *texts))
        recent = Recent(fragment, self.count + len(texts), total)
        if recent.count > retained:
            return Recent.of_texts(recent.texts[recent.count - retained :], total)
        return recent

    def full(self, head: str, row_chars: int) -> bool:
        """Whether a head row with the fields ``head`` and these records holds more records
        than it keeps (at most :data:`FLUSH_RECORDS`, its text within ``row_chars``): the save
        flushes them."""
        chars = len(self.fragment)
        return self.count > FLUSH_RECORDS or chars > max(FLUSH_CHARS, row_chars - len(head))


def head_text(head: str, retained: int, recent: Recent) -> str:
    """The head row's text: ``head`` (the canonical text of the head's fields) with the
    descriptor and the records kept in front (see the module)."""
    fragment = recent.fragment
    return (
        f'{{"stored_history":{{"recent_chars":{len(fragment)},"retained":{retained},'
        f'"recent":[{fragment}]}},{head[1:]}'
    )


def recent_of(
    data: dict[str, Any], text: str, where: str
) -> tuple[int, Recent, list[dict[str, Any]]]:
    """How many records the stored head ``data`` (parsed from ``text``; its ``stored_history``
    is taken out) has, those its row keeps, and them parsed; :class:`SnapshotError` when its
    descriptor is broken."""
    stored = data.pop(STORED_HISTORY_KEY)
    retained = retained_of(stored, data, where)
    total: int = data["total_transitions"]
    if "recent" not in stored:  # written before layout 2: every record is a row
        return retained, Recent("", 0, total), []
    records = stored["recent"]
    found = _PREFIX.match(text)
    length = stored.get("recent_chars")
    if (
        found is None
        or type(records) is not list
        or len(records) > retained
        or int(found[1]) != length
        or int(found[2]) != retained
        or text[found.end() + length : found.end() + length + 3] != "]},"
    ):
        raise SnapshotError(f"{where}: the stored history descriptor is broken")
    first = total - len(records) + 1
    for i, record in enumerate(records):
        if type(record) is not dict or record.get("event_id") != first + i:
            raise SnapshotError(f"{where}: the stored record of event {first + i} is not there")
    start = found.end()
    return retained, Recent(text[start : start + length], len(records), total), records


def split_records(fragment: str) -> list[str]:
    """The texts of the records in a fragment (each as written, byte for byte)."""
    if not fragment:
        return []
    from statewright._jsondata import json_decoder

    decode = json_decoder().raw_decode
    texts, at, end = [], 0, len(fragment)
    while at < end:
        _, stop = decode(fragment, at)
        texts.append(fragment[at:stop])
        at = stop + 1  # the comma
    return texts

"""What every store writes and reads the same way: revisions, canonical JSON, checksums, and
the split of a snapshot into its head and its history records.

A machine saving to a built-in store does not hand over its whole snapshot: it hands a
:class:`~statewright._stores.protocol.SnapshotUpdate`, the snapshot without its history (the
*head*) plus only the history records that are new since it last saved to (or loaded from) that
store. The store keeps each record once, as its own row (or line), so a save costs the same with
1,000 records of history as with none. ``load`` puts the snapshot back together: the head with
the last ``retained`` records.

Checksums: a whole snapshot or a head carries a SHA-256 of its canonical JSON text (sorted keys,
no spaces); so does every record. Where the text is kept in a file or in memory the checksum is
its first key (``"checksum"``, reserved); a database keeps it in a column. Anything stored that
is wrong is a :class:`SnapshotError`, a store that cannot do its job a :class:`StoreError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from statewright._errors import SnapshotError, StoreError
from statewright._jsondata import json_data, parse_json_text, parse_own_json
from statewright._stores.protocol import SnapshotUpdate, check_instance_id

__all__ = [
    "CHECKSUM_KEY",
    "MAX_REVISION",
    "PRUNE_EVERY",
    "STORED_HISTORY_KEY",
    "assemble",
    "canonical",
    "checked_update",
    "checksum",
    "earliest_due",
    "encode_snapshot",
    "new_revision",
    "prune_below",
    "read_stored",
    "record_text",
    "retained_of",
    "stored_record",
    "stored_snapshot",
    "stored_texts",
    "stored_update",
    "verified_snapshot",
    "whole_history",
    "with_checksum",
]

#: The largest integer SQLite and PostgreSQL (bigint) store: the last revision a store writes.
MAX_REVISION: Final = 2**63 - 1
#: Reserved top-level keys: a whole snapshot must not use them.
CHECKSUM_KEY: Final = "checksum"
STORED_HISTORY_KEY: Final = "stored_history"
#: Stores delete the records that fell out of a machine's history window once every this many
#: events, in one statement: at most ``retained + PRUNE_EVERY`` records per instance are kept.
PRUNE_EVERY: Final = 64


def new_revision(instance_id: str, expected_revision: int, known_id: bool = False) -> int:
    """``expected_revision + 1``, or :class:`StoreError` for an id or revision no store takes
    (``known_id``: a machine's own id, checked when the machine got it)."""
    if not known_id:
        check_instance_id(instance_id)  # same ids everywhere, so switching stores is safe
    if type(expected_revision) is not int or not 0 <= expected_revision < MAX_REVISION:
        raise StoreError(
            f"instance {instance_id!r}: expected_revision must be an integer from 0 to "
            f"{MAX_REVISION - 1}, not {expected_revision!r:.40}"
        )
    return expected_revision + 1


def checksum(text: str | bytes) -> str:
    global _SHA256
    if _SHA256 is None:
        import hashlib  # here, not at the top: loading OpenSSL costs a few milliseconds

        _SHA256 = hashlib.sha256
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    digest: str = _SHA256(raw).hexdigest()
    return "sha256:" + digest


_SHA256: Any = None


#: One encoder for every canonical text (``json.dumps`` with options builds one per call).
_CANONICAL: Final = json.JSONEncoder(separators=(",", ":"), sort_keys=True, allow_nan=False)
#: Its C encoder (what ``json`` uses when CPython has one), built once: ``JSONEncoder.encode``
#: builds one at every call, most of what a small value's text costs (a save writes a few).
#: Without the check for circular references: what is written as canonical text is JSON data,
#: checked or built by the runtime (no cycles).
_C_CANONICAL: Any = None
try:
    from _json import make_encoder

    _C_CANONICAL = make_encoder(
        None,
        _CANONICAL.default,
        json.encoder.encode_basestring_ascii,
        None,
        ":",
        ",",
        True,
        False,
        False,
    )
except ImportError:  # another Python: json's own encoder
    pass


def canonical(data: Any) -> str:
    """Sorted keys, no spaces: the text checksums are taken over."""
    if _C_CANONICAL is None:
        return _CANONICAL.encode(data)
    return "".join(_C_CANONICAL(data, 0))


def with_checksum(text: str) -> str:
    """``text`` (a canonical JSON object) with its checksum as first key."""
    return f'{{"{CHECKSUM_KEY}":"{checksum(text)}",{text[1:]}'


def _checked_mapping(snapshot: object) -> dict[str, Any]:
    if not isinstance(snapshot, Mapping):
        raise SnapshotError(f"a snapshot is a mapping, not {type(snapshot).__name__}")
    return _reserved_free(json_data(dict(snapshot)))


def _reserved_free(data: dict[str, Any]) -> dict[str, Any]:
    for reserved in (CHECKSUM_KEY, STORED_HISTORY_KEY):
        if reserved in data:
            raise SnapshotError("is reserved by the stores", field=reserved)
    return data


def encode_snapshot(snapshot: Mapping[str, Any], revision: int) -> str:
    """The canonical JSON text of a whole ``snapshot`` with ``revision``; :class:`SnapshotError`
    if it is no JSON data (checked before anything is written)."""
    data = _checked_mapping(snapshot)
    data["revision"] = revision
    return canonical(data)


def checked_update(update: object) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The head (JSON data, without history), the new records and the newest event id of an
    update, checked before anything is written: records are JSON objects whose event ids follow
    each other up to the head's ``total_transitions``, and no more are retained than exist."""
    if not isinstance(update, SnapshotUpdate):
        raise SnapshotError(f"expected a SnapshotUpdate, not {type(update).__name__}")
    if update._own:  # the machine's own, built for this save: JSON data, its records in order
        return update.head, update.records, update.head["total_transitions"]
    head = _checked_mapping(update.head)
    head.pop("history", None)
    total = update.total
    retained = update.retained
    if type(retained) is not int or not 0 <= retained <= total:
        raise SnapshotError(f"cannot retain {retained!r:.40} of {total} records")
    since = update.since
    if since is not None and (type(since) is not int or not 0 <= since <= total):
        raise SnapshotError(f"since is {since!r:.40}, not an event id up to {total}")
    records = json_data(list(update.records), ((), "records"))
    first = total - len(records) + 1
    for i, record in enumerate(records):
        if type(record) is not dict or record.get("event_id") != first + i:
            raise SnapshotError(
                f"expected the record with event id {first + i}", field=f"records[{i}]"
            )
    if records and first <= total - retained:
        raise SnapshotError("holds records older than the retained ones", field="records[0]")
    if since is None and len(records) != retained:
        raise SnapshotError(f"a replacing update needs all {retained} retained records")
    if since is not None and records and first != since + 1 and first != total - retained + 1:
        raise SnapshotError(f"the new records must follow event id {since}", field="records[0]")
    return head, records, total


def record_text(record: dict[str, Any]) -> str:
    """A record's canonical text (checked JSON data already)."""
    return canonical(record)


def stored_update(
    instance_id: str, update: SnapshotUpdate, expected_revision: int
) -> tuple[int, dict[str, Any], list[dict[str, Any]], int]:
    """What every store's ``save_update`` writes: the new revision, the checked head marked
    with it and with how many records it keeps, the new records and the newest event id."""
    revision = new_revision(instance_id, expected_revision, update._own)
    head, records, total = checked_update(update)
    head["revision"] = revision
    head[STORED_HISTORY_KEY] = {"retained": update.retained}  # checked above
    return revision, head, records, total


def stored_texts(
    instance_id: str, update: SnapshotUpdate, expected_revision: int
) -> tuple[int, str, list[str], int, float | None]:
    """:func:`stored_update` as canonical texts: the new revision, the head's text (with
    ``stored_history``), the new records' texts, the newest event id and the head's earliest
    due timer; spliced from a machine's own text update (``SnapshotUpdate._text``), else
    encoded from the checked head and records."""
    own = update._text
    if own is None:
        revision, head, records, total = stored_update(instance_id, update, expected_revision)
        return revision, canonical(head), [canonical(r) for r in records], total, earliest_due(head)
    revision = new_revision(instance_id, expected_revision, True)
    # "total_transitions" is a head's last key (sorted), so "stored_history" goes just before
    # it: its last occurrence, since any other one is nested in an earlier field.
    fields, last, total_part = own.after.rpartition(',"total_transitions":')
    stored = f',"{STORED_HISTORY_KEY}":{{"retained":{update.retained}}}'
    text = f"{own.before}{revision}{fields}{stored}{last}{total_part}"
    return revision, text, own.records, own.total, own.due


#: How a text with an embedded checksum starts: ``{"checksum":"sha256:<64 hex digits>",...``.
_EMBEDDED: Final = '{"checksum":"'
_DIGEST_END: Final = len(_EMBEDDED) + len("sha256:") + 64


def read_stored(
    text: str | bytes,
    where: str,
    column_checksum: str | None = None,
    *,
    what: str = "snapshot",
    required: bool = False,
) -> tuple[dict[str, Any], bool]:
    """A stored JSON object, and whether a checksum vouched for it (the runtime wrote it):
    :class:`SnapshotError` when it does not match, or when ``required`` and there is none.

    ``column_checksum`` is a database's (over ``text`` as it is); the files and the memory store
    keep theirs inside the text (over the canonical text without it, which is the text as
    written: so the text after the checksum is hashed as it is, and only a text that was
    reformatted since is parsed and written out again to be compared). A vouched-for text is
    parsed, not walked (:func:`~statewright._jsondata.parse_own_json`); one without a checksum
    (written before checksums) is checked value by value.
    """
    if column_checksum is not None:
        if type(column_checksum) is not str or checksum(text) != column_checksum:
            raise _mismatch(where, what)
        return _json_object(parse_own_json(text, where), where, what), True
    body = _embedded_body(text)
    if body is not None and checksum(body) == _digest(text):
        return _json_object(parse_own_json(body, where), where, what), True
    data = _json_object(parse_json_text(text, where), where, what)
    embedded = data.pop(CHECKSUM_KEY, None)
    if embedded is None and not required:
        return data, False
    if type(embedded) is not str or checksum(canonical(data)) != embedded:
        raise _mismatch(where, what)
    return data, True


def _embedded_body(text: str | bytes) -> str | bytes | None:
    """``text`` without its leading ``"checksum"`` member, or None when it has none there."""
    if isinstance(text, bytes):
        if text[: len(_EMBEDDED)] != _EMBEDDED.encode() or text[_DIGEST_END:][:2] != b'",':
            return None
        return b"{" + text[_DIGEST_END + 2 :]
    if not text.startswith(_EMBEDDED) or text[_DIGEST_END : _DIGEST_END + 2] != '",':
        return None
    return "{" + text[_DIGEST_END + 2 :]


def _digest(text: str | bytes) -> str:
    digest = text[len(_EMBEDDED) : _DIGEST_END]
    return digest.decode("ascii", "replace") if isinstance(digest, bytes) else digest


def _json_object(data: Any, where: str, what: str) -> dict[str, Any]:
    if type(data) is not dict:
        raise SnapshotError(f"{where}: the stored {what} is no JSON object")
    return data


def _mismatch(where: str, what: str) -> SnapshotError:
    return SnapshotError(
        f"{where}: the stored {what} does not match its checksum (corrupted or changed by hand)"
    )


def stored_snapshot(
    text: str | bytes, where: str, column_checksum: str | None = None
) -> dict[str, Any]:
    """A stored snapshot (or head), verified against its checksum when it has one
    (:func:`read_stored`), with a valid revision."""
    return verified_snapshot(text, where, column_checksum)[0]


def verified_snapshot(
    text: str | bytes, where: str, column_checksum: str | None = None
) -> tuple[dict[str, Any], bool]:
    """:func:`stored_snapshot`, and whether a checksum vouched for it."""
    data, verified = read_stored(text, where, column_checksum)
    revision = data.get("revision")
    if type(revision) is not int or not 1 <= revision <= MAX_REVISION:
        raise SnapshotError(
            f"{where}: the stored snapshot has no valid revision ({revision!r:.40})"
        )
    return data, verified


def retained_of(stored: Any, head: Mapping[str, Any], where: str) -> int:
    """How many records a head's ``stored_history`` says the snapshot has (checked)."""
    retained = stored.get("retained") if type(stored) is dict else None
    total = head.get("total_transitions")
    if type(retained) is not int or type(total) is not int or not 0 <= retained <= total:
        raise SnapshotError(f"{where}: the stored history descriptor is broken")
    return retained


def stored_record(
    text: str | bytes, where: str, event_id: int, column_checksum: str | None = None
) -> dict[str, Any]:
    """A stored history record, verified against its checksum (it must have one), that has
    ``event_id``."""
    data = read_stored(text, where, column_checksum, what="record", required=True)[0]
    if data.get("event_id") != event_id:
        raise SnapshotError(f"{where}: the stored record is not the one of event {event_id}")
    return data


def assemble(
    head: dict[str, Any], records: list[dict[str, Any]], retained: int, where: str
) -> dict[str, Any]:
    """The snapshot a split head and its records make: the last ``retained`` records, which must
    be there, one per event id, up to the head's ``total_transitions``."""
    total = head.get("total_transitions")
    if type(total) is not int or retained > total:
        raise SnapshotError(f"{where}: the stored head has no valid total_transitions")
    if len(records) != retained:
        raise SnapshotError(
            f"{where}: the stored history has {len(records)} of its {retained} records "
            "(rows deleted or changed by hand)"
        )
    head["history"] = records
    return head


def whole_history(data: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
    """The history records of a whole stored snapshot (one written by an earlier release, or by
    ``save``), to be kept as records from now on."""
    history = data.get("history")
    if type(history) is not list or any(
        type(r) is not dict or type(r.get("event_id")) is not int for r in history
    ):
        raise SnapshotError(f"{where}: the stored snapshot has no history records to append to")
    return history


def prune_below(before: int, total: int, retained: int) -> int | None:
    """The event id below which a store deletes records after a save that moved the newest
    event id from ``before`` to ``total``, or None: once every :data:`PRUNE_EVERY` events."""
    if before // PRUNE_EVERY == total // PRUNE_EVERY:
        return None
    return total - retained + 1


def earliest_due(head: Mapping[str, Any]) -> float | None:
    """When the earliest timer of a saved chart falls due, for the stores' due-timer index: its
    own timers' and, for a tree of machines, its children's (their ``children`` entries: their
    timers and the events between them are the parent row's to fire).

    Only ``on_restore = "fire"`` timers (the default) count: their due time is absolute. A
    ``resume`` or ``restart`` timer's due time moves whenever the machine is restored, so no
    store can say when it falls due; those fire in a live machine (``fire_due``, ``run_timers``).
    Anything that is no chart snapshot has none.
    """
    chart = head.get("chart")
    if type(chart) is not dict:
        return None
    timers = chart.get("timers")
    if type(timers) is not list:
        return None
    due = [
        timer["due"]
        for timer in timers
        if type(timer) is dict
        and timer.get("on_restore") == "fire"
        and type(timer.get("due")) in (int, float)
    ]
    children = head.get("children")
    for entry in children.values() if type(children) is dict else ():
        snapshot = entry.get("snapshot") if type(entry) is dict else None
        child_due = earliest_due(snapshot) if type(snapshot) is dict else None
        if child_due is not None:
            due.append(child_due)
    return float(min(due)) if due else None

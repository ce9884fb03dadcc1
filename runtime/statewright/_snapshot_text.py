"""A save's canonical JSON text, written straight from the machine (no dict to build and encode).

What a machine hands a built-in store for a save is JSON text the store hashes and writes: the
canonical text (sorted keys, no spaces) of the head, with the new revision, and of each new
history record. Building those as dicts and encoding them again at every save was most of a
save's Python cost, though most of a head is the same from save to save. So a machine's own
update (``SnapshotUpdate._text``) carries the texts, written here from fragments: the fields that
never change for an instance (format, machine, spec, instance id) are encoded once per machine
and kept, counters and records are spliced from the encoded names of their steps (kept per
class), and only what may have changed (the context, a chart's configuration and data, the
idempotency keys) is encoded at each save; a tree's children only when they changed since the
last save (:mod:`statewright._tree_text`). Each text is byte for byte what
``statewright._stores.codec.canonical`` makes of the dict :meth:`_build_snapshot` builds
(``tests/runtime/test_save_text.py`` holds them side by side), so what a checksum covers and
what a store keeps are unchanged.
"""

from __future__ import annotations

from datetime import datetime, timezone
from itertools import compress as _compress
from json.encoder import encode_basestring_ascii as _string
from math import modf as _modf
from typing import TYPE_CHECKING, Any, Final

from statewright._context import encode_context
from statewright._snapshot import SNAPSHOT_FORMAT, _plain, history_json, newest_records
from statewright._stores.codec import canonical
from statewright._stores.protocol import OwnText
from statewright._tree_text import children_pieces

if TYPE_CHECKING:
    from collections.abc import Sequence

    from statewright._history import RawRecord
__all__ = ["head_parts", "history_texts", "own_text"]

_FORMAT: Final = _string(SNAPSHOT_FORMAT)
#: ``statewright._history.format_timestamp``'s parts, looked up once, not at every record.
_FROM_TIMESTAMP: Final = datetime.fromtimestamp
_UTC: Final = timezone.utc
#: The finite floats: ``x - x`` is 0.0 only for them (NaN and the infinities give NaN).
_FLOAT: Final = float


def head_parts(machine: Any) -> tuple[str, str, float | None]:
    """The canonical text of ``machine``'s head (its snapshot without history) split where the
    revision's value goes, and its earliest due timer (:func:`~statewright._stores.codec.
    earliest_due` of it). What :meth:`PersistentMachine._build_snapshot` builds, encoded, a
    statechart's taken at its macrostep's time (a checkpoint's) or else now."""
    pieces, after, due = _head(machine)
    if len(pieces) == 1:  # no chart: no time to write
        return pieces[0], after, due
    saved_at = machine._checkpoint_time
    if saved_at is None:
        saved_at = machine._clock()
    # the canonical text of a finite float is its repr
    time = repr(saved_at) if type(saved_at) is _FLOAT and not saved_at - saved_at else None
    return (time or canonical(saved_at)).join(pieces), after, due


def _head(
    machine: Any, history: str | None = None, entry: tuple[str, str] | None = None
) -> tuple[list[str], str, float | None]:
    """:func:`head_parts`, the text before the revision as *pieces*, cut where each chart of
    the tree writes the save's time as its ``saved_at`` (see ``statewright._tree_text``); a
    child's with the records whose text is ``history``, as its parent's ``entry`` (the text
    before and after the snapshot) holds it: in the pieces."""
    static = machine.__dict__.get("_head_static")
    if static is None:
        static = machine._head_static = _static(machine)
    instance_part, spec_part = static
    pieces: list[str] = []
    head: list[str] = ["{"] if entry is None else [entry[0], "{"]
    chart = machine._chart
    data = due = None
    if chart is not None:
        spec = machine._spec_table.spec
        before, after, due = machine._engine.encode_text(chart)
        head += '"chart":', before
        pieces.append("".join(head))
        head = [after, ","]
        if spec.data is not None and chart.model is not None:
            from statewright._data_values import encode_data

            data = encode_data(spec.data, chart.model.data)
        if chart.children:  # a tree's: the children's pieces as kept from save to save
            field, children_due = children_pieces(machine, _entry_pieces)
            head += '"children":', field[0]
            if len(field) > 1:
                pieces.append("".join(head))
                pieces += field[1:-1]
                head = [field[-1]]
            head.append(",")
            if children_due is not None and (due is None or children_due < due):
                due = children_due
        elif machine._kept_field is not None:  # no child runs: keep none of the last alive
            machine._kept_field = None
    options = machine._options
    if machine._parent is None and (machine._context is not None or options.codec is not None):
        context, context_type = encode_context(machine._context, options)
        head += (
            '"context":',
            "null" if context is None else canonical(context),
            ',"context_type":',
            "null" if context_type is None else _string(context_type),
        )
    else:  # a child's is its parent's; without a context and a codec, what encode_context makes
        head.append('"context":null,"context_type":null')
    head += ',"counts":', _counts(machine)
    if data is not None:
        head += ',"data":', canonical(data)
    head += ',"format":', _FORMAT
    if history is not None:
        head += ',"history":', history
    head.append(',"idempotency_keys":')
    keys = machine._keys
    head.append(canonical([[key, event_id] for key, event_id in keys.items()]) if keys else "[]")
    head += instance_part, ',"previous":'
    previous = machine._prev
    head += "null" if previous is None else _string(str(previous)), ',"revision":'
    tail = [","]
    if machine._spec_changes:
        tail += '"spec_changes":', canonical([dict(c) for c in machine._spec_changes]), ","
    tail += spec_part, ',"state":', _string(str(machine._state))
    tail += ',"total_transitions":', str(machine.total_transitions), "}"
    if entry is None:
        pieces.append("".join(head))
        return pieces, "".join(tail), due
    pieces.append("".join([*head, str(machine._revision), *tail, entry[1]]))
    return pieces, "", due


def _entry_pieces(
    invokeid: str, index: int, state: str, child: Any
) -> tuple[list[str], float | None]:
    """An entry of a parent's ``children`` field in pieces (see :func:`_head`), and the
    earliest due timer of its child's tree; a child that ended has ``null``."""
    opening = f'{_string(invokeid)}:{{"invoke":{index},"snapshot":'
    closing = f',"state":{_string(state)}}}'
    if child is None:
        return [f"{opening}null{closing}"], None
    pieces, _, due = _head(child, _child_history(child), (opening, closing))
    return pieces, due


def _child_history(child: Any) -> str:
    """The text of a child's newest ``child_history_limit`` records (what
    ``statewright._tree_snapshot`` writes), kept on the child: a save encodes only the records
    it made since the one before."""
    total = child.total_transitions
    cached = child.__dict__.get("_saved_history_text")
    if cached is not None and cached[0] == total:
        text: str = cached[2]
        return text
    table, raw = child._spec_table, child._history
    available = len(raw) if raw else 0
    after = max(0, total - child._options.child_history_limit, total - available)
    if cached is not None and after <= cached[0] <= total:  # only the new ones to encode
        texts = cached[1] + history_texts(
            child, table.triples, raw, total, cached[0], table.spec.spec_hash
        )
    else:
        texts = history_texts(child, table.triples, raw, total, after, table.spec.spec_hash)
    texts = texts[len(texts) - (total - after) :] if total > after else []
    text = f"[{','.join(texts)}]"
    child._saved_history_text = (total, texts, text)
    return text


def _static(machine: Any) -> tuple[str, str]:
    """The fields of an instance's head that never change, as two runs of its canonical text:
    the instance id and the machine's name; the spec's fingerprint and version (kept on the
    class: a timer driver loads a new instance for each timer it fires)."""
    cls, table = type(machine), machine._spec_table
    cached = cls.__dict__.get("_spec_texts")
    if cached is None or cached[0] is not table:
        spec = table.spec
        spec_hash = "null" if spec.spec_hash is None else _string(spec.spec_hash)
        name = f',"machine":{_string(spec.name)}'
        cached = (table, name, f'"spec_hash":{spec_hash},"spec_version":{canonical(spec.version)}')
        cls._spec_texts = cached
    instance_id = machine._instance_id
    instance = "null" if instance_id is None else _string(instance_id)
    return f',"instance_id":{instance}{cached[1]}', cached[2]


def _counts(machine: Any) -> str:
    """The ``counts`` field: ``[[source, event, target, n], ...]`` for the counters above 0."""
    prefixes = _step_texts(machine)
    counts = machine._counts
    # The counters above 0 (a few of many, mostly) picked in C, not walked in Python.
    parts = [f"{prefixes[i]}{counts[i]}]" for i in _compress(range(len(counts)), counts)]
    return f"[{','.join(parts)}]"


def _step_texts(machine: Any) -> list[str]:
    """Per counter index, ``["source","event","target",`` (kept on the class, like the
    names of :meth:`_count_names`; a statechart's grow as it meets new steps)."""
    cls, table = type(machine), machine._spec_table
    cached = cls.__dict__.get("_step_texts")
    if cached is None or cached[0] is not table or len(cached[1]) != len(table.triples):
        texts = [
            f"[{_string(str(s))},{_string(str(e))},{_string(str(t))}," for s, e, t in table.triples
        ]
        cached = (table, texts)
        cls._step_texts = cached
    step_texts: list[str] = cached[1]
    return step_texts


def history_texts(
    machine: Any,
    triples: Sequence[tuple[Any, Any, Any]],
    raw: Sequence[RawRecord] | None,
    total: int,
    after: int,
    fingerprint: str,
) -> list[str]:
    """The canonical texts of the records :func:`~statewright._snapshot.history_json` builds,
    written from the step's encoded names (kept on the class); a record with anything unusual
    (a payload that is no flat dict of JSON scalars, an epoch, error or lateness of another
    type) is built and encoded as that function does."""
    newest = newest_records(raw, total, after)
    if not newest:
        return []
    count = len(newest)
    steps = _record_steps(machine)
    spec_hash = "" if fingerprint is None else f',"spec_hash":{_string(fingerprint)}'
    event_id = total - count
    texts = []
    for item in reversed(newest):
        event_id += 1
        epoch = item[1]
        size = len(item)
        payload_text: str | None = "{}"  # most records carry none
        if size > 2 and (type(item[2]) is not dict or item[2]):
            payload = _plain(item[2])
            payload_text = None if payload is None else canonical(payload)
        error = lateness = None
        written_under = spec_hash
        if size > 3:  # an error route's error, a timer's lateness, another spec's record
            error = item[3]
            if size > 4:
                lateness = item[4]
            if size > 5:
                written_under = "" if item[5] is None else f',"spec_hash":{_string(item[5])}'
        if (
            payload_text is None
            or type(epoch) is not _FLOAT
            or epoch - epoch != 0.0
            or (error is not None and type(error) is not str)
            or (lateness is not None and (type(lateness) is not _FLOAT or lateness - lateness))
        ):
            record = history_json(triples, [item], event_id, event_id - 1, fingerprint)[0]
            texts.append(canonical(record))
            continue
        event, source, target = steps[item[0]]
        error_text = "" if error is None else f'"error":{_string(error)},'
        lateness_text = "" if lateness is None else f'"lateness":{lateness!r},'
        texts.append(
            f'{{"epoch":{epoch!r},{error_text}"event":{event},"event_id":{event_id},'
            f'"from":{source},{lateness_text}"payload":{payload_text}{written_under},'
            f'"timestamp":"{_timestamp(epoch)}",'
            f'"to":{target}}}'
        )
    return texts


def _timestamp(epoch: float) -> str:
    """``statewright._history.format_timestamp(epoch)`` for a finite epoch, the text up to the
    seconds kept for the last second written (a save's records mostly share it): the
    microseconds are rounded as ``datetime.fromtimestamp`` rounds them (half to even)."""
    if epoch < 0.0:  # modf's parts would need datetime's other carry
        return _FROM_TIMESTAMP(epoch, _UTC).isoformat(timespec="microseconds")
    fraction, whole = _modf(epoch)
    micro = round(fraction * 1e6)
    if micro >= 1_000_000:
        micro -= 1_000_000
        whole += 1.0
    last = _SECOND[0]  # one read: another thread may replace it
    if last[0] != whole:
        last = _SECOND[0] = (whole, _FROM_TIMESTAMP(whole, _UTC).isoformat("T", "seconds")[:-6])
    return f"{last[1]}.{micro:06d}+00:00"


#: The last whole second :func:`_timestamp` wrote and its text (date and time of day), as one
#: tuple, so that threads never see one's second with another's text.
_SECOND: Final[list[tuple[float, str]]] = [(-1.0, "")]


def _record_steps(machine: Any) -> list[tuple[str, str, str]]:
    """Per step index, its event, source and target as JSON strings (kept on the class)."""
    cls, table = type(machine), machine._spec_table
    cached = cls.__dict__.get("_record_steps")
    if cached is None or cached[0] is not table or len(cached[1]) != len(table.triples):
        steps = [(_string(str(e)), _string(str(s)), _string(str(t))) for s, e, t in table.triples]
        cached = (table, steps)
        cls._record_steps = cached
    record_steps: list[tuple[str, str, str]] = cached[1]
    return record_steps


def own_text(machine: Any, after: int) -> OwnText:
    """What ``machine`` hands a built-in store for a save whose records are those above event id
    ``after``: the head's text and the records' (see the module)."""
    before, after_text, due = head_parts(machine)
    table = machine._spec_table
    total = machine.total_transitions
    records = history_texts(
        machine, table.triples, machine._history, total, after, table.spec.spec_hash
    )
    return OwnText(before, after_text, machine._revision, records, total, table.spec.name, due)

"""The strict snapshot decoder: a snapshot restores exactly what was saved, or raises.

Everything in a snapshot is checked before a machine is built, and the first problem found is a
:class:`SnapshotError` whose ``field`` names it (``history[3].epoch``):

* the document is JSON data (:mod:`statewright._jsondata`: finite numbers, string keys, bounded
  nesting) with exactly the documented keys, none missing, none unknown;
* every field has its exact type (``revision`` is an integer, not ``"7"``, ``7.0`` or ``true``)
  and range (counters and revisions from 0 to 2**63 - 1, epochs that a timestamp can show);
* states, events and ``(source, event, target)`` steps exist in the spec;
* the parts agree with each other: ``counts`` add up to ``total_transitions`` and describe a walk
  from the initial state to ``state``; ``previous`` is the source of the last step that changed
  state; the history is a path ending in ``state``, its event ids are consecutive up to
  ``total_transitions``, its steps are counted, and each timestamp is its epoch's
  (:mod:`statewright._snapshot_walk`);
* a record made under another spec than the machine's says which (its ``spec_hash``; a record
  from before fingerprints has none): the raw record keeps it as a sixth item.

The order of ``counts`` is not significant (a snapshot writes them in the spec's order).
Which formats and spec versions are accepted, and how older ones are upgraded, is
:mod:`statewright._snapshot_versions`. Imported where snapshots are restored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from statewright._clock import is_epoch
from statewright._errors import SnapshotError
from statewright._history import format_timestamp
from statewright._snapshot_walk import check_last, check_walk
from statewright._stores.protocol import is_instance_id

if TYPE_CHECKING:
    from statewright._chart_tables import ChartTables
    from statewright._table import Table

__all__ = ["MAX_COUNT", "MAX_KEY_LENGTH", "Decoded", "decode", "integer", "show"]

#: The largest revision or counter (SQLite's largest integer).
MAX_COUNT: Final = 2**63 - 1
KEYS: Final = frozenset(
    {
        "format",
        "machine",
        "spec_version",
        "spec_hash",
        "instance_id",
        "revision",
        "state",
        "previous",
        "total_transitions",
        "counts",
        "history",
        "context",
        "context_type",
        "idempotency_keys",
    }
)
#: The longest a timer may have been late (seconds): the clock rule's whole range.
MAX_LATENESS: Final = 9999 * 366 * 86400.0
#: The longest idempotency key (characters; statewright._idempotency.MAX_KEY_LENGTH).
MAX_KEY_LENGTH: Final = 200
RECORD_KEYS: Final = frozenset({"from", "event", "to", "timestamp", "epoch", "event_id", "payload"})


class Decoded:
    """A checked snapshot, in the machine's own terms (members, counter indexes, raw records)."""

    __slots__ = (
        "chart",
        "children",
        "context",
        "context_type",
        "counts",
        "history",
        "instance_id",
        "keys",
        "previous",
        "revision",
        "spec_changes",
        "state",
    )

    def __init__(
        self,
        state: Any,
        previous: Any,
        counts: list[int],
        history: list[tuple[Any, ...]],
        revision: int,
        instance_id: str,
        context: Any,
        context_type: str | None,
        keys: list[tuple[str, int]],
        chart: Any,
    ) -> None:
        self.state = state
        self.previous = previous
        self.counts = counts
        self.history = history
        self.revision = revision
        self.instance_id = instance_id
        self.context = context
        self.context_type = context_type
        self.keys = keys
        self.chart = chart

    state: Any
    previous: Any
    counts: list[int]
    history: list[tuple[Any, ...]]
    revision: int
    instance_id: str
    context: Any
    context_type: str | None
    #: ``(idempotency key, event id)`` pairs, oldest first.
    keys: list[tuple[str, int]]
    #: A statechart's :class:`~statewright._chart_state.ChartState` (None for a flat machine).
    chart: Any
    #: ``(the snapshot's recorded spec changes, (its spec version, its fingerprint))``: what
    #: :func:`statewright._snapshot_versions.spec_changes` records once the machine is built.
    spec_changes: tuple[Any, tuple[int, str | None]]
    #: A tree's checked children (:mod:`statewright._tree_snapshot`), set by the machine.
    children: Any


def decode(data: dict[str, Any], table: Table, chart_tables: ChartTables | None) -> Decoded:
    """Check every field of a prepared (and migrated) snapshot against ``table``.

    A statechart's snapshot has a ``chart`` field too (:mod:`statewright._chart_snapshot`); its
    counters and history name ``(state before, event, state after)`` per macrostep, which the
    class learns as it meets them, and its walk starts wherever the start's eventless
    transitions left it, so the walk check is the chart's configuration check instead. A
    machine with a data model has a ``data`` field, its fields' values
    (:mod:`statewright._data_values`)."""
    chart = chart_tables is not None
    keys = KEYS | {"chart"} if chart else KEYS
    if chart and table.spec.data is not None:  # a data model: a statechart's only
        keys = keys | {"data"}
    missing = sorted(keys - data.keys())
    if missing:
        raise SnapshotError("is missing", field=missing[0])
    unknown = sorted(data.keys() - keys)
    if unknown:
        raise SnapshotError("is not a snapshot field", field=unknown[0])
    _string(data, "spec_hash", "spec_hash")
    instance_id = _string(data, "instance_id", "instance_id")
    if not is_instance_id(instance_id):
        raise SnapshotError(f"{instance_id!r:.80} is not a valid instance id", field="instance_id")
    revision = integer(data, "revision", "revision", 0, MAX_COUNT)
    state = _state(table, _string(data, "state", "state"), "state")
    previous = data["previous"]
    if previous is not None:
        previous = _state(table, _string(data, "previous", "previous"), "previous")
    total = integer(data, "total_transitions", "total_transitions", 0, MAX_COUNT)
    counts = _counts(data["counts"], table, total)
    history = _history(data["history"], table, total, counts)
    chart_state = None
    if chart_tables is not None:
        from statewright._chart_snapshot import decode_chart

        values = None
        if table.spec.data is not None:
            from statewright._data_values import decode_data

            values = decode_data(data["data"], table.spec.data)
        chart_state = decode_chart(data["chart"], chart_tables, table, state, values)
        check_last(table, state, history)
    else:
        check_walk(table, counts, state, previous, history)
    context_type = data["context_type"]
    if context_type is not None:
        context_type = _string(data, "context_type", "context_type")
    applied_keys = _keys(data["idempotency_keys"], total)
    return Decoded(
        state=state,
        previous=previous,
        counts=counts,
        history=history,
        revision=revision,
        instance_id=instance_id,
        context=data["context"],
        context_type=context_type,
        keys=applied_keys,
        chart=chart_state,
    )


def _string(data: Mapping[str, Any], key: str, field: str) -> str:
    value = data[key]
    if type(value) is not str:
        raise SnapshotError(f"expected a string, got {show(value)}", field=field)
    return value


def integer(data: Mapping[str, Any], key: str, field: str, low: int, high: int) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise SnapshotError(f"expected an integer, got {show(value)}", field=field)
    if not low <= value <= high:
        raise SnapshotError(f"{value} is out of range ({low} to {high})", field=field)
    return value


def show(value: Any) -> str:
    kind = {
        type(None): "null",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }.get(type(value), "?")
    text = repr(value) if not isinstance(value, (list, dict)) else ""
    return f"{kind} {text:.60}".rstrip()


def _state(table: Table, value: str, field: str) -> Any:
    member = table.states_by_value.get(value)
    if member is None:
        raise SnapshotError(f"{value!r:.80} is not a state of {table.spec.name}", field=field)
    return member


def _step(table: Table, source: Any, event: Any, target: Any, field: str) -> int:
    """The counter index of a ``(source, event, target)`` step given as strings."""
    for value, kind in ((source, "from"), (event, "event"), (target, "to")):
        if type(value) is not str:
            raise SnapshotError(f"expected a string, got {show(value)}", field=f"{field}.{kind}")
    names = (table.states_by_value, table.events_by_value, table.states_by_value)
    members: Any = tuple(
        by_value.get(v) for by_value, v in zip(names, (source, event, target), strict=True)
    )
    index = None if None in members else table.counter_index.get(members)
    if index is None and None not in members and table.spec.chart is not None:
        index = table.learn_triple(members)
    if index is None:
        raise SnapshotError(
            f"{source} --{event}--> {target} is not a transition of {table.spec.name}", field=field
        )
    return index


def _counts(value: Any, table: Table, total: int) -> list[int]:
    if type(value) is not list:
        raise SnapshotError(f"expected an array, got {show(value)}", field="counts")
    indexes = []
    for i, entry in enumerate(value):
        field = f"counts[{i}]"
        if type(entry) is not list or len(entry) != 4:
            raise SnapshotError("expected [from, event, to, count]", field=field)
        indexes.append(_step(table, entry[0], entry[1], entry[2], field))
    counts = [0] * len(table.triples)
    for i, (entry, index) in enumerate(zip(value, indexes, strict=True)):
        field = f"counts[{i}]"
        n = integer({"n": entry[3]}, "n", f"{field}[3]", 1, MAX_COUNT)
        if counts[index]:
            raise SnapshotError("counts this transition a second time", field=field)
        counts[index] = n
    if sum(counts) != total:
        raise SnapshotError(
            f"the counts add up to {sum(counts)}, not total_transitions {total}", field="counts"
        )
    return counts


def _history(value: Any, table: Table, total: int, counts: list[int]) -> list[tuple[Any, ...]]:
    if type(value) is not list:
        raise SnapshotError(f"expected an array, got {show(value)}", field="history")
    if len(value) > total:
        raise SnapshotError(
            f"holds {len(value)} records but only {total} transitions happened", field="history"
        )
    first_id = total - len(value) + 1
    fingerprint = table.spec.spec_hash
    seen = [0] * len(counts)
    history: list[tuple[Any, ...]] = []
    previous_target: str | None = None
    for i, item in enumerate(value):
        field = f"history[{i}]"
        if type(item) is not dict:
            raise SnapshotError(f"expected an object, got {show(item)}", field=field)
        keys = item.keys() - {"error", "lateness", "spec_hash"}
        if keys != RECORD_KEYS:
            odd = sorted(RECORD_KEYS - keys) or sorted(keys - RECORD_KEYS)
            reason = "is missing" if RECORD_KEYS - keys else "is not a history field"
            raise SnapshotError(reason, field=f"{field}.{odd[0]}")
        index = _step(table, item["from"], item["event"], item["to"], field)
        if index >= len(counts):
            raise SnapshotError("is a transition the counts do not include", field=field)
        if previous_target is not None and item["from"] != previous_target:
            raise SnapshotError(
                f"starts in {item['from']} but the record before ended in {previous_target}",
                field=f"{field}.from",
            )
        previous_target = item["to"]
        seen[index] += 1
        if seen[index] > counts[index]:
            raise SnapshotError("is a transition the counts do not include", field=field)
        epoch = item["epoch"]
        if not is_epoch(epoch):
            raise SnapshotError(
                f"expected seconds since the epoch between 0001 and 9999, got {show(epoch)}",
                field=f"{field}.epoch",
            )
        epoch = float(epoch)
        if item["timestamp"] != format_timestamp(epoch):
            raise SnapshotError(
                f"{item['timestamp']!r:.60} is not the timestamp of epoch {epoch!r}",
                field=f"{field}.timestamp",
            )
        event_id = integer(item, "event_id", f"{field}.event_id", 1, MAX_COUNT)
        if event_id != first_id + i:
            raise SnapshotError(
                f"expected event id {first_id + i} (ids are consecutive and end "
                f"at total_transitions {total})",
                field=f"{field}.event_id",
            )
        payload = item["payload"]
        if type(payload) is not dict:
            raise SnapshotError(
                f"expected an object, got {show(payload)}", field=f"{field}.payload"
            )
        error = _string(item, "error", f"{field}.error") if "error" in item else None
        lateness = _lateness(item, f"{field}.lateness") if "lateness" in item else None
        written_under = _fingerprint(item, f"{field}.spec_hash")
        if written_under != fingerprint:  # made under another spec: the record says which
            history.append((index, epoch, payload, error, lateness, written_under))
        elif lateness is not None:
            history.append((index, epoch, payload, error, lateness))
        elif error is not None:
            history.append((index, epoch, payload, error))
        elif payload:
            history.append((index, epoch, payload))
        else:  # the layout a machine records (statewright._history.RawRecord)
            history.append((index, epoch))
    return history


def _fingerprint(item: Mapping[str, Any], field: str) -> str | None:
    """The fingerprint of the spec a record was made under; None: from before fingerprints."""
    value = item.get("spec_hash")
    if "spec_hash" in item and (type(value) is not str or not 0 < len(value) <= MAX_KEY_LENGTH):
        raise SnapshotError(f"expected a spec fingerprint, got {show(value)}", field=field)
    return value


def _lateness(item: Mapping[str, Any], field: str) -> float:
    """How late a timer fired: a finite number of seconds from 0 up to the epoch range."""
    value = item["lateness"]
    if type(value) not in (int, float) or not 0 <= value <= MAX_LATENESS:
        raise SnapshotError(f"expected seconds >= 0, got {show(value)}", field=field)
    return float(value)


def _keys(value: Any, total: int) -> list[tuple[str, int]]:
    """Idempotency keys: ``[key, event id]`` pairs, keys unique strings of 1 to
    :data:`MAX_KEY_LENGTH` characters, event ids rising and applied (1 to ``total``)."""
    if type(value) is not list:
        raise SnapshotError(f"expected an array, got {show(value)}", field="idempotency_keys")
    keys: list[tuple[str, int]] = []
    seen: set[str] = set()
    last = 0
    for i, entry in enumerate(value):
        field = f"idempotency_keys[{i}]"
        if type(entry) is not list or len(entry) != 2:
            raise SnapshotError("expected [key, event_id]", field=field)
        key = entry[0]
        if type(key) is not str or not 1 <= len(key) <= MAX_KEY_LENGTH or key in seen:
            raise SnapshotError(
                f"expected a key not used before, of 1 to {MAX_KEY_LENGTH} characters",
                field=f"{field}[0]",
            )
        event_id = integer({"n": entry[1]}, "n", f"{field}[1]", last + 1, total)
        seen.add(key)
        last = event_id
        keys.append((key, event_id))
    return keys

"""The decoder's trusted path: a snapshot the runtime wrote itself, under this very spec.

The strict decoder (:mod:`statewright._snapshot_decode`) checks every field of a snapshot
before a machine is built from it, because a snapshot may come from anywhere. One that a
built-in store read back under a checksum that matches was written by the runtime, which wrote
only what a run of the machine produced (``statewright._snapshot.own_store`` says when that
holds); and when it was written under this machine's spec version and fingerprint (nothing
migrated, no other spec's accepted), its states, events and steps are this spec's. Such a
snapshot is converted into the machine's terms without the checks that cannot fail for it
(exact key sets, value types and ranges, timestamps against epochs, counts against history,
the walk). A chart's part is decoded by :mod:`statewright._chart_snapshot` as always.

Anything that does not convert (a name this spec lacks, a value of the wrong shape: a text
someone rewrote together with its checksum) goes to the strict decoder, which names the field
in a :class:`SnapshotError`: the trusted path never ends in a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from statewright._snapshot_decode import Decoded, decode
from statewright._snapshot_versions import stable_timer_ids

if TYPE_CHECKING:
    from collections.abc import Callable

    from statewright._chart_state import ChartState
    from statewright._chart_tables import ChartTables
    from statewright._table import Table

__all__ = ["decode_own"]


def decode_own(data: dict[str, Any], table: Table, chart_tables: ChartTables | None) -> Decoded:
    """:func:`~statewright._snapshot_decode.decode` for a snapshot of the runtime's own under
    this spec (see the module): converted, not checked; the strict decoder's result for
    anything that does not convert. A chart's timers named by position (an older release
    wrote them so: :func:`~statewright._snapshot_versions.stable_timer_ids`) are no event of
    this spec, so they do not convert: renamed, then checked."""
    try:
        return _converted(data, table, chart_tables)
    except (LookupError, TypeError, ValueError, AttributeError):
        if chart_tables is not None:
            data = stable_timer_ids(data, chart_tables, table)
        return decode(data, table, chart_tables)


def _converted(data: dict[str, Any], table: Table, chart_tables: ChartTables | None) -> Decoded:
    states = table.states_by_value  # a name that is no string is no key either
    state = states[data["state"]]
    previous = data["previous"]
    if previous is not None:
        previous = states[previous]
    chart = chart_tables is not None
    entries = data["counts"]
    indexes = [_index(table, entry, chart) for entry in entries]  # a chart's may grow triples
    counts = [0] * len(table.triples)
    for index, entry in zip(indexes, entries, strict=True):
        count = entry[3]
        if type(count) is not int:
            raise TypeError("a count is an integer")
        counts[index] = count
    fingerprint = table.spec.spec_hash
    history = [_raw(table, item, chart, fingerprint) for item in data["history"]]
    context_type = data["context_type"]
    if context_type is not None and type(context_type) is not str:
        raise TypeError("a context type is a string")
    keys = data["idempotency_keys"]
    if keys or type(keys) is not list:  # an empty list is taken as it is
        keys = [(_string(key), _integer(event_id)) for key, event_id in keys]
    chart_state = None
    if chart_tables is not None:
        values = None
        model = table.spec.data
        if model is not None:
            from statewright._data_values import decode_data

            values = decode_data(data["data"], model)
        decode_chart = _chart_decoder()
        chart_state = decode_chart(data["chart"], chart_tables, table, state, values, own=True)
    revision, instance_id = data["revision"], data["instance_id"]
    if type(revision) is not int or type(instance_id) is not str:
        raise TypeError("a revision is an integer, an instance id a string")
    return Decoded(  # by position: a keyword call through the class builds a dict
        state, previous, counts, history, revision, instance_id, data["context"], context_type,
        keys, chart_state,
    )  # fmt: skip


#: statewright._chart_snapshot's ``decode_chart``, imported by the first chart restored and kept
#: (see statewright._restoring on imports inside functions): a flat machine never imports it.
_DECODE_CHART: Callable[..., tuple[ChartState, float]] | None = None


def _chart_decoder() -> Callable[..., tuple[ChartState, float]]:
    global _DECODE_CHART
    if _DECODE_CHART is None:
        from statewright._chart_snapshot import decode_chart

        _DECODE_CHART = decode_chart
    return _DECODE_CHART


def _integer(value: Any) -> int:
    if type(value) is not int:
        raise TypeError("expected an integer")
    return value


def _string(value: Any) -> str:
    if type(value) is not str:
        raise TypeError("expected a string")
    return value


def _number(value: Any) -> float:
    if type(value) is not float and type(value) is not int:
        raise TypeError("expected a number")
    return float(value)


def _index(table: Table, step: Any, chart: bool) -> int:
    """The counter index of a step (``[from, event, to, ...]``) named by its values."""
    states = table.states_by_value
    triple = (states[step[0]], table.events_by_value[step[1]], states[step[2]])
    index = table.counter_index.get(triple)
    if index is None:
        if not chart:  # a flat machine's steps are all known: not this spec's
            raise LookupError(triple)
        index = table.learn_triple(triple)
    return index


def _raw(table: Table, item: dict[str, Any], chart: bool, fingerprint: str) -> tuple[Any, ...]:
    """A history record as the machine keeps it (see ``_snapshot_decode._history``); the
    machine's spec is ``fingerprint``."""
    index = _index(table, (item["from"], item["event"], item["to"]), chart)
    epoch = item["epoch"]
    if type(epoch) is not float:
        epoch = _number(epoch)
    payload = item["payload"]
    if type(payload) is not dict:
        raise TypeError("a payload is an object")
    error = item.get("error")
    if error is not None:
        error = _string(error)
    lateness = item.get("lateness")
    if lateness is not None:
        lateness = _number(lateness)
    written_under = item.get("spec_hash")
    if written_under != fingerprint:  # made under another spec: the record says which
        return (index, epoch, payload, error, lateness, written_under)
    if lateness is not None:
        return (index, epoch, payload, error, lateness)
    if error is not None:
        return (index, epoch, payload, error)
    return (index, epoch, payload)

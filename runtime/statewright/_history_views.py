"""What a machine tells about its past, as plain functions of what it keeps: the retained history
records, the counters of every transition, and the statistics and seed-000 summary built from
them.

The records are kept raw (``(transition index, epoch[, payload[, error[, lateness]]])``) and become
:class:`~statewright.TransitionRecord` objects only when read, so the hot path never builds one;
:mod:`statewright._history`, which defines them as dataclasses, is imported on the first read.
The machine (:class:`~statewright._base.BaseMachine`) holds its reads under its read lock and
passes its table's ``triples`` (``(source, event, target)`` by counter index), the raw records
and the counters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported on first use at run time: see the module docstring
    from statewright._history import RawRecord, TransitionRecord

__all__ = [
    "fsm_record",
    "iteration_counts",
    "record",
    "record_type",
    "records",
    "statistics",
    "transition_counts",
    "transition_probabilities",
]

Triple = tuple[Any, Any, Any]

#: :class:`TransitionRecord`, imported by the first history read or listener call.
_RECORD_TYPE: type[TransitionRecord] | None = None


def record_type() -> type[TransitionRecord]:
    global _RECORD_TYPE
    if _RECORD_TYPE is None:
        from statewright._history import TransitionRecord

        _RECORD_TYPE = TransitionRecord
    return _RECORD_TYPE


def record(triples: Sequence[Triple], raw: RawRecord, event_id: int) -> TransitionRecord:
    """One raw record as the record object readers and listeners get."""
    source, event, target = triples[raw[0]]
    if len(raw) == 2:  # no payload
        return record_type()(source, event, target, raw[1], event_id, {})
    if len(raw) == 3:
        return record_type()(source, event, target, raw[1], event_id, raw[2])
    lateness = raw[4] if len(raw) > 4 else None
    return record_type()(source, event, target, raw[1], event_id, raw[2], raw[3], lateness)


def records(
    triples: Sequence[Triple], raw: Sequence[RawRecord] | None, total: int
) -> tuple[TransitionRecord, ...]:
    """The retained records, oldest first; ``total`` is the machine's transition count (the
    newest record's event id)."""
    if not raw:
        return ()
    first = total - len(raw) + 1
    return tuple(record(triples, item, first + i) for i, item in enumerate(raw))


def fsm_record(
    triples: Sequence[Triple], raw: Iterable[RawRecord], state: Any, last: TransitionRecord | None
) -> dict[str, Any]:
    """The seed-000 summary: state, ``"EVENT -> state"``, its timestamp and the history."""
    from statewright._history import format_timestamp

    return {
        "state": str(state),
        "last_transition": None if last is None else f"{last.event!s} -> {last.target!s}",
        "timestamp": None if last is None else last.timestamp,
        "history": [
            {
                "from": str(source),
                "event": str(event),
                "to": str(target),
                "timestamp": format_timestamp(item[1]),
            }
            for item in raw
            for source, event, target in (triples[item[0]],)
        ],
    }


def transition_counts(triples: Sequence[Triple], counts: Sequence[int]) -> dict[Triple, int]:
    """How often each ``(source, event, target)`` was taken (only non-zero entries)."""
    return {triples[i]: n for i, n in enumerate(counts) if n}


def iteration_counts(initial: Any, counts: dict[Triple, int]) -> dict[Any, int]:
    """Visits per state: entries by transitions (self-transitions count) plus the start."""
    visits: dict[Any, int] = {initial: 1}
    for (_, _, target), n in counts.items():
        visits[target] = visits.get(target, 0) + n
    return visits


def transition_probabilities(counts: dict[Triple, int]) -> dict[Any, dict[tuple[Any, Any], float]]:
    """Empirical ``P(event, target | source)`` from the counters."""
    out: dict[Any, dict[tuple[Any, Any], float]] = {}
    totals: dict[Any, int] = {}
    for (source, _, _), n in counts.items():
        totals[source] = totals.get(source, 0) + n
    for (source, event, target), n in counts.items():
        out.setdefault(source, {})[(event, target)] = n / totals[source]
    return out


def statistics(total: int, visits: dict[Any, int], counts: dict[Triple, int]) -> dict[str, Any]:
    """JSON-friendly summary of all counters."""
    return {
        "total_transitions": total,
        "visits": {str(s): n for s, n in visits.items()},
        "transitions": [
            {"from": str(s), "event": str(e), "to": str(t), "count": n}
            for (s, e, t), n in counts.items()
        ],
    }

"""What a machine tells about its past: the retained history records, the counters of every
transition, and the statistics and seed-000 summary built from them.

The records are kept raw (``(transition index, epoch, payload[, error[, lateness]])``) and become
:class:`~statewright.TransitionRecord` objects only when read, so the hot path never builds one;
:mod:`statewright._history`, which defines them as dataclasses, is imported on the first read.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from statewright._compat import StrEnum

if TYPE_CHECKING:  # imported on first use at run time: see the module docstring
    from statewright._history import RawRecord, TransitionRecord
    from statewright._locks import Lock
    from statewright._table import Table

__all__ = ["HistoryViews", "record_type"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)

#: :class:`TransitionRecord`, imported by the first history read or listener call.
_RECORD_TYPE: type[TransitionRecord] | None = None


class HistoryViews(Generic[S, E]):
    """History, counters and statistics of :class:`~statewright._core.MachineCore`."""

    if TYPE_CHECKING:  # set by MachineCore; not class annotations (get_type_hints reads those)
        _history: deque[RawRecord] | None
        _counts: list[int]
        _read_lock: Lock
        _spec_table: Table
        _state: S

    @property
    def total_transitions(self) -> int:
        """Transitions applied over the machine's whole life (survives snapshots)."""
        return sum(self._counts)

    @property
    def history(self) -> tuple[TransitionRecord, ...]:
        """The retained transitions, oldest first (at most ``options.history_limit``)."""
        with self._read_lock:
            raw = self._history
            if not raw:
                return ()
            first = self.total_transitions - len(raw) + 1
            return tuple(self._record(r, first + i) for i, r in enumerate(raw))

    @property
    def last_transition(self) -> TransitionRecord | None:
        with self._read_lock:
            raw = self._history
            if not raw:
                return None
            return self._record(raw[-1], self.total_transitions)

    def fsm_record(self) -> dict[str, Any]:
        """The seed-000 summary: state, ``"EVENT -> state"``, its timestamp and the history."""
        from statewright._history import format_timestamp

        with self._read_lock:
            last = self.last_transition
            return {
                "state": str(self._state),
                "last_transition": None if last is None else f"{last.event!s} -> {last.target!s}",
                "timestamp": None if last is None else last.timestamp,
                "history": [
                    {
                        "from": str(source),
                        "event": str(event),
                        "to": str(target),
                        "timestamp": format_timestamp(raw[1]),
                    }
                    for raw in (self._history or ())
                    for source, event, target in (self._spec_table.triples[raw[0]],)
                ],
            }

    def _record(self, raw: RawRecord, event_id: int) -> TransitionRecord:
        source, event, target = self._spec_table.triples[raw[0]]
        if len(raw) == 3:
            return record_type()(source, event, target, raw[1], event_id, raw[2])
        lateness = raw[4] if len(raw) > 4 else None
        return record_type()(source, event, target, raw[1], event_id, raw[2], raw[3], lateness)

    # ----------------------------------------------------------------- statistics

    def transition_counts(self) -> dict[tuple[S, E, S], int]:
        """How often each ``(source, event, target)`` was taken (only non-zero entries)."""
        triples = self._spec_table.triples
        with self._read_lock:
            return {triples[i]: n for i, n in enumerate(self._counts) if n}

    @property
    def iteration_counts(self) -> dict[S, int]:
        """Visits per state: entries by transitions (self-transitions count) plus the start."""
        spec = self._spec_table.spec
        visits: dict[S, int] = {spec.initial: 1}
        for (_, _, target), n in self.transition_counts().items():
            visits[target] = visits.get(target, 0) + n
        return visits

    def transition_probabilities(self) -> dict[S, dict[tuple[E, S], float]]:
        """Empirical ``P(event, target | source)`` from the counters."""
        out: dict[S, dict[tuple[E, S], float]] = {}
        totals: dict[S, int] = {}
        counts = self.transition_counts()
        for (source, _, _), n in counts.items():
            totals[source] = totals.get(source, 0) + n
        for (source, event, target), n in counts.items():
            out.setdefault(source, {})[(event, target)] = n / totals[source]
        return out

    def statistics(self) -> dict[str, Any]:
        """JSON-friendly summary of all counters."""
        return {
            "total_transitions": self.total_transitions,
            "visits": {str(s): n for s, n in self.iteration_counts.items()},
            "transitions": [
                {"from": str(s), "event": str(e), "to": str(t), "count": n}
                for (s, e, t), n in self.transition_counts().items()
            ],
        }


def record_type() -> type[TransitionRecord]:
    global _RECORD_TYPE
    if _RECORD_TYPE is None:
        from statewright._history import TransitionRecord

        _RECORD_TYPE = TransitionRecord
    return _RECORD_TYPE

"""What a statechart machine says about its pending timers, shared by both flavours.

Timers live in the chart's state (:class:`~statewright._chart_state.ChartState`) with absolute due
times by the machine's clock; ``fire_due`` (sync or async) takes the due ones out here, earliest
first, and sends each one's event through the machine's send path.
"""

from __future__ import annotations

from statewright._chart_state import ChartState, Pending  # at run time: class annotations name them

__all__ = ["ChartTimers"]


class ChartTimers:
    """Read-only views of the pending timers, and taking the next due one."""

    _chart: ChartState

    @property
    def pending_timers(self) -> dict[str, float]:
        """Each pending timer's id and due time (seconds since the epoch, the machine's clock)."""
        return {name: pending.due for name, pending in self._chart.timers.items()}

    @property
    def next_due(self) -> float | None:
        """When the earliest pending timer is due; None without one."""
        timers = self._chart.timers
        return min(pending.due for pending in timers.values()) if timers else None

    def _take_due(self, now: float) -> tuple[str, Pending] | None:
        """Remove and return the earliest timer due at ``now``; of timers due at the same time,
        the one started first (SCXML's external queue is first in, first out: events sent
        without a delay are due when sent)."""
        found: tuple[float, str] | None = None
        for name, pending in self._chart.timers.items():  # in the order they were started
            if pending.due <= now and (found is None or pending.due < found[0]):
                found = (pending.due, name)
        if found is None:
            return None
        return found[1], self._chart.timers.pop(found[1])

"""What a statechart machine says about its pending timers, shared by both flavours.

Timers live in the chart's state (:class:`~statewright._chart.ChartState`) with absolute due
times by the machine's clock; ``fire_due`` (sync or async) takes the due ones out here, earliest
first, and sends each one's event through the machine's send path.
"""

from __future__ import annotations

from statewright._chart import ChartState, Pending  # at run time: class annotations name them

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
        """Remove and return the earliest timer due at ``now`` (ties: by id)."""
        due = [(p.due, name) for name, p in self._chart.timers.items() if p.due <= now]
        if not due:
            return None
        _, name = min(due)
        return name, self._chart.timers.pop(name)

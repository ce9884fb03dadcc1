"""Firing due timers, for both flavours' ``fire_due``: the virtual-time rule and the bound.

**Virtual time.** A timer due at *t* fires with *t* as its macrostep's time, not the clock's
reading: the timers its transition starts are due at *t + delay*, and its history record's epoch
is *t* (its ``lateness`` says how much later ``fire_due`` ran). A ``fire_due(now)`` call is then
a simulation catching up with ``now``: a cycle of ``after`` timers stops where the next due time
passes ``now``, on a frozen test clock as on the real one, and fires exactly the timers a machine
that never slept would have fired, in the same order.

**The bound.** What never catches up (a timer that starts itself again with no delay, as a
self-transition re-entering a state whose entry sends an event with ``delay = "0s"`` does) is
cut after :data:`MAX_TIMER_FIRINGS` firings in one call: :class:`~statewright.TimerLoop` names
the ids that repeat. Each firing is its own committed transition, so what fired is kept and the
next due timer is still pending; the store driver saves it and releases its claim.

Imported by ``fire_due`` on first use: a machine that never fires timers does not load it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from statewright._chart import repeating
from statewright._errors import TimerLoop

if TYPE_CHECKING:
    from statewright._chart_state import ChartState, Pending

__all__ = ["MAX_TIMER_FIRINGS", "Firing"]

#: Timers one ``fire_due`` call fires at most before it raises :class:`TimerLoop`.
MAX_TIMER_FIRINGS: Final = 10_000
#: How many of the last ids fired the error looks at for the cycle.
_RECENT: Final = 64


class Firing:
    """One ``fire_due`` call: the timers due at ``at``, earliest first, counted."""

    __slots__ = ("at", "count", "recent")

    def __init__(self, at: float) -> None:
        self.at = at
        self.count = 0
        self.recent: list[str] = []

    def next(self, chart: ChartState | None) -> Pending | None:
        """Remove and return the next timer to fire (None when none is due at ``at``); raise
        :class:`TimerLoop`, leaving it pending, when the call already fired its bound."""
        timer_id = None if chart is None else chart.earliest_due(self.at)
        if timer_id is None:
            return None
        assert chart is not None  # for mypy: an id was found in it
        if self.count >= MAX_TIMER_FIRINGS:
            raise TimerLoop(self.count, repeating(self.recent[-_RECENT:]))
        self.count += 1
        self.recent.append(timer_id)
        if len(self.recent) > 2 * _RECENT:
            del self.recent[:_RECENT]
        return chart.timers.pop(timer_id)

    def lateness(self, timer: Pending) -> float:
        """How late ``timer`` fires: the call's time minus its due time, in seconds."""
        return max(0.0, self.at - timer.due)

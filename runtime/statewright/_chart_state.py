"""What changes as a statechart runs: active states, history memory, queued events, timers.

A macrostep works on a copy of the :class:`ChartState`, kept only when the whole macrostep
succeeded (the engine, :mod:`statewright._chart`, asks for user code through
:mod:`statewright._requests` meanwhile).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["ChartState", "Microstep", "Pending"]

#: ``(event member, or None for eventless transitions; indexes of the transitions taken)``.
Microstep = tuple[Any, tuple[int, ...]]


class Pending:
    """A timer waiting to send ``event``: its absolute ``due`` time (the machine's clock, seconds
    since the epoch), the ``delay`` it was started with and its restore policy."""

    __slots__ = ("delay", "due", "event", "on_restore")

    def __init__(self, event: Any, due: float, delay: float, on_restore: str) -> None:
        self.event = event
        self.due = due
        self.delay = delay
        self.on_restore = on_restore

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pending) and (
            (self.event, self.due, self.delay, self.on_restore)
            == (other.event, other.due, other.delay, other.on_restore)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Pending({self.event!r}, due={self.due!r}, delay={self.delay!r})"


class ChartState:
    """What changes as a chart runs: active states, history memory, the internal queue and the
    pending timers by id. ``clock`` is the machine's; :meth:`time` reads it once per macrostep,
    when something first needs the time (a timer, an action, the history record), so that a
    macrostep that only evaluates guards reads no clock."""

    __slots__ = ("active", "clock", "finished", "memory", "now", "queue", "selected", "timers")

    def __init__(
        self,
        active: Iterable[int] = (),
        memory: Mapping[int, tuple[int, ...]] | None = None,
        queue: Iterable[tuple[Any, Mapping[str, Any]]] = (),
        finished: bool = False,
        timers: Mapping[str, Pending] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.active: set[int] = set(active)
        self.memory: dict[int, tuple[int, ...]] = dict(memory or {})
        self.queue: deque[tuple[Any, Mapping[str, Any]]] = deque(queue)
        self.finished = finished
        self.timers: dict[str, Pending] = dict(timers or {})
        self.clock = clock
        self.now: float | None = None
        #: The transitions of each microstep this macrostep began (kept when one fails).
        self.selected: list[tuple[int, ...]] = []

    def next_due(self) -> float:
        """When the earliest pending timer is due (there is one)."""
        return min(pending.due for pending in self.timers.values())

    def earliest_due(self, now: float) -> str | None:
        """The id of the earliest timer due at ``now``; of timers due at the same time, the one
        started first (SCXML's external queue is first in, first out: events sent without a
        delay are due when sent)."""
        found: tuple[float, str] | None = None
        for name, pending in self.timers.items():  # in the order they were started
            if pending.due <= now and (found is None or pending.due < found[0]):
                found = (pending.due, name)
        return None if found is None else found[1]

    def copy(self, now: float | None = None) -> ChartState:
        """A copy for the next macrostep, which runs at ``now`` (a timer's due time) or else
        reads the clock afresh."""
        copied = ChartState(
            self.active, self.memory, self.queue, self.finished, self.timers, self.clock
        )
        copied.now = now
        return copied

    def time(self) -> float:
        """This macrostep's time: the clock read on first use."""
        if self.now is None:
            assert self.clock is not None, "the machine gives its chart state a clock"
            self.now = self.clock()
        return self.now

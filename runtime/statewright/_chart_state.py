"""What changes as a statechart runs, and how its engine asks the machine for user code.

The engine (:mod:`statewright._chart`) calls no handler itself: it yields requests (a guard to
evaluate, an action to run, a log line, a delay to compute) and the machine driving it sends the
answer back, a :class:`Failure` when the handler raised. A macrostep works on a copy of the
:class:`ChartState`, kept only when the whole macrostep succeeded.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any, Final

__all__ = [
    "ACTION",
    "DELAY",
    "GUARD",
    "LOG",
    "ChartState",
    "Failure",
    "Microstep",
    "Pending",
    "Request",
    "Steps",
]

#: Requests the engine yields to the machine driving it.
GUARD: Final = "guard"
ACTION: Final = "action"
LOG: Final = "log"
#: ``(DELAY, handler, payload)``: call the delay handler, send back its seconds.
DELAY: Final = "delay"

#: ``(GUARD, guard, payload)``, ``(ACTION, name, payload)`` or ``(LOG, label, text)``.
Request = tuple[str, Any, Any]
#: ``(event member, or None for eventless transitions; indexes of the transitions taken)``.
Microstep = tuple[Any, tuple[int, ...]]
Steps = Generator[Request, Any, None]


class Failure:
    """What the driver sends back when the guard or action it ran raised ``error``."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


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

    def copy(self) -> ChartState:
        """A copy for the next macrostep (which reads the clock afresh)."""
        return ChartState(
            self.active, self.memory, self.queue, self.finished, self.timers, self.clock
        )

    def time(self) -> float:
        """This macrostep's time: the clock read on first use."""
        if self.now is None:
            assert self.clock is not None, "the machine gives its chart state a clock"
            self.now = self.clock()
        return self.now

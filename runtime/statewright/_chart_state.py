"""What changes as a statechart runs: active states, history memory, queued events, timers,
the data model's part (:class:`~statewright._data_state.DataState`) when the chart has one, and
the child machines it runs when it invokes some (:class:`InvokingChartState`).

A macrostep works on a copy of the :class:`ChartState`, kept only when the whole macrostep
succeeded (the engine, :mod:`statewright._chart`, asks for user code through requests
meanwhile); :meth:`ChartState.rollback` undoes a discarded copy's assignments to the data. So a
kept state's ``active`` set and ``memory`` dict are never changed again: a machine whose event
needs no copy (:mod:`statewright._chart_plans`) replaces them with its configuration's, which
every machine in that configuration shares.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statewright._data_state import DataState
    from statewright._event_info import EventInfo

__all__ = [
    "NO_CHILDREN",
    "ChartState",
    "Child",
    "Configuration",
    "InvokingChartState",
    "Message",
    "Microstep",
    "ModelChartState",
    "Pending",
    "PlannedEntry",
    "Queued",
]

#: ``(event member, or None for eventless transitions; indexes of the transitions taken)``.
Microstep = tuple[Any, tuple[int, ...]]
#: An internal event: ``(member, the payload handlers get, its _event)``; the ``_event`` is
#: None in a chart without data-model content, which never reads one.
Queued = tuple[Any, Mapping[str, Any], "EventInfo[Any] | None"]
#: A child machine a state invoked: ``(state index, invoke index in that state, the running
#: child machine)``, the machine None once the child finished or failed to start (the invoke
#: stays the state's until the state is left).
Child = tuple[int, int, Any]
#: The children of a chart that runs none. Never changed: a chart replaces its mapping of
#: children whenever one starts or ends (copy on write), so copies for macrosteps share it.
NO_CHILDREN: Mapping[str, Child] = {}


class Pending:
    """A timer waiting to send ``event``: its absolute ``due`` time (the machine's clock, seconds
    since the epoch), the ``delay`` it was started with and its restore policy; in a chart with
    a data model, the event's ``data`` (what a send computed) and its ``sendid`` (None when the
    send named no id: SCXML leaves ``_event.sendid`` blank then)."""

    __slots__ = ("data", "delay", "due", "event", "on_restore", "sendid")

    def __init__(
        self,
        event: Any,
        due: float,
        delay: float,
        on_restore: str,
        data: Any = None,
        sendid: str | None = None,
    ) -> None:
        self.event = event
        self.due = due
        self.delay = delay
        self.on_restore = on_restore
        self.data = data
        self.sendid = sendid

    @property
    def payload(self) -> dict[str, Any]:
        """What handlers get when it fires: its data when that is a dict (its params)."""
        data = self.data
        return data if type(data) is dict else {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pending) and (
            (self.event, self.due, self.delay, self.on_restore, self.data, self.sendid)
            == (other.event, other.due, other.delay, other.on_restore, other.data, other.sendid)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.event!r}, due={self.due!r}, delay={self.delay!r})"


class Message(Pending):
    """An event between two machines of a tree (a parent and the children it invoked), waiting
    on a machine's external queue like a timer. *Outgoing*, it waits in its sender for its due
    time with its ``target`` (``"#_parent"`` or ``"#_<invokeid>"``); *received*, it waits in its
    receiver with its ``origin`` (the sender's ``#_scxml_<session>``), the ``invokeid`` of the
    child that sent it (None from the parent) and its full ``name`` when the receiver knows it by
    a shorter one (``done.invoke`` for ``done.invoke.worker``). An outgoing message's ``event``
    may be a name (its receiver's event of that name is looked up when it is delivered)."""

    __slots__ = ("invokeid", "name", "origin", "target")

    def __init__(
        self,
        event: Any,
        due: float,
        delay: float,
        on_restore: str = "fire",
        data: Any = None,
        sendid: str | None = None,
        *,
        target: str | None = None,
        origin: str | None = None,
        invokeid: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(event, due, delay, on_restore, data, sendid)
        self.target = target
        self.origin = origin
        self.invokeid = invokeid
        self.name = name

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Message)
            and super().__eq__(other)
            and (self.target, self.origin, self.invokeid, self.name)
            == (other.target, other.origin, other.invokeid, other.name)
        )


#: A planned event's entry in its configuration's fast row: ``(event, target, the next
#: configuration's row, counter index, whether it moves, the next configuration)``, a flat
#: machine's fast entry and the configuration the event leads to (or the entry of an event
#: that is not planned: statewright._table.UNPLANNED).
PlannedEntry = tuple[Any, Any, "dict[Any, PlannedEntry]", int, bool, "Configuration | None"]


class Configuration:
    """One configuration of a chart, interned by its engine (:mod:`statewright._chart_plans`):
    its active states and history memory (shared by every chart state in it, never changed), the
    leaf a machine in it reports, the fast row of its planned events, and what was worked out
    for each event met there (``(target, next configuration)``, or None: the algorithm's)."""

    __slots__ = ("active", "memory", "plans", "reported", "row")

    def __init__(self, active: set[int], memory: dict[int, tuple[int, ...]], reported: Any) -> None:
        self.active = active
        self.memory = memory
        self.reported = reported
        self.row: dict[Any, PlannedEntry] = {}
        self.plans: dict[Any, tuple[Any, Configuration] | None] = {}


class ChartState:
    """What changes as a chart runs: active states, history memory, the internal queue and the
    pending timers by id. ``clock`` is the machine's; :meth:`time` reads it once per macrostep,
    when something first needs the time (a timer, an action, the history record), so that a
    macrostep that only evaluates guards reads no clock. A chart with data-model content runs a
    :class:`ModelChartState` (its ``model``), so that every other chart's copies cost what they
    did."""

    __slots__ = (
        "active",
        "clock",
        "config",
        "finished",
        "memory",
        "now",
        "queue",
        "result",
        "selected",
        "timers",
    )

    #: The data model's part (see :class:`ModelChartState`): None here.
    model: DataState | None = None
    #: The child machines by invoke id (see :class:`InvokingChartState`): none here.
    children: Mapping[str, Child] = NO_CHILDREN
    #: The done data of the top-level final state the chart finished in (what a parent's
    #: ``done.invoke`` carries): set only then, read with ``getattr(state, "result", None)``.
    result: Any

    def __init__(
        self,
        active: Iterable[int] = (),
        memory: Mapping[int, tuple[int, ...]] | None = None,
        queue: Iterable[Queued] = (),
        finished: bool = False,
        timers: Mapping[str, Pending] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.active: set[int] = set(active)
        self.memory: dict[int, tuple[int, ...]] = dict(memory or {})
        self.queue: deque[Queued] = deque(queue)
        self.finished = finished
        self.timers: dict[str, Pending] = dict(timers or {})
        self.clock = clock
        self.now: float | None = None
        #: The transitions of each microstep this macrostep began (kept when one fails).
        self.selected: list[tuple[int, ...]] = []
        #: The configuration these sets are (statewright._chart_plans), once an engine has
        #: looked it up; a copy's is looked up again.
        self.config: Configuration | None = None

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

    def rollback(self) -> None:
        """Undo what this copy assigned to the machine's data (it is being discarded)."""
        model = self.model
        if model is not None:
            model.rollback()

    def time(self) -> float:
        """This macrostep's time: the clock read on first use."""
        if self.now is None:
            assert self.clock is not None, "the machine gives its chart state a clock"
            self.now = self.clock()
        return self.now


class ModelChartState(ChartState):
    """The running state of a chart with data-model content: a :class:`ChartState` and the
    data model's part (:class:`~statewright._data_state.DataState`: the data, shared by every
    copy, and the copy's journal of assignments)."""

    __slots__ = ("model",)

    model: DataState

    def __init__(
        self,
        model: DataState,
        active: Iterable[int] = (),
        memory: Mapping[int, tuple[int, ...]] | None = None,
        queue: Iterable[Queued] = (),
        finished: bool = False,
        timers: Mapping[str, Pending] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        # ChartState.__init__'s body, not a call of it: a copy is made for every event
        self.active = set(active)
        self.memory = dict(memory or {})
        self.queue = deque(queue)
        self.finished = finished
        self.timers = dict(timers or {})
        self.clock = clock
        self.now = None
        self.selected = []
        self.config = None
        self.model = model

    def copy(self, now: float | None = None) -> ModelChartState:
        """A copy for the next macrostep (see :meth:`ChartState.copy`): the same data, a journal
        of its own."""
        copied = ModelChartState(
            self.model.copy(),
            self.active,
            self.memory,
            self.queue,
            self.finished,
            self.timers,
            self.clock,
        )
        copied.now = now
        return copied


class InvokingChartState(ModelChartState):
    """The running state of a chart whose states invoke child machines: a
    :class:`ModelChartState` with its ``children`` (a mapping replaced, never changed, when one
    starts or ends, so that a macrostep's copy shares it and a discarded copy keeps the
    children it had) and the states whose invokes start at the end of this macrostep
    (``to_invoke``, SCXML's ``statesToInvoke``)."""

    __slots__ = ("children", "to_invoke")

    children: Mapping[str, Child]
    to_invoke: list[int]

    def __init__(
        self,
        model: DataState,
        active: Iterable[int] = (),
        memory: Mapping[int, tuple[int, ...]] | None = None,
        queue: Iterable[Queued] = (),
        finished: bool = False,
        timers: Mapping[str, Pending] | None = None,
        clock: Callable[[], float] | None = None,
        children: Mapping[str, Child] = NO_CHILDREN,
    ) -> None:
        ModelChartState.__init__(self, model, active, memory, queue, finished, timers, clock)
        self.children = children
        self.to_invoke = []

    def copy(self, now: float | None = None) -> InvokingChartState:
        """A copy for the next macrostep (see :meth:`ModelChartState.copy`), sharing the
        children's mapping."""
        copied = InvokingChartState(
            self.model.copy(),
            self.active,
            self.memory,
            self.queue,
            self.finished,
            self.timers,
            self.clock,
            self.children,
        )
        copied.now = now
        return copied

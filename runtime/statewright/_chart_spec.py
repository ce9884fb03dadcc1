"""The statechart part of a :class:`~statewright.MachineSpec`: what a generated module describes
when its spec nests states, runs regions in parallel, keeps history, has eventless transitions or
raises events.

Nodes and transitions are numbered in document order, the order SCXML's algorithm breaks ties by;
every reference between them is an index. Top-level states have parent ``-1`` (the chart's root,
which is not a node). Only atomic and final states are members of the machine's state enum; a
compound or parallel state is known by its name (the generated module gives each a frozenset of
the leaf states below it). Like the other spec values these are plain slotted classes: a
generated module builds them while it is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any, Final

from statewright._content_spec import Cancel, Log, Raise, Send, Step
from statewright._data_spec import Expression
from statewright._frozen import FrozenValue

__all__ = [
    "ATOMIC",
    "COMPOUND",
    "DEEP_HISTORY",
    "ERROR_ROUTE",
    "FINAL",
    "MAX_DELAY",
    "PARALLEL",
    "SHALLOW_HISTORY",
    "Cancel",
    "Chart",
    "ChartGuard",
    "ChartNode",
    "ChartTransition",
    "Invoke",
    "Log",
    "Raise",
    "Send",
    "Step",
]

ATOMIC: Final = "atomic"
COMPOUND: Final = "compound"
PARALLEL: Final = "parallel"
FINAL: Final = "final"
SHALLOW_HISTORY: Final = "shallow"
DEEP_HISTORY: Final = "deep"
#: The longest delay a timer may have, in seconds: ten years, the compiler's limit for a spec's
#: delays, which the runtime holds delay handlers' answers and snapshots to as well.
MAX_DELAY: Final = 10 * 365 * 24 * 3600.0

_set = object.__setattr__


class _ErrorRoute:
    """The marker an error handler's transition takes (see :data:`ERROR_ROUTE`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ERROR_ROUTE"

    def __reduce__(self) -> str:
        return "ERROR_ROUTE"


#: What an error handler's transition is taken on: when an action fails (``on_error = "raise"``)
#: the machine drops the macrostep and sends this instead, from where it was. No event equals it.
ERROR_ROUTE: Final = _ErrorRoute()


#: ``guard(handlers, context, payload, active)``: ``active`` holds the active states' indexes.
ChartGuard = Callable[[Any, Any, Any, Container[int]], bool]


class Invoke(FrozenValue):
    """A child machine a state runs while it is active (SCXML's ``<invoke>``): started after the
    state is entered, cancelled when it is left. ``machine()`` returns the child's generated
    machine class and ``async_machine()`` its asyncio sibling (functions, so that a child module
    is imported when a child first starts, and a chart may invoke itself). ``id`` is the invoke
    id; "" makes one up (``<state name>.<16 hex digits>``), stored in the data field
    ``id_location`` when one is given. ``params`` computes the child's initial data (a dict of
    its field names; its ``param`` and ``namelist``); ``autoforward`` sends the child every
    external event the parent processes; ``finalize`` runs on every event from the child before
    the parent processes it. ``handlers`` turns the parent's handlers object into the child's
    (None: the child gets the parent's object itself); the child shares the parent's
    context."""

    __match_args__ = (
        "machine",
        "async_machine",
        "id",
        "id_location",
        "params",
        "autoforward",
        "finalize",
        "handlers",
    )
    __slots__ = __match_args__

    machine: Callable[[], Any]
    async_machine: Callable[[], Any]
    id: str
    id_location: str | None
    params: Expression | None
    autoforward: bool
    finalize: tuple[Step, ...]
    handlers: Callable[[Any], Any] | None

    def __init__(
        self,
        machine: Callable[[], Any],
        async_machine: Callable[[], Any],
        id: str = "",  # SCXML's name for it
        id_location: str | None = None,
        params: Expression | None = None,
        autoforward: bool = False,
        finalize: tuple[Step, ...] = (),
        handlers: Callable[[Any], Any] | None = None,
    ) -> None:
        _set(self, "machine", machine)
        _set(self, "async_machine", async_machine)
        _set(self, "id", id)
        _set(self, "id_location", id_location)
        _set(self, "params", params)
        _set(self, "autoforward", autoforward)
        _set(self, "finalize", finalize)
        _set(self, "handlers", handlers)


class ChartNode(FrozenValue):
    """A state of the chart: atomic, compound, parallel, final, or a history pseudo-state."""

    __match_args__ = (
        "name",
        "kind",
        "parent",
        "member",
        "initial",
        "initial_steps",
        "entry",
        "exit",
        "default",
        "default_steps",
        "timers",
        "done",
        "data_steps",
        "donedata",
        "invokes",
    )
    __slots__ = __match_args__

    name: str
    kind: str
    parent: int
    #: The state enum member (atomic and final states only).
    member: Any
    #: A compound state's initial children (the targets of its initial transition).
    initial: tuple[int, ...]
    initial_steps: tuple[Step, ...]
    entry: tuple[Step, ...]
    exit: tuple[Step, ...]
    #: A history state's default targets, used while it remembers nothing.
    default: tuple[int, ...]
    default_steps: tuple[Step, ...]
    #: ``after`` timers: started when the state is entered, cancelled when it is left.
    timers: tuple[Send, ...]
    #: The ``done.state.<id>`` event member raised when this compound or parallel state
    #: completes (``None`` when the spec has no use for it).
    done: Any
    #: The state's own data fields' initializers (``Assign`` steps): run at start (early
    #: binding) or when the state is first entered (late binding).
    data_steps: tuple[Step, ...]
    #: A final state's done data: what its parent's ``done.state`` event carries.
    donedata: Expression | None
    #: The child machines the state runs while it is active, in document order.
    invokes: tuple[Invoke, ...]

    def __init__(
        self,
        name: str,
        kind: str,
        parent: int = -1,
        member: Any = None,
        initial: tuple[int, ...] = (),
        initial_steps: tuple[Step, ...] = (),
        entry: tuple[Step, ...] = (),
        exit: tuple[Step, ...] = (),
        default: tuple[int, ...] = (),
        default_steps: tuple[Step, ...] = (),
        timers: tuple[Send, ...] = (),
        done: Any = None,
        data_steps: tuple[Step, ...] = (),
        donedata: Expression | None = None,
        invokes: tuple[Invoke, ...] = (),
    ) -> None:
        _set(self, "name", name)
        _set(self, "kind", kind)
        _set(self, "parent", parent)
        _set(self, "member", member)
        _set(self, "initial", initial)
        _set(self, "initial_steps", initial_steps)
        _set(self, "entry", entry)
        _set(self, "exit", exit)
        _set(self, "default", default)
        _set(self, "default_steps", default_steps)
        _set(self, "timers", timers)
        _set(self, "done", done)
        _set(self, "data_steps", data_steps)
        _set(self, "donedata", donedata)
        _set(self, "invokes", invokes)


class ChartTransition(FrozenValue):
    """A transition of the chart. ``events`` are the event members it takes (the compiler
    resolved the spec's SCXML descriptors against the declared events); none means eventless.
    No targets means a targetless transition (its steps run, no state is left or entered).
    ``then`` runs after the targets were entered. A guard is called with the active states'
    indexes as a fourth argument (for ``in(state)``)."""

    __match_args__ = (
        "source",
        "events",
        "guard",
        "targets",
        "internal",
        "steps",
        "then",
        "checkpoint",
        "cond",
    )
    __slots__ = __match_args__

    source: int
    events: frozenset[Any]
    guard: ChartGuard | None
    targets: tuple[int, ...]
    internal: bool
    steps: tuple[Step, ...]
    then: tuple[Step, ...]
    checkpoint: bool
    #: The spec's ``cond``, compiled: tested before ``guard`` (a handler guard), both must hold.
    cond: Expression | None

    def __init__(
        self,
        source: int,
        events: frozenset[Any] = frozenset(),
        guard: ChartGuard | None = None,
        targets: tuple[int, ...] = (),
        internal: bool = False,
        steps: tuple[Step, ...] = (),
        then: tuple[Step, ...] = (),
        checkpoint: bool = False,
        cond: Expression | None = None,
    ) -> None:
        _set(self, "source", source)
        _set(self, "events", events)
        _set(self, "guard", guard)
        _set(self, "targets", targets)
        _set(self, "internal", internal)
        _set(self, "steps", steps)
        _set(self, "then", then)
        _set(self, "checkpoint", checkpoint)
        _set(self, "cond", cond)


class Chart(FrozenValue):
    """The whole chart: nodes and transitions in document order, the root's initial targets
    and its executable content, and what an error in a guard or an action does: ``"raise"``
    (the event is not applied: ``GuardFailed``/``ActionFailed``) or ``"event"`` (SCXML's
    ``error.execution`` internal event)."""

    __match_args__ = ("nodes", "transitions", "initial", "initial_steps", "on_error", "data_steps")
    __slots__ = __match_args__

    nodes: tuple[ChartNode, ...]
    transitions: tuple[ChartTransition, ...]
    initial: tuple[int, ...]
    initial_steps: tuple[Step, ...]
    on_error: str
    #: The machine's own data fields' initializers (``Assign`` steps), run at start.
    data_steps: tuple[Step, ...]

    def __init__(
        self,
        nodes: tuple[ChartNode, ...],
        transitions: tuple[ChartTransition, ...],
        initial: tuple[int, ...],
        initial_steps: tuple[Step, ...] = (),
        on_error: str = "raise",
        data_steps: tuple[Step, ...] = (),
    ) -> None:
        _set(self, "nodes", nodes)
        _set(self, "transitions", transitions)
        _set(self, "initial", initial)
        _set(self, "initial_steps", initial_steps)
        _set(self, "on_error", on_error)
        _set(self, "data_steps", data_steps)

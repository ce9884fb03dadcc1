"""The compiled machine: frozen dataclasses built once by ``validate`` and read by every renderer.

Renderers (the Python module, Markdown docs, Mermaid and Graphviz diagrams) see only this model,
never the raw TOML, so every name in it is already checked and every derived identifier computed.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

__all__ = [
    "PREVIOUS_TARGET",
    "And",
    "CancelStep",
    "ErrorHandler",
    "Event",
    "GuardCall",
    "GuardExpression",
    "Import",
    "InState",
    "LiteralValue",
    "LogStep",
    "Machine",
    "MetadataValue",
    "Not",
    "Or",
    "PayloadField",
    "PayloadType",
    "RaiseStep",
    "Rule",
    "SendStep",
    "SourceSelector",
    "State",
    "StateKind",
    "Step",
    "Transition",
    "action_names",
    "imported_names_used",
]

#: How a spec writes "the state before we entered the source state" as a target.
PREVIOUS_TARGET = "<previous>"

#: A metadata value as written in TOML: text, a number, a flag, or a list of those.
MetadataValue = str | int | float | bool | tuple["MetadataValue", ...]


class StateKind(enum.Enum):
    NORMAL = "normal"
    FINAL = "final"
    ERROR = "error"
    WAIT = "wait"
    PARALLEL = "parallel"
    HISTORY = "history"


@dataclass(frozen=True)
class RaiseStep:
    """Executable content: put ``event`` (an event's name) on the internal queue (charts)."""

    event: str


@dataclass(frozen=True)
class LogStep:
    """Executable content: log ``text`` under ``label`` (SCXML's ``<log>``; charts)."""

    text: str
    label: str = ""


@dataclass(frozen=True)
class SendStep:
    """Executable content: send ``event`` to the machine after a delay (SCXML's ``<send delay>``):
    ``delay`` seconds, or what the handler ``delay_handler`` returns. ``id`` names the timer for
    :class:`CancelStep`; ``on_restore`` is what a restored machine does with it."""

    event: str
    id: str
    delay: float | None = None
    delay_handler: str | None = None
    on_restore: str = "fire"


@dataclass(frozen=True)
class CancelStep:
    """Executable content: cancel the pending timer ``id`` (SCXML's ``<cancel>``)."""

    id: str


#: One piece of executable content: a handler action's name, a raise, a log, a delayed send or
#: a cancel.
Step = str | RaiseStep | LogStep | SendStep | CancelStep


def action_names(steps: Iterable[Step]) -> tuple[str, ...]:
    """The handler actions among ``steps``, in order: what the handlers object must define."""
    return tuple(step for step in steps if isinstance(step, str))


@dataclass(frozen=True)
class State:
    name: str
    """The key in ``[states]``: a Python identifier."""
    value: str
    """The enum member's string value (what snapshots and logs store); defaults to ``name``."""
    label: str
    """Display text for docs and diagrams; defaults to ``value``."""
    member: str
    """The Python enum member name, ``name.upper()``."""
    description: str
    kind: StateKind
    tags: tuple[str, ...]
    entry: tuple[Step, ...]
    exit: tuple[Step, ...]
    metadata: tuple[tuple[str, MetadataValue], ...]
    line: int
    parent: str | None = None
    """The enclosing compound or parallel state (charts); None at the top level."""
    children: tuple[str, ...] = ()
    """Child states in document order, history states included."""
    initial: tuple[str, ...] = ()
    """A compound state's default targets (its first child unless the spec names others)."""
    initial_steps: tuple[Step, ...] = ()
    history: str = ""
    """``"shallow"`` or ``"deep"`` for a history pseudo-state."""
    default: tuple[str, ...] = ()
    """A history state's targets while it remembers nothing."""
    default_steps: tuple[Step, ...] = ()
    timers: tuple[SendStep, ...] = ()
    """The state's ``after`` timers: started when it is entered, cancelled when it is left."""

    @property
    def is_final(self) -> bool:
        return self.kind is StateKind.FINAL

    @property
    def is_leaf(self) -> bool:
        """An atomic or final state: a member of the state enum."""
        return not self.children and self.kind is not StateKind.HISTORY

    @property
    def is_compound(self) -> bool:
        return bool(self.children) and self.kind is not StateKind.PARALLEL

    @property
    def entry_actions(self) -> tuple[str, ...]:
        return action_names(self.entry)

    @property
    def exit_actions(self) -> tuple[str, ...]:
        return action_names(self.exit)


@dataclass(frozen=True)
class Import:
    """``from module import name``, declared in ``[imports]`` so payload types may use ``name``."""

    module: str
    name: str


#: A value a ``Literal[...]`` payload type allows.
LiteralValue = str | int | bool | None


@dataclass(frozen=True)
class PayloadType:
    """A payload field's type as a tree: what the annotation, the runtime's validator and the
    JSON Schema of the field are all derived from.

    ``kind`` is one of ``str int float bool none object any`` (no children), ``list`` and
    ``dict`` (one child: the items, the values), ``union`` (the alternatives), ``literal``
    (``values``) or ``named`` (``name``, a name from ``[imports]``; ``module`` its module).
    """

    kind: str
    children: tuple[PayloadType, ...] = ()
    values: tuple[LiteralValue, ...] = ()
    name: str = ""
    module: str = ""


@dataclass(frozen=True)
class PayloadField:
    name: str
    annotation: str
    """Python annotation text, rebuilt from the parsed type (never copied from the spec)."""
    optional: bool
    """True when ``None`` is one of the type's alternatives: the argument defaults to ``None``."""
    typing_names: tuple[str, ...] = ()
    """Names from ``typing`` the annotation uses, which the module must import."""
    imported_names: tuple[str, ...] = ()
    """Names from ``[imports]`` the annotation uses."""
    type: PayloadType = PayloadType("object")
    """The parsed type (the annotation is printed from it)."""


@dataclass(frozen=True)
class Event:
    name: str
    value: str
    label: str
    member: str
    """Enum member name, ``name.upper()``."""
    method: str
    """Machine method name, ``name.lower()``."""
    payload_type: str
    """Name of the generated ``TypedDict`` for this event's payload."""
    description: str
    payload: tuple[PayloadField, ...]
    metadata: tuple[tuple[str, MetadataValue], ...]
    line: int


def imported_names_used(events: Iterable[Event]) -> frozenset[str]:
    """The ``[imports]`` names the payload types of ``events`` use (what the module imports)."""
    return frozenset(
        name for event in events for field in event.payload for name in field.imported_names
    )


@dataclass(frozen=True)
class GuardCall:
    """A named guard: a method of the user's handlers object."""

    name: str


@dataclass(frozen=True)
class InState:
    """``in(name)``: true while state ``name`` is active (charts)."""

    name: str


@dataclass(frozen=True)
class Not:
    operand: GuardExpression


@dataclass(frozen=True)
class And:
    operands: tuple[GuardExpression, ...]


@dataclass(frozen=True)
class Or:
    operands: tuple[GuardExpression, ...]


GuardExpression = GuardCall | InState | Not | And | Or


@dataclass(frozen=True)
class SourceSelector:
    """Which states a rule leaves from, as the spec wrote it (kept for docs and diagrams)."""

    states: tuple[str, ...] = ()
    """Explicitly named states."""
    tag: str | None = None
    """Every non-final state carrying this tag."""
    any_state: bool = False
    """Every non-final state (``from = "*"``)."""
    excluded: tuple[str, ...] = ()

    @property
    def is_wildcard(self) -> bool:
        return self.any_state or self.tag is not None

    def describe(self) -> str:
        """Human text, e.g. ``idle, error`` or ``any non-final state except x``."""
        if self.any_state:
            text = "any non-final state"
        elif self.tag is not None:
            text = f"any state tagged {self.tag!r}"
        else:
            return ", ".join(self.states)
        return text + (f" except {', '.join(self.excluded)}" if self.excluded else "")


@dataclass(frozen=True)
class Rule:
    """One transition rule as written: possibly many sources, the events its trigger matches,
    and its targets."""

    source: SourceSelector
    sources: tuple[str, ...]
    """The concrete source states the selector expands to, in state order."""
    event: str
    """The trigger as written: an event's name, an event descriptor (charts), "" for eventless."""
    events: tuple[str, ...]
    """The names of the declared events the trigger matches, in event order."""
    targets: tuple[str, ...]
    """State names (or :data:`PREVIOUS_TARGET`); several for parallel regions, none when
    targetless (charts)."""
    guard: GuardExpression | None
    guard_text: str | None
    """The guard as the spec wrote it (normalised), for docs."""
    steps: tuple[Step, ...]
    checkpoint: bool
    description: str
    metadata: tuple[tuple[str, MetadataValue], ...]
    line: int
    column: int
    then: tuple[Step, ...] = ()
    """Steps run after the targets were entered (charts)."""
    internal: bool = False

    @property
    def target(self) -> str:
        """The single target of a flat machine's rule."""
        return self.targets[0] if self.targets else ""

    @property
    def actions(self) -> tuple[str, ...]:
        return action_names((*self.steps, *self.then))

    @property
    def eventless(self) -> bool:
        return not self.event


@dataclass(frozen=True)
class Transition:
    """One alternative for a concrete (source, event) pair; alternatives keep spec order."""

    source: str
    event: str
    """An event's name; "" for an eventless transition (charts)."""
    targets: tuple[str, ...]
    guard: GuardExpression | None
    guard_text: str | None
    steps: tuple[Step, ...]
    checkpoint: bool
    rule_index: int
    """Index of the :class:`Rule` this alternative came from."""
    then: tuple[Step, ...] = ()
    internal: bool = False

    @property
    def target(self) -> str:
        return self.targets[0] if self.targets else ""

    @property
    def actions(self) -> tuple[str, ...]:
        return action_names((*self.steps, *self.then))

    @property
    def returns_to_previous(self) -> bool:
        return self.target == PREVIOUS_TARGET


@dataclass(frozen=True)
class ErrorHandler:
    """When an action raises while leaving one of ``sources``, run ``actions`` and go ``target``."""

    source: SourceSelector
    sources: tuple[str, ...]
    target: str
    actions: tuple[str, ...]
    description: str
    line: int


@dataclass(frozen=True)
class Machine:
    name: str
    """Class-name prefix, e.g. ``PegasusTask`` gives ``PegasusTaskState``."""
    module_name: str
    """The generated module's name, e.g. ``pegasus_task``."""
    description: str
    version: int
    initial: str
    states: tuple[State, ...]
    events: tuple[Event, ...]
    rules: tuple[Rule, ...]
    transitions: tuple[Transition, ...]
    """Every alternative, ordered by source state, then event, then spec order."""
    error_handlers: tuple[ErrorHandler, ...]
    tags: tuple[tuple[str, tuple[str, ...]], ...]
    """Each tag with its member states, in state order."""
    guards: tuple[str, ...]
    """Every guard name used, sorted."""
    actions: tuple[str, ...]
    """Every action name used (transition, entry, exit, error handler), sorted."""
    imports: tuple[Import, ...]
    source_path: str
    source_sha256: str
    metadata: tuple[tuple[str, MetadataValue], ...] = field(default=())
    chart: bool = False
    """A statechart (nesting, regions, history, eventless or internal transitions, raised
    events): run by the runtime's chart engine; ``states`` are in document (pre-)order."""
    initial_targets: tuple[str, ...] = ()
    """A chart's initial states (``initial`` is the first)."""
    initial_steps: tuple[Step, ...] = ()
    on_error: str = "raise"
    """What an error in a chart's guard or action does: ``raise`` or ``event``."""
    delays: tuple[str, ...] = ()
    """Handler methods that compute a timer's delay in seconds, sorted."""

    @cached_property
    def timer_events(self) -> frozenset[str]:
        """The events ``after`` timers send: the machine sends them itself, so they are not
        among a state's allowed events (nor offered as tools)."""
        return frozenset(timer.event for state in self.states for timer in state.timers)

    @cached_property
    def allowed_by_leaf(self) -> dict[str, tuple[str, ...]]:
        """Each leaf state's events (guards not evaluated), in event order: its transitions'
        and, in a chart, its ancestors'; never eventless transitions nor a timer's event."""
        own: dict[str, set[str]] = {state.name: set() for state in self.states}
        for transition in self.transitions:
            if transition.event and transition.event not in self.timer_events:
                own[transition.source].add(transition.event)
        found: dict[str, tuple[str, ...]] = {}
        for state in self.states:
            if not state.is_leaf:
                continue
            names: set[str] = set()
            node: str | None = state.name
            while node is not None:
                names |= own[node]
                node = self.state(node).parent
            found[state.name] = tuple(event.name for event in self.events if event.name in names)
        return found

    def state(self, name: str) -> State:
        return self._states_by_name[name]

    def event(self, name: str) -> Event:
        return self._events_by_name[name]

    @cached_property
    def _states_by_name(self) -> dict[str, State]:
        """By name: renderers look states up inside loops over states."""
        return {state.name: state for state in self.states}

    @cached_property
    def _events_by_name(self) -> dict[str, Event]:
        return {event.name: event for event in self.events}

    def previous_candidates(self, state: str) -> tuple[str, ...]:
        """States a ``<previous>`` target leaving ``state`` can return to, in state order."""
        return self._previous_candidates.get(state, ())

    @cached_property
    def _previous_candidates(self) -> dict[str, tuple[str, ...]]:
        """For each state, the states the machine can have been in just before entering it.

        Self-transitions do not change that memory. Error handlers enter their target too, and a
        ``<previous>`` transition from ``x`` back to ``p`` enters ``p`` from ``x``, so the sets
        are grown to a fixed point.
        """
        entered_from: dict[str, set[str]] = {state.name: set() for state in self.states}
        for transition in self.transitions:
            if transition.target not in (PREVIOUS_TARGET, transition.source):
                entered_from[transition.target].add(transition.source)
        for handler in self.error_handlers:
            for source in handler.sources:
                if source != handler.target:
                    entered_from[handler.target].add(source)
        returns = [t for t in self.transitions if t.returns_to_previous]
        changed = True
        while changed:
            changed = False
            for transition in returns:
                for previous in tuple(entered_from[transition.source]):
                    if (
                        previous != transition.source
                        and transition.source not in entered_from[previous]
                    ):
                        entered_from[previous].add(transition.source)
                        changed = True
        return {
            name: tuple(state.name for state in self.states if state.name in sources)
            for name, sources in entered_from.items()
        }

"""The compiled machine: every state, event and transition, and the questions renderers ask of
them (each leaf's events, the states a ``<previous>`` target can return to), answered once."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from statewright_compiler.model.data import DataField
from statewright_compiler.model.events import Event, Import
from statewright_compiler.model.metadata import MetadataValue
from statewright_compiler.model.rules import PREVIOUS_TARGET, ErrorHandler, Rule, Transition
from statewright_compiler.model.states import State
from statewright_compiler.model.steps import Step

__all__ = ["Machine"]


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
    data: tuple[DataField, ...] = ()
    """The data fields: the spec's ``[data]``, then each state's, in spec order."""
    binding: str = "early"
    """When a state's own data fields get their initial values: ``early`` (at start) or
    ``late`` (when the state is first entered)."""

    @cached_property
    def internal_events(self) -> frozenset[str]:
        """The events only the machine sends itself (see :attr:`Event.internal`): not among a
        state's allowed events, not offered as tools, without a method or a typed ``send``."""
        return frozenset(event.name for event in self.events if event.internal)

    @cached_property
    def external_events(self) -> tuple[Event, ...]:
        """The events from outside, in event order: each gets a method and a typed ``send``."""
        return tuple(event for event in self.events if not event.internal)

    @cached_property
    def allowed_by_leaf(self) -> dict[str, tuple[str, ...]]:
        """Each leaf state's events (guards not evaluated), in event order: its transitions'
        and, in a chart, its ancestors'; never eventless transitions nor internal events."""
        own: dict[str, set[str]] = {state.name: set() for state in self.states}
        for transition in self.transitions:
            if transition.event and transition.event not in self.internal_events:
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

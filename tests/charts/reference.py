"""A reference interpreter of SCXML 1.0's algorithm (W3C Recommendation, Appendix D), for tests.

It is written from the recommendation's pseudo-code, procedure for procedure and under the same
names (``select_transitions`` is selectTransitions, ``compute_exit_set`` computeExitSet, ...), and
reads the TOML spec itself (:mod:`tests.charts.reference_spec`): it shares no code with the
runtime's engine or with the compiler, so the property tests compare two independent readings of
the spec language. It favours plainness over speed: sets of :class:`State` objects, ancestors
walked on demand.

Where statewright's documented semantics add to SCXML, the reference follows the documentation,
and each such place says so:

* ``then`` steps run after the targets were entered, transition by transition;
* ``on_error = "raise"``: an error in a guard or an action abandons the macrostep, which leaves the
  configuration, the history and the internal queue as they were before the event;
* an external event that enables no transition is *rejected*: nothing runs but its guards; SCXML
  would go on to look for eventless transitions, which only matters when guards are not pure
  functions. When a guard raised (``on_error = "event"``), its ``error.execution`` is queued and
  the event counts as processed: the queue and eventless transitions run, as in SCXML;
* ``done.state.<id>`` and ``error.execution`` exist only when a transition's trigger matches them
  (the compiler declares them then): otherwise they are not raised at all, where SCXML raises
  them, matches nothing and looks for eventless transitions once more (which only matters when
  guards are not pure functions);
* reaching a top-level final state stops the machine: the active states' onexit content runs
  (SCXML's exitInterpreter), and the configuration is kept (exitInterpreter would empty it);
* a state's allowed events are the ones from outside: never ``done.state.*``, ``error.*``, a
  timer's or an event declared ``internal = true`` (which only the machine sends);
* eventless transitions and internal events still enabled after :data:`MAX_MICROSTEPS`
  microsteps of one macrostep are a loop: the macrostep fails (SCXML would run forever).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Final, Protocol

from tests.charts.reference_spec import (
    Event,
    Guard,
    Spec,
    State,
    Step,
    Transition,
    document_order,
    evaluate_guard,
    find_lcca,
    is_descendant,
    name_match,
    parse_spec,
    proper_ancestors,
)

__all__ = ["MAX_MICROSTEPS", "Abandoned", "NotSettled", "Reference", "Script"]

#: Microsteps one macrostep may take (after the event's own) before it counts as a loop.
MAX_MICROSTEPS: Final = 10_000


class Script(Protocol):
    """What the reference calls where the machine calls the user's handlers."""

    def guard(self, name: str) -> bool: ...
    def action(self, name: str) -> None: ...
    def log(self, text: str) -> None: ...


class Abandoned(Exception):
    """``on_error = "raise"``: a guard or an action raised; the macrostep was undone."""

    def __init__(self, where: str, name: str) -> None:
        super().__init__(f"{where} {name!r} raised")
        self.where = where
        self.name = name


class NotSettled(Exception):
    """Eventless transitions or internal events kept being enabled; the macrostep was undone."""


class Reference:
    """One running chart: configuration, history values, internal queue."""

    def __init__(self, text: str, script: Script, max_microsteps: int = MAX_MICROSTEPS) -> None:
        self.spec: Spec = parse_spec(text)
        self.script = script
        self.max_microsteps = max_microsteps
        self.configuration: set[State] = set()
        self.history_value: dict[State, list[State]] = {}
        self.internal_queue: deque[Event] = deque()
        self.running = True

    # -- what the tests read ---------------------------------------------------------------------
    @property
    def active(self) -> frozenset[str]:
        return frozenset(state.name for state in self.configuration)

    @property
    def leaves(self) -> frozenset[str]:
        return frozenset(state.name for state in self.configuration if state.is_atomic)

    @property
    def finished(self) -> bool:
        return not self.running

    def allowed_events(self) -> frozenset[str]:
        """The values of the events from outside a transition of an active state takes (the
        chart's own events, internal ones, are not among them)."""
        spec = self.spec
        events = [event for event in spec.events.values() if not event.internal]
        triggers = [t.trigger for s in self.configuration for t in s.transitions if t.trigger]
        return frozenset(
            event.value for event in events if any(name_match(t, event, spec) for t in triggers)
        )

    # -- interpret() and the main event loop -----------------------------------------------------
    def start(self) -> None:
        """interpret(): enter the initial configuration, then the first macrostep's rest."""
        initial = Transition(source=None, trigger=None, targets=self.spec.initial)

        def macrostep() -> None:
            self.enter_states([initial])
            self.settle()

        self._undoable(macrostep)

    def send(self, name: str) -> bool:
        """One external event; False when it is rejected (no transition enabled)."""
        event = self.spec.events[name]

        def macrostep() -> None:
            queued = len(self.internal_queue)
            enabled = self.select_transitions(event) if self.running else []
            if not enabled and len(self.internal_queue) == queued:
                raise _Rejected
            if enabled:
                self.microstep(enabled)
            self.settle()

        try:
            self._undoable(macrostep)
        except _Rejected:
            return False
        return True

    def settle(self) -> None:
        """mainEventLoop's inner loop: eventless transitions, then internal events, until none
        is enabled; or the machine stopped: then exitInterpreter's onexit content."""
        self._settle()
        if not self.running:
            self.internal_queue.clear()
            for s in sorted(self.configuration, key=document_order, reverse=True):
                self.execute_content(s.exit)
            self.internal_queue.clear()

    def _settle(self) -> None:
        microsteps = 0
        while self.running:
            enabled = self.select_eventless_transitions()
            if not enabled:
                if not self.internal_queue:
                    return
                internal_event = self.internal_queue.popleft()
                enabled = self.select_transitions(internal_event)
            if enabled:
                microsteps += 1
                if microsteps > self.max_microsteps:
                    raise NotSettled(f"did not settle after {self.max_microsteps} microsteps")
                self.microstep(enabled)

    def _undoable(self, macrostep: Callable[[], object]) -> None:
        """Run ``macrostep``; when it fails, put everything it changed back."""
        saved = (
            set(self.configuration),
            dict(self.history_value),
            deque(self.internal_queue),
            self.running,
        )
        try:
            macrostep()
        except BaseException:
            self.configuration, self.history_value, self.internal_queue, self.running = saved
            raise

    # -- selecting transitions -------------------------------------------------------------------
    def select_eventless_transitions(self) -> list[Transition]:
        return self._select(lambda transition: transition.trigger is None)

    def select_transitions(self, event: Event) -> list[Transition]:
        spec = self.spec
        return self._select(
            lambda transition: (
                transition.trigger is not None and name_match(transition.trigger, event, spec)
            )
        )

    def _select(self, matches: Callable[[Transition], bool]) -> list[Transition]:
        enabled: list[Transition] = []
        atomic_states = sorted(
            (state for state in self.configuration if state.is_atomic), key=document_order
        )
        for state in atomic_states:
            for s in [state, *proper_ancestors(state, None)]:
                found = next(
                    (t for t in s.transitions if matches(t) and self.condition_match(t)), None
                )
                if found is not None:
                    if found not in enabled:
                        enabled.append(found)
                    break
        return self.remove_conflicting_transitions(enabled)

    def condition_match(self, transition: Transition) -> bool:
        if transition.guard is None:
            return True
        try:
            return self._evaluate(transition.guard)
        except _HandlerError:
            self._error("guard", transition.guard_text)
            return False

    def _evaluate(self, guard: Guard) -> bool:
        def call(name: str) -> bool:
            try:
                return self.script.guard(name)
            except Exception as error:
                raise _HandlerError from error

        def is_in(name: str) -> bool:
            return any(state.name == name for state in self.configuration)

        return evaluate_guard(guard, call, is_in)

    def remove_conflicting_transitions(self, enabled: list[Transition]) -> list[Transition]:
        filtered: list[Transition] = []
        for t1 in enabled:
            t1_preempted = False
            to_remove: list[Transition] = []
            for t2 in filtered:
                if self.compute_exit_set([t1]) & self.compute_exit_set([t2]):
                    if is_descendant(t1.source, t2.source):
                        to_remove.append(t2)
                    else:
                        t1_preempted = True
                        break
            if not t1_preempted:
                filtered = [t for t in filtered if t not in to_remove]
                filtered.append(t1)
        return filtered

    # -- the microstep ---------------------------------------------------------------------------
    def microstep(self, enabled: list[Transition]) -> None:
        self.exit_states(enabled)
        for transition in enabled:
            self.execute_content(transition.actions)
        self.enter_states(enabled)
        for transition in enabled:  # statewright's `then`: after the targets were entered
            self.execute_content(transition.then)

    def exit_states(self, enabled: list[Transition]) -> None:
        states_to_exit = sorted(self.compute_exit_set(enabled), key=document_order, reverse=True)
        for s in states_to_exit:
            for h in s.history_states:
                if h.history == "deep":
                    recorded = [
                        s0 for s0 in self.configuration if s0.is_atomic and is_descendant(s0, s)
                    ]
                else:
                    recorded = [s0 for s0 in self.configuration if s0.parent is s]
                self.history_value[h] = sorted(recorded, key=document_order)
        for s in states_to_exit:
            self.execute_content(s.exit)
            self.configuration.discard(s)

    def compute_exit_set(self, transitions: Iterable[Transition]) -> set[State]:
        states_to_exit: set[State] = set()
        for t in transitions:
            if t.targets:
                domain = self.get_transition_domain(t)
                states_to_exit |= {s for s in self.configuration if is_descendant(s, domain)}
        return states_to_exit

    def enter_states(self, enabled: list[Transition]) -> None:
        states_to_enter: set[State] = set()
        states_for_default_entry: set[State] = set()
        default_history_content: dict[State, tuple[Step, ...]] = {}
        self.compute_entry_set(
            enabled, states_to_enter, states_for_default_entry, default_history_content
        )
        for s in sorted(states_to_enter, key=document_order):
            self.configuration.add(s)
            self.execute_content(s.entry)
            if s in states_for_default_entry:
                self.execute_content(s.initial_actions)
            if s in default_history_content:
                self.execute_content(default_history_content[s])
            if s.kind != "final":
                continue
            parent = s.parent
            if parent is None:  # a child of <scxml>
                self.running = False
                continue
            self._raise(self.spec.done_event(parent))
            grandparent = parent.parent
            if (
                grandparent is not None
                and grandparent.kind == "parallel"
                and all(self.is_in_final_state(child) for child in grandparent.child_states)
            ):
                self._raise(self.spec.done_event(grandparent))

    def _raise(self, event: Event) -> None:
        """Put one of the chart's own events on the internal queue, if it exists."""
        if self.spec.is_declared(event):
            self.internal_queue.append(event)

    def compute_entry_set(
        self,
        transitions: list[Transition],
        states_to_enter: set[State],
        states_for_default_entry: set[State],
        default_history_content: dict[State, tuple[Step, ...]],
    ) -> None:
        sets = (states_to_enter, states_for_default_entry, default_history_content)
        for t in transitions:
            for s in t.targets:
                self.add_descendant_states_to_enter(s, *sets)
            ancestor = self.get_transition_domain(t)
            for s in self.get_effective_target_states(t.targets):
                self.add_ancestor_states_to_enter(s, ancestor, *sets)

    def add_descendant_states_to_enter(
        self,
        state: State,
        states_to_enter: set[State],
        states_for_default_entry: set[State],
        default_history_content: dict[State, tuple[Step, ...]],
    ) -> None:
        sets = (states_to_enter, states_for_default_entry, default_history_content)
        if state.kind == "history":
            if self.history_value.get(state):
                targets = self.history_value[state]
            else:
                assert state.parent is not None
                default_history_content[state.parent] = state.default_actions
                targets = list(state.default)
            for s in targets:
                self.add_descendant_states_to_enter(s, *sets)
            for s in targets:
                self.add_ancestor_states_to_enter(s, state.parent, *sets)
            return
        states_to_enter.add(state)
        if state.kind == "compound":
            states_for_default_entry.add(state)
            for s in state.initial:
                self.add_descendant_states_to_enter(s, *sets)
            for s in state.initial:
                self.add_ancestor_states_to_enter(s, state, *sets)
        elif state.kind == "parallel":
            for child in state.child_states:
                if not any(is_descendant(s, child) for s in states_to_enter):
                    self.add_descendant_states_to_enter(child, *sets)

    def add_ancestor_states_to_enter(
        self,
        state: State,
        ancestor: State | None,
        states_to_enter: set[State],
        states_for_default_entry: set[State],
        default_history_content: dict[State, tuple[Step, ...]],
    ) -> None:
        for anc in proper_ancestors(state, ancestor):
            states_to_enter.add(anc)
            if anc.kind == "parallel":
                for child in anc.child_states:
                    if not any(is_descendant(s, child) for s in states_to_enter):
                        self.add_descendant_states_to_enter(
                            child,
                            states_to_enter,
                            states_for_default_entry,
                            default_history_content,
                        )

    def is_in_final_state(self, s: State) -> bool:
        if s.kind == "compound":
            return any(c.kind == "final" and c in self.configuration for c in s.child_states)
        if s.kind == "parallel":
            return all(self.is_in_final_state(c) for c in s.child_states)
        return False

    def get_transition_domain(self, t: Transition) -> State | None:
        """The state whose descendants the transition exits and enters; None is <scxml>."""
        if t.source is None:  # the initial transition of <scxml>
            return None
        targets = self.get_effective_target_states(t.targets)
        if not targets:
            return None
        if (
            t.internal
            and t.source.kind == "compound"
            and all(is_descendant(s, t.source) for s in targets)
        ):
            return t.source
        return find_lcca([t.source, *targets])

    def get_effective_target_states(self, targets: Iterable[State]) -> list[State]:
        found: list[State] = []
        for s in targets:
            if s.kind == "history":
                inner = self.history_value.get(s) or self.get_effective_target_states(s.default)
                found += [state for state in inner if state not in found]
            elif s not in found:
                found.append(s)
        return found

    # -- executable content ----------------------------------------------------------------------
    def execute_content(self, block: tuple[Step, ...]) -> None:
        """One block; an error stops the rest of it (SCXML 4.9)."""
        for step in block:
            if step.kind == "raise":
                self.internal_queue.append(self.spec.events[step.text])
            elif step.kind == "log":
                self.script.log(step.text)
            else:
                try:
                    self.script.action(step.text)
                except Exception:
                    self._error("action", step.text)
                    return

    def _error(self, where: str, name: str) -> None:
        if self.spec.on_error == "event":
            self._raise(self.spec.error_event)
        else:
            raise Abandoned(where, name)


class _Rejected(Exception):
    """No transition is enabled for an external event."""


class _HandlerError(Exception):
    """A guard the script answers raised."""

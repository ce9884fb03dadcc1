"""Running a statechart: SCXML's algorithm (W3C SCXML 1.0, Appendix D) over the chart's tables.

One external event is a *macrostep*: the transitions it enables, then every eventless transition
and every internal event (raised by actions, or ``done.state.<id>`` when a compound or parallel
state completes) until nothing more is enabled (then a chart's child machines start:
:mod:`statewright._chart_invoke`). Each round of transitions is a *microstep*: exit the states
they leave (innermost first, recording history), run their actions, enter the states they reach
(outermost first, with initial and history defaults). Selection and conflicts follow
SCXML: atomic states in document order, each looking for its first enabled transition from
itself outwards, and a transition whose exit set overlaps an earlier one's is taken only if its
source is a descendant of the earlier source (which it then preempts).

The engine calls no user code itself: its steps are generators that *yield* each guard to
evaluate and each action to run, so the synchronous and the asyncio machines drive the same code
and differ only in how they call handlers (executable content: :mod:`statewright._chart_content`;
the data model's expressions are generated code the engine calls directly). A macrostep works on
a copy of the chart's state; the machine keeps the copy only when the whole macrostep succeeded,
so a failure leaves it unchanged (its assignments to the data are undone:
:mod:`statewright._data_state`).

In a chart with data-model content each event processed gets an ``_event``
(:class:`~statewright._event_info.EventInfo`): an external one when it is dequeued, an internal
one with its queue entry; eventless transitions see the last one (None before the first event).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any, Final

from statewright._chart_content import ChartContent
from statewright._chart_spec import DEEP_HISTORY, ERROR_ROUTE, FINAL, PARALLEL, Step
from statewright._chart_state import ChartState, Message, Microstep, Pending
from statewright._chart_tables import ROOT
from statewright._engine import GUARD, Failure, Request, Steps
from statewright._errors import StatewrightError
from statewright._event_info import EXTERNAL, PLATFORM, SCXML_PROCESSOR, EventInfo

__all__ = ["MAX_MICROSTEPS", "ChartAlgorithm", "repeating"]

#: Microsteps one macrostep may take before its eventless transitions are called a loop.
MAX_MICROSTEPS: Final = 10_000


def repeating(path: list[str]) -> list[str]:
    """The shortest cycle ``path`` ends with, repeated at least twice (its last eight steps when
    none is): what a loop's error names."""
    for length in range(1, len(path) // 2 + 1):
        if path[-length:] == path[-2 * length : -length]:
            return path[-length:]
    return path[-8:]


class ChartAlgorithm(ChartContent):
    """SCXML's algorithm over a chart's tables, running its executable content
    (:class:`ChartContent`)."""

    # -- the macrostep ---------------------------------------------------------------------------
    def start(self, state: ChartState) -> Generator[Request, Any, list[Microstep]]:
        """Initialize the data model (the machine's own data, and with early binding every
        state's), enter the initial configuration and run to completion (the interpreter's
        start)."""
        if self.expressive:
            data = self.data_model
            yield from self.initialize(state, data is not None and data.binding != "late")
        yield from self.run(state, self.chart.initial_steps, {}, None)
        to_enter: set[int] = set()
        default_entry: set[int] = set()
        history_content: dict[int, tuple[Step, ...]] = {}
        # Every target's descendants first, then every target's ancestors (computeEntrySet):
        # interleaved, a parallel ancestor would enter its default in a region a later target is in.
        for target in self.chart.initial:
            self._add_descendants(state, target, to_enter, default_entry, history_content)
        for target in self.chart.initial:
            self._add_ancestors(state, target, ROOT, to_enter, default_entry, history_content)
        yield from self._enter(state, to_enter, default_entry, history_content, {}, None)
        return (yield from self.settle(state))

    def handle(
        self,
        state: ChartState,
        event: Any,
        payload: Mapping[str, Any],
        sent: Pending | None = None,
    ) -> Generator[Request, Any, list[Microstep] | None]:
        """One external event (fired by the timer ``sent``, if one did): ``None`` when no
        transition is enabled for it (nothing ran but guards and conditions), else the
        microsteps taken. A guard that raised while the event was matched
        (``on_error = "event"``) has queued ``error.execution``: then the event was processed
        even if nothing took it, and the internal queue is drained as SCXML does. In a chart with
        data-model content the event becomes ``_event`` (an error route's keeps the one that
        failed)."""
        if self.expressive and event is not ERROR_ROUTE:
            assert state.model is not None  # a chart with data-model content has one
            state.model.current = self.external_info(state, event, payload, sent)
        queued = len(state.queue)
        enabled = yield from self.select(state, event, payload)
        if not enabled and len(state.queue) == queued:
            return None
        if enabled:
            yield from self.microstep(state, enabled, payload, event)
        return [(event, tuple(enabled)), *(yield from self.settle(state))]

    def settle(self, state: ChartState) -> Generator[Request, Any, list[Microstep]]:
        """Eventless transitions and internal events until none is enabled, or until the chart
        finished, which drops what is left on the internal queue: between macrosteps the queue
        is empty (a restored snapshot's must be too)."""
        taken: list[Microstep] = []
        while not state.finished:
            if self.has_eventless:
                enabled = yield from self.select(state, None, {})
            else:
                enabled = []
            event: Any = None
            payload: Mapping[str, Any] = {}
            if not enabled:
                if not state.queue:
                    break
                event, payload, info = state.queue.popleft()
                if info is not None:
                    assert state.model is not None  # only such a chart queues an _event
                    state.model.current = info
                enabled = yield from self.select(state, event, payload)
                if not enabled:
                    continue  # an internal event nothing waits for is discarded
            taken.append((event, tuple(enabled)))
            if len(taken) > MAX_MICROSTEPS:
                raise StatewrightError(self._loop_message(taken))
            yield from self.microstep(state, enabled, payload, event)
        if state.finished:  # the interpreter stopped: what it had not processed is dropped
            state.queue.clear()
            # SCXML's exitInterpreter: the active states' exit content, innermost first (a child
            # machine's last words reach its parent before its done.invoke: W3C test 236); the
            # configuration stays, so the machine still reports its final state
            for node in sorted(state.active, reverse=True):
                yield from self.run(state, self.nodes[node].exit, {}, None)
            state.queue.clear()
        return taken

    @staticmethod
    def _invoked(state: ChartState) -> bool:
        """Whether a parent machine invoked this one (it alone gets its top-level done data)."""
        system = None if state.model is None else state.model.system
        return system is not None and system.parent

    def external_info(
        self, state: ChartState, event: Any, payload: Mapping[str, Any], sent: Pending | None
    ) -> EventInfo[Any]:
        """The ``_event`` of an external event: sent with ``payload`` from outside, fired from
        ``sent``, a timer this machine started (its origin is this session), or ``sent``, a
        message from another machine of its tree (its origin, and the sending child's
        ``invokeid``)."""
        if sent is None:
            return EventInfo(str(event), payload, EXTERNAL)
        data = {} if sent.data is None else sent.data
        if type(sent) is Message:
            name = sent.name or str(event)
            info = (sent.sendid, sent.origin, SCXML_PROCESSOR, sent.invokeid)
            return EventInfo(name, data, EXTERNAL, *info)
        model = state.model
        system = None if model is None else model.system
        origin = None if system is None else f"#_scxml_{system.sessionid}"
        return EventInfo(str(event), data, EXTERNAL, sent.sendid, origin, SCXML_PROCESSOR)

    def _loop_message(self, taken: list[Microstep]) -> str:
        recent = [self.chart.transitions[ids[0]] for _, ids in taken[-64:]]
        cycle = repeating([self.names[transition.source] for transition in recent])
        return (
            f"eventless transitions did not settle after {MAX_MICROSTEPS} microsteps: "
            f"{' -> '.join([*cycle, cycle[0]])} repeats"
        )

    # -- selection -------------------------------------------------------------------------------
    def select(
        self, state: ChartState, event: Any, payload: Mapping[str, Any]
    ) -> Generator[Request, Any, list[int]]:
        """The optimal enabled transition set for ``event`` (``None``: eventless ones)."""
        transitions = self.transitions
        enabled: list[int] = []
        for leaf in self.leaves(state):
            found = None
            for node in self.lineage[leaf]:
                for index in self.by_source[node]:
                    transition = transitions[index]
                    if event is None:
                        if transition.events:
                            continue
                    elif event not in transition.events:
                        continue
                    if transition.cond is not None and not self.holds(
                        state, transition.cond, event, None
                    ):
                        continue
                    if transition.guard is not None:
                        passed = yield (GUARD, transition.guard, (payload, state.active))
                        if isinstance(passed, Failure):
                            self._failed(state, passed, event, None)
                            continue
                        if not passed:
                            continue
                    found = index
                    break
                if found is not None:
                    break
            if found is not None and found not in enabled:
                enabled.append(found)
        return self._without_conflicts(state, enabled)

    def _without_conflicts(self, state: ChartState, enabled: list[int]) -> list[int]:
        if len(enabled) < 2:
            return enabled  # nothing to conflict with
        transitions = self.chart.transitions
        kept: list[int] = []
        exits: dict[int, set[int]] = {}
        for first in enabled:
            first_exit = exits.setdefault(first, self.exit_set(state, [first]))
            preempted = False
            removed: list[int] = []
            for other in kept:
                if first_exit & exits[other]:
                    if self.is_descendant(transitions[first].source, transitions[other].source):
                        removed.append(other)
                    else:
                        preempted = True
                        break
            if not preempted:
                kept = [index for index in kept if index not in removed]
                kept.append(first)
        return kept

    # -- the microstep ---------------------------------------------------------------------------
    def microstep(
        self, state: ChartState, enabled: list[int], payload: Mapping[str, Any], event: Any
    ) -> Steps:
        transitions = self.chart.transitions
        state.selected.append(tuple(enabled))
        yield from self._exit(state, enabled, payload, event)
        for index in enabled:
            yield from self.run(state, transitions[index].steps, payload, event)
        to_enter, default_entry, history_content = self.entry_set(state, enabled)
        yield from self._enter(state, to_enter, default_entry, history_content, payload, event)
        for index in enabled:
            yield from self.run(state, transitions[index].then, payload, event)

    def _exit(
        self, state: ChartState, enabled: list[int], payload: Mapping[str, Any], event: Any
    ) -> Steps:
        leaving = sorted(self.exit_set(state, enabled), reverse=True)  # innermost first
        for node in leaving:
            for history in self.histories[node]:
                if self.kinds[history] == DEEP_HISTORY:
                    kept = (
                        n for n in state.active if self.atomic[n] and self.is_descendant(n, node)
                    )
                else:
                    kept = (n for n in state.active if self.parents[n] == node)
                state.memory[history] = tuple(sorted(kept))
        for node in leaving:
            for timer in self.chart.nodes[node].timers:
                state.timers.pop(timer.id, None)
            yield from self.run(state, self.nodes[node].exit, payload, event)
            state.active.discard(node)

    def _enter(
        self,
        state: ChartState,
        to_enter: set[int],
        default_entry: set[int],
        history_content: dict[int, tuple[Step, ...]],
        payload: Mapping[str, Any],
        event: Any,
    ) -> Steps:
        nodes = self.nodes
        for node in sorted(to_enter):  # outermost first: document order
            state.active.add(node)
            yield from self.run(state, nodes[node].entry, payload, event)
            yield from self.run(state, nodes[node].timers, payload, event)
            if node in default_entry:
                yield from self.run(state, nodes[node].initial_steps, payload, event)
            if node in history_content:
                yield from self.run(state, history_content[node], payload, event)
            if self.kinds[node] != FINAL:
                continue
            parent = self.parents[node]
            if parent == ROOT:
                state.finished = True
                if nodes[node].donedata is not None and self._invoked(state):
                    state.result = self.done_data(state, node, event)  # its done.invoke's
                continue
            if not self.expressive:
                self._raise(state, self.done_events[parent])
            else:
                data = self.done_data(state, node, event)
                self._raise(state, self.done_events[parent], data, PLATFORM)
            grandparent = self.parents[parent]
            if (
                grandparent != ROOT
                and self.kinds[grandparent] == PARALLEL
                and all(self.in_final(state, child) for child in self.child_states[grandparent])
            ):
                self._raise(state, self.done_events[grandparent], None, PLATFORM)

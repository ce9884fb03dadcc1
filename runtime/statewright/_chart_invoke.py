"""Child machines in SCXML's algorithm (W3C SCXML 1.0, 6.4 and Appendix D): the engine of a chart
whose states invoke some, what its macrosteps do with them, and what an external event from a
child does before it is processed.

Entering a state with invokes puts it on the macrostep's ``to_invoke`` (SCXML's
``statesToInvoke``); leaving it takes it off. When the macrostep has nothing left to do (no
eventless transition enabled, the internal queue empty) the states still there start their
invokes, in document order: the invoke id is made up when the spec names none (and stored in
its ``id_location``), ``params`` computes the child's initial data, and the engine asks the
machine driving it to start the child (an :data:`~statewright._engine.INVOKE` request: the
engine creates no machine itself). An error there is ``error.execution`` and the child does not
start. The child's first messages to its parent, and its ``done.invoke`` when it finished at
once, come back with it and join this machine's external queue. Leaving the state cancels its
children after its exit content: they are dropped, with every message on its way to them (what
they sent before is on this machine's queue already, and is processed).

An external event from a child runs its invoke's ``finalize`` first (its ``_event`` is the
event, with ``invokeid``); with ``autoforward`` every other external event is also sent to the
child, an exact copy. Either makes the event processed, even when no transition takes it.

All of it changes the macrostep's copy of the chart's state only, so a discarded macrostep
starts and cancels nothing (a child it started is dropped with it). Only a chart that invokes
gets this engine (its tables put :class:`~statewright._chart_tables.Invoking` steps in its
invoking states' entry and exit): every other chart's events run as if there were no children.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from statewright._chart_engine import ChartEngine
from statewright._chart_send import MESSAGE, made_up_id, made_up_invoke_id
from statewright._chart_spec import ERROR_ROUTE, Invoke
from statewright._chart_state import ChartState, InvokingChartState, Message, Microstep, Pending
from statewright._chart_tables import Invoking
from statewright._engine import INVOKE, Failure, Request, Steps

__all__ = ["InvokingChartEngine"]


class InvokingChartEngine(ChartEngine):
    """The engine of a chart whose states invoke child machines (see the module docstring)."""

    def handle(
        self,
        state: ChartState,
        event: Any,
        payload: Mapping[str, Any],
        sent: Pending | None = None,
    ) -> Generator[Request, Any, list[Microstep] | None]:
        """:meth:`ChartAlgorithm.handle` after what :meth:`heard` does: an event it concerns is
        processed even when no transition takes it."""
        concerned = False
        if event is not ERROR_ROUTE and (self.autoforwarding or type(sent) is Message):
            assert state.model is not None  # an invoking chart has data-model content
            state.model.current = self.external_info(state, event, payload, sent)
            concerned = yield from self.heard(state, event, payload, sent)
        taken = yield from ChartEngine.handle(self, state, event, payload, sent)
        if taken is None and concerned:  # only its guards ran since: the macrostep goes on
            return [(event, ()), *(yield from self.settle(state))]
        return taken

    def settle(self, state: ChartState) -> Generator[Request, Any, list[Microstep]]:
        """:meth:`ChartAlgorithm.settle`, then the invokes of the states the macrostep entered,
        and again while starting them queued errors (SCXML's main loop)."""
        taken = yield from ChartEngine.settle(self, state)
        assert isinstance(state, InvokingChartState)  # an invoking chart's
        while state.to_invoke and not state.finished:
            yield from self.start_invokes(state)
            taken += yield from ChartEngine.settle(self, state)
        return taken

    def invoking_step(
        self, state: ChartState, step: Invoking, payload: Mapping[str, Any], event: Any
    ) -> Steps:
        """An invoking state's entry (its invokes start at the end of the macrostep) or exit
        (its exit content, a block of its own, then its children are cancelled)."""
        assert isinstance(state, InvokingChartState)  # an invoking chart's
        if step.exit is None:
            state.to_invoke.append(step.node)
            return
        yield from self.run(state, step.exit, payload, event)
        self.cancel_invokes(state, step.node)

    def start_invokes(self, state: InvokingChartState) -> Steps:
        """Start the invokes of the states entered in this macrostep and still active, in
        document order."""
        nodes = sorted(set(state.to_invoke))
        state.to_invoke = []
        for node in nodes:
            for index, invoke in enumerate(self.nodes[node].invokes):
                yield from self._start(state, node, index, invoke)

    def _start(self, state: InvokingChartState, node: int, index: int, invoke: Invoke) -> Steps:
        model = state.model
        invokeid = invoke.id
        where = f"invoke {invokeid or 'in ' + self.names[node]}"
        try:
            if not invokeid:
                invokeid = made_up_invoke_id(self.names[node])
                if invoke.id_location is not None:
                    model.assign(invoke.id_location, invokeid)
            data = None
            if invoke.params is not None:
                data = self._value(state, invoke.params)
                if type(data) is not dict:
                    raise TypeError(f"params computed {type(data).__name__}, not a dict of fields")
        except Exception as error:
            if invokeid:
                state.children = {**state.children, invokeid: (node, index, None)}
            self._error(state, error, None, where)
            return
        answer = yield (INVOKE, invoke, (invokeid, data, state.time()))
        if isinstance(answer, Failure):
            state.children = {**state.children, invokeid: (node, index, None)}
            self._failed(state, answer, None, where)
            return
        child, messages = answer
        state.children = {**state.children, invokeid: (node, index, child)}
        for message in messages:
            state.timers[made_up_id(False, MESSAGE)] = message

    def cancel_invokes(self, state: InvokingChartState, node: int) -> None:
        """Cancel the children of ``node``, which is being left: drop them and the messages on
        their way to them. What they sent before (already on this machine's queue, their
        ``done.invoke`` too) stays: SCXML ignores the events a cancelled session sends *after*
        the cancel, and W3C test 236 processes a ``done.invoke`` queued before it."""
        if node in state.to_invoke:
            state.to_invoke = [each for each in state.to_invoke if each != node]
        gone = {invokeid for invokeid, child in state.children.items() if child[0] == node}
        if not gone:
            return
        state.children = {k: v for k, v in state.children.items() if k not in gone}
        targets = {f"#_{invokeid}" for invokeid in gone}
        timers = state.timers
        for timer_id, timer in list(timers.items()):
            if type(timer) is Message and timer.target in targets:
                del timers[timer_id]

    def heard(
        self, state: ChartState, event: Any, payload: Mapping[str, Any], sent: Pending | None
    ) -> Generator[Request, Any, bool]:
        """Before an external event is processed: its invoke's ``finalize`` when a child sent
        it, and a copy to every child whose invoke forwards events (the sender's own events
        too, as SCXML forwards every external event). Whether either happened
        (the event is then processed even if no transition takes it)."""
        assert isinstance(state, InvokingChartState)  # an invoking chart's
        processed = False
        invokeid = sent.invokeid if type(sent) is Message else None
        if invokeid is not None:
            child = state.children.get(invokeid)
            if child is not None:
                steps = self.nodes[child[0]].invokes[child[1]].finalize
                yield from self.run(state, steps, payload, event)
                processed = True
        if not self.autoforwarding:
            return processed
        current = state.model.current  # this event's _event: the copy's name, data and origin
        for target_id, (node, index, machine) in state.children.items():
            if machine is None:  # its own events too: SCXML forwards every one (W3C test 229)
                continue
            if not self.nodes[node].invokes[index].autoforward:
                continue
            state.timers[made_up_id(False, MESSAGE)] = Message(
                current.name,
                state.time(),
                0.0,
                "fire",
                current.data,
                current.sendid,
                target=f"#_{target_id}",
                origin=current.origin,
            )
            processed = True
        return processed

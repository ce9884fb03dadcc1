"""Executable content: what a statechart runs as it takes transitions and enters and leaves
states (SCXML 4), the data model's steps among it.

Handler actions and delay handlers are user code: the engine *yields* a request for each, which
the machine's driver answers. Everything else runs here: ``raise``, ``log``, ``send`` and
``cancel``, and the data model's ``assign``, ``if`` and ``foreach``, whose expressions are
functions the compiler generated (:mod:`statewright._data_spec`), called directly over the
machine's data, ``_event``, the system variables and the active states.

An error stops the block of executable content it happened in, the blocks around it included
(SCXML 4.6, 5.10): an expression that raises, a value no data field can hold
(:mod:`statewright._data_values`), an event name the machine does not have, a target it cannot
deliver to. With ``on_error = "event"`` the machine then puts ``error.execution`` (or
``error.communication``) on its internal queue; with ``"raise"`` the event fails like a failing
action, :class:`~statewright.ActionFailed` naming the step, and nothing is applied. A condition
that raises counts as false (SCXML 5.9), with the same error.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any, Final

from statewright._chart_send import (
    EXTERNAL_QUEUE,
    INTERNAL_QUEUE,
    Unreachable,
    made_up_id,
    route,
    seconds,
)
from statewright._chart_spec import MAX_DELAY, Cancel, Log, Raise, Send, Step
from statewright._chart_state import ChartState, Message, Pending
from statewright._chart_tables import Bind, ChartTables, Invoking
from statewright._data_spec import Assign, Expression, Foreach, If
from statewright._data_values import stored
from statewright._engine import ACTION, DELAY, LOG, Failure, Request, Steps
from statewright._errors import ActionFailed, GuardFailed
from statewright._event_info import INTERNAL, PLATFORM, EventInfo

__all__ = ["Block", "ChartContent"]

#: A block of executable content: ``False`` when an error stopped it.
Block = Generator[Request, Any, bool]
_NO_DATA: Final[Mapping[str, Any]] = {}
#: A send's queues in this machine (its other targets are other machines').
_OWN_QUEUES: Final = frozenset({EXTERNAL_QUEUE, INTERNAL_QUEUE})


class ChartContent(ChartTables):
    """Running executable content over a chart's tables (:class:`ChartTables`)."""

    def run(
        self, state: ChartState, steps: tuple[Step, ...], payload: Mapping[str, Any], event: Any
    ) -> Block:
        """One block of executable content; ``False`` when an error stopped it (SCXML)."""
        for step in steps:
            if type(step) is str:
                state.time()  # read before any action runs: a failing clock stops the macrostep
                result = yield (ACTION, step, payload)
                if isinstance(result, Failure):
                    self._failed(state, result, event, step)
                    return False
            elif isinstance(step, Assign):
                if not self._assign(state, step, event):
                    return False
            elif isinstance(step, Raise):
                self._raise(state, step.event)
            elif isinstance(step, Send):
                if not self.expressive:
                    if not (yield from self._send_plain(state, step, payload, event)):
                        return False
                elif not (yield from self._send(state, step, payload, event)):
                    return False
            elif isinstance(step, If):
                if not (yield from self._if(state, step, payload, event)):
                    return False
            elif isinstance(step, Foreach):
                if not (yield from self._foreach(state, step, payload, event)):
                    return False
            elif isinstance(step, Log):
                if step.expr is None:
                    yield (LOG, step.label, step.text)
                    continue
                try:
                    text = str(self._value(state, step.expr))
                except Exception as error:
                    self._error(state, error, event, f"log {step.label}".rstrip())
                    return False
                yield (LOG, step.label, text)
            elif isinstance(step, Bind):
                yield from self.bind(state, step.node, payload, event)
            elif isinstance(step, Invoking):
                yield from self.invoking_step(state, step, payload, event)
            else:
                assert isinstance(step, Cancel)
                if step.id_expr is None:
                    state.timers.pop(step.id, None)
                    continue
                try:
                    timer_id = self._value(state, step.id_expr)
                    if type(timer_id) is not str:
                        raise TypeError(f"a send id is a string, not {timer_id!r:.60}")
                except Exception as error:
                    self._error(state, error, event, "cancel")
                    return False
                state.timers.pop(timer_id, None)
        return True

    # -- expressions -----------------------------------------------------------------------------
    def _value(self, state: ChartState, expression: Expression) -> Any:
        model = state.model
        assert model is not None  # a chart with expressions has a data model's state
        return expression(model.data, model.current, model.system, state.active)

    def holds(self, state: ChartState, cond: Expression, event: Any, step: str | None) -> bool:
        """Whether the condition ``cond`` holds; one that raises is false, with the error
        (``step`` None: a transition's condition, which fails like a guard)."""
        model = state.model
        assert model is not None  # a chart with expressions has a data model's state
        try:
            return bool(cond(model.data, model.current, model.system, state.active))
        except Exception as error:
            self._error(state, error, event, step)
            return False

    # -- the data model's steps ------------------------------------------------------------------
    def _assign(self, state: ChartState, step: Assign, event: Any) -> bool:
        model = state.model
        assert model is not None
        try:
            value = stored(step.value(model.data, model.current, model.system, state.active))
            if step.container is None:
                assert step.field is not None, "an assignment has a field or a container"
                model.assign(step.field, value)
            else:
                assert step.key is not None, "an item assignment has a key"
                container = self._value(state, step.container)
                model.assign_item(container, self._value(state, step.key), value)
        except Exception as error:
            self._error(state, error, event, f"assign {step.location}")
            return False
        return True

    def _if(self, state: ChartState, step: If, payload: Mapping[str, Any], event: Any) -> Block:
        for cond, steps in step.branches:
            if self.holds(state, cond, event, "if"):
                return (yield from self.run(state, steps, payload, event))
        return (yield from self.run(state, step.otherwise, payload, event))

    def _foreach(
        self, state: ChartState, step: Foreach, payload: Mapping[str, Any], event: Any
    ) -> Block:
        model = state.model
        assert model is not None
        where = f"foreach {step.item}"
        try:
            array = self._value(state, step.array)
            if type(array) is not list and type(array) is not dict:
                raise TypeError(f"foreach goes over a list or a dict, not {type(array).__name__}")
            items = list(array)  # a shallow copy (a dict's keys): the steps may change it
        except Exception as error:
            self._error(state, error, event, where)
            return False
        for index, item in enumerate(items):
            try:
                model.assign(step.item, stored(item))
                if step.index is not None:
                    model.assign(step.index, index)
            except Exception as error:
                self._error(state, error, event, where)
                return False
            if not (yield from self.run(state, step.steps, payload, event)):
                return False
        return True

    def initialize(self, state: ChartState, early: bool) -> Generator[Request, Any, None]:
        """The machine's own data initializers, then (``early``) every state's, in document
        order; each initializer is a block of its own (SCXML 5.3: a failing ``<data>`` leaves
        the others to run). A field given at construction keeps its value: its initializer is
        skipped (SCXML's ``<invoke>`` params), now or, for a state bound late, when the state
        is first entered."""
        nodes = self.chart.nodes
        model = state.model
        given = frozenset() if model is None else model.given
        for steps in (self.chart.data_steps, *(n.data_steps for n in nodes if early)):
            for step in steps:
                if not given or not _initializes(step, given):
                    yield from self.run(state, (step,), _NO_DATA, None)
        if given:
            assert model is not None
            model.given = given.intersection(frozenset().union(*self.late_fields.values()))

    def bind(
        self, state: ChartState, node: int, payload: Mapping[str, Any], event: Any
    ) -> Generator[Request, Any, None]:
        """Late binding: a state's own data is initialized when it is first entered (each
        initializer a block of its own: the state's entry runs whatever they did)."""
        model = state.model
        assert model is not None
        if node in model.initialized:
            return
        model.initialized = model.initialized | {node}
        given = model.given
        for step in self.chart.nodes[node].data_steps:
            if not given or not _initializes(step, given):
                yield from self.run(state, (step,), payload, event)
        if given:
            model.given = given - self.late_fields[node]

    def invoking_step(
        self, state: ChartState, step: Invoking, payload: Mapping[str, Any], event: Any
    ) -> Steps:
        """An invoking state's step: its engine runs it (statewright._chart_invoke)."""
        raise NotImplementedError

    def done_data(self, state: ChartState, final: int, event: Any) -> Any:
        """What entering the final state ``final`` gives its parent's ``done.state`` event:
        its done data (None when computing it failed, after the error: SCXML 5.7)."""
        donedata = self.chart.nodes[final].donedata
        if donedata is None:
            return None
        try:
            return stored(self._value(state, donedata))
        except Exception as error:
            self._error(state, error, event, f"donedata of {self.names[final]}")
            return None

    # -- sending ---------------------------------------------------------------------------------
    def _send_plain(
        self, state: ChartState, step: Send, payload: Mapping[str, Any], event: Any
    ) -> Block:
        """A send in a chart without data-model content: its event after its delay."""
        delay = step.delay
        if step.handler is not None:
            delay = yield from self._handler_delay(state, step, payload, event)
            if delay is None:
                return False
        assert delay is not None
        state.timers.pop(step.id, None)  # started again: it goes last among ties
        state.timers[step.id] = Pending(step.event, state.time() + delay, delay, step.on_restore)
        return True

    def _handler_delay(
        self, state: ChartState, step: Send, payload: Mapping[str, Any], event: Any
    ) -> Generator[Request, Any, float | None]:
        """The seconds the delay handler returns (None after it failed)."""
        assert step.handler is not None
        delay = yield (DELAY, step.handler, payload)
        if isinstance(delay, Failure):
            self._failed(state, delay, event, step.handler)
            return None
        if (
            not isinstance(delay, int | float)
            or isinstance(delay, bool)
            or not 0 <= delay <= MAX_DELAY
        ):
            error = TypeError(
                f"{step.handler} returned {delay!r:.60}, not seconds from 0 to ten years "
                f"({MAX_DELAY:.0f})"
            )
            self._failed(state, Failure(error), event, step.handler)
            return None
        return delay

    def _send(self, state: ChartState, step: Send, payload: Mapping[str, Any], event: Any) -> Block:
        """A send with the data model's forms (SCXML 6.2): the id first (an ``id_location``
        receives it even when the send then fails), then the event, target, type, delay and
        data; an error dispatches nothing."""
        model = state.model
        assert model is not None
        where = f"send {step.event}" if step.event_expr is None else "send"
        timer_id = step.id
        sendid: str | None = timer_id or None
        try:
            if not timer_id:
                timer_id = made_up_id(step.id_location is None)
                if step.id_location is not None:
                    model.assign(step.id_location, timer_id)
                    sendid = timer_id
            member = step.event
            if step.event_expr is not None:
                member = self._value(state, step.event_expr)
            target = step.target
            if step.target_expr is not None:
                target = self._value(state, step.target_expr)
            kind = step.type if step.type_expr is None else self._value(state, step.type_expr)
            queue = route(target, kind, model.system, state.children)
            own = queue in _OWN_QUEUES  # else the receiver's event of that name, checked there
            if step.event_expr is not None:
                member = self._event_named(member, own)
            delay: float | None = step.delay or 0.0
            if step.delay_expr is not None:
                delay = seconds(self._value(state, step.delay_expr))
            data = None if step.data is None else stored(self._value(state, step.data))
            checked = step.data is not None or step.event_expr is not None
            if own and checked and member in self.payloads:
                data = self.sent_payload(member, data)
        except Unreachable as error:
            self._error(state, error, event, where, sendid, communication=True)
            return False
        except Exception as error:
            self._error(state, error, event, where, sendid)
            return False
        if step.handler is not None:
            delay = yield from self._handler_delay(state, step, payload, event)
            if delay is None:
                return False
        assert delay is not None
        if queue != INTERNAL_QUEUE:  # the external queue, or another machine's (a message)
            state.timers.pop(timer_id, None)  # started again: it goes last among ties
            sent = (member, state.time() + delay, delay, step.on_restore, data, sendid)
            state.timers[timer_id] = Pending(*sent) if own else Message(*sent, target=queue)
        elif delay:
            problem = ValueError(f"an event sent to #_internal cannot wait ({delay:g} seconds)")
            self._error(state, problem, event, where, sendid)
            return False
        else:
            data = {} if data is None else data
            info = EventInfo(str(member), data, INTERNAL, sendid)
            state.queue.append((member, data if type(data) is dict else {}, info))
        return True

    def sent_payload(self, member: Any, data: Any) -> dict[str, Any]:
        """``data`` (None: no data) checked against the payload fields ``member`` declares, its
        optional fields left out sent as ``None`` (what a send the compiler checked sends): a
        send whose event or data an expression computed cannot give an event data its payload
        type does not admit (``InvalidPayload``, ``TypeError``: ``error.execution``)."""
        from statewright._payloads import check_payload

        if data is None:
            data = {}
        elif type(data) is not dict:
            raise TypeError(f"the data of {member} must be an object of its payload fields")
        checked = check_payload(str(member), self.payloads[member], data)
        return {name: data.get(name) for name in checked}

    def _event_named(self, name: Any, own: bool = True) -> Any:
        """The event member whose value ``name`` is (an ``event_expr``'s result), or for a send
        to another machine (not ``own``) the name itself, which the receiver looks up."""
        member = self.events_by_value.get(name) if type(name) is str and own else None
        if member is None and (own or type(name) is not str or not name):
            raise ValueError(f"{name!r:.80} is not an event {'of the machine' if own else 'name'}")
        return name if member is None else member

    # -- internal events and errors --------------------------------------------------------------
    def _raise(
        self,
        state: ChartState,
        event: Any,
        data: Any = None,
        kind: str = INTERNAL,
        sendid: str | None = None,
    ) -> None:
        if event is None:  # done.state.<id> nobody declared (or listens for): nothing to do
            return
        if not self.expressive:
            state.queue.append((event, {}, None))
        else:
            data = {} if data is None else data
            info = EventInfo(str(event), data, kind, sendid)
            state.queue.append((event, data if type(data) is dict else {}, info))

    def _failed(self, state: ChartState, failure: Failure, event: Any, step: str | None) -> None:
        """An error in a guard (``step`` None) or a handler action."""
        self._error(state, failure.error, event, step)

    def _error(
        self,
        state: ChartState,
        error: Exception,
        event: Any,
        step: str | None,
        sendid: str | None = None,
        communication: bool = False,
    ) -> None:
        """SCXML's ``error.execution`` (``error.communication``), or the exception that makes
        the machine refuse the event (``on_error = "raise"``): :class:`GuardFailed` for a
        condition (``step`` None), else :class:`ActionFailed` naming the step."""
        if self.chart.on_error == "event":
            name = self.communication_event if communication else self.error_event
            self._raise(state, name, None, PLATFORM, sendid)
            return
        where = self.describe(state)
        shown = "(eventless)" if event is None else str(event)
        if step is None:
            raise GuardFailed(where, shown, error) from error
        raise ActionFailed(where, shown, step, error) from error


def _initializes(step: Step, given: frozenset[str]) -> bool:
    """Whether the initializer ``step`` sets a field given at construction."""
    return isinstance(step, Assign) and step.container is None and step.field in given

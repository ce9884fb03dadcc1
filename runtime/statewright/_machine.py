"""The synchronous machine: ``send`` applies one event atomically under a per-instance lock.

Order of effects for one event of a flat machine: guards (spec order, first that passes wins) ->
clock -> exit actions of the source -> the alternative's actions -> entry actions of the target
-> checkpoint save of the post-transition snapshot (checkpoint alternatives with a store) ->
state change and history record -> listeners and log. A checkpoint transition is durable or
does not happen: if its save fails, the machine stays in the source state. Self-transitions are
external: they run exit and entry actions too. A statechart's event is one SCXML macrostep
(:mod:`statewright._chart`), committed the same way.

What an event does is :class:`~statewright._base.BaseMachine`'s; this class adds the lock, the
driver that answers the engine's requests by calling the user's code, and the public entry
points. ``send`` and ``try_send`` are compiled from the trivial commit's one text
(:mod:`statewright._trivial`) the first time they are looked up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

from statewright._base import BaseMachine
from statewright._compat import StrEnum
from statewright._engine import ACTION, DELAY, GUARD, INVOKE, SAVE, Failure, Request
from statewright._errors import InvalidTransition
from statewright._listeners import default_options, refuse_async_listeners
from statewright._locks import NO_LOCK, Lock
from statewright._trivial import (
    Compiled,
    compile_chart_send,
    compile_chart_try_send,
    compile_send,
    compile_try_send,
    install_event_methods,
    owner_of,
    restore_event_methods,
)

if TYPE_CHECKING:  # statewright._options is imported on first use: see statewright._listeners
    from statewright._chart_state import Pending
    from statewright._idempotency import SendResult
    from statewright._options import MachineOptions
    from statewright._snapshot_decode import Decoded
    from statewright._stores.protocol import Store

__all__ = ["ChartMachine", "Machine"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")
T = TypeVar("T")

_SEND_DOC = """Apply ``event`` and return the new state, or raise :class:`InvalidTransition`.

Accepts the event member or its string value. Raises :class:`ActionFailed` when an action
raised and the source state has no error route (the machine then did not move). A statechart
processes the event to completion (its transitions, then eventless transitions and raised
events); a guard or action that raises leaves it as it was (``on_error = "raise"``) or raises
``error.execution`` (``on_error = "event"``)."""

_TRY_SEND_DOC = """Like :meth:`send` but return False instead of raising :class:`InvalidTransition`.

A rejection is an answer, not a failure: nothing is raised or built for it (it is logged at
DEBUG when that level is enabled)."""


class Machine(BaseMachine[S, E, C]):
    """Base class of every generated machine (the generated subclass sets ``spec``); a
    statechart's constructor enters its initial configuration, running its entry actions and
    eventless transitions."""

    def __init__(
        self,
        context: C,
        handlers: object | None = None,
        *,
        options: MachineOptions | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        """``data``: initial data for this instance, by data field name (see
        :attr:`~statewright.MachineInstance.data`)."""
        self._construct(context, handlers, options, None, data)

    def _construct(
        self,
        context: C,
        handlers: object | None,
        options: MachineOptions | None,
        snapshot: Decoded | None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        opts = default_options() if options is None else options
        if self._parent is not None:  # a child machine: its tree's one lock
            from statewright._tree import root_of

            lock: Lock = root_of(self)._lock
        elif opts.thread_safe:
            import threading  # here, not at the top: ~1 ms off importing a generated module

            lock = threading.RLock()
        else:
            lock = NO_LOCK
        self._lock = lock
        self._setup(context, handlers, opts, lock, data, snapshot is not None)
        if snapshot is not None:
            self._install(snapshot)
        elif not self._started and self._parent is None:  # a child: when its parent starts it
            self._drive(self._start_steps())  # a statechart enters its initial configuration
            if self._invoking:
                self._deliver(self._clock(), False)

    if TYPE_CHECKING:

        def send(self, event: E, /, **payload: Any) -> S:
            """See :data:`_SEND_DOC`."""

        def try_send(self, event: E, /, **payload: Any) -> bool:
            """See :data:`_TRY_SEND_DOC`."""

    else:
        send = Compiled(compile_send, _SEND_DOC)
        try_send = Compiled(compile_try_send, _TRY_SEND_DOC)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give a generated flat machine's event methods :meth:`send`'s inline path.

        A generated method ``open()`` is ``return self.send(_E_OPEN)``: one Python frame more
        than ``send``. Here it is replaced by the same path with its event built in (compiled
        on first use), keeping its name, signature and docstring. A subclass that overrides
        ``send`` gets the generated methods back, so they keep going through its ``send``.
        """
        super().__init_subclass__(**kwargs)
        if owner_of(cls, "send") is not Machine:
            restore_event_methods(cls)
            return
        spec = cls.__dict__.get("spec")
        if spec is None:
            return
        if getattr(spec, "chart", None) is None:
            install_event_methods(cls, spec)
        else:  # a statechart: its planned events are in its configurations' fast rows
            Compiled.install(cls, "send", compile_chart_send, _SEND_DOC)
            Compiled.install(cls, "try_send", compile_chart_try_send, _TRY_SEND_DOC)
            if any(node.invokes for node in spec.chart.nodes):
                cls._in_trees()

    @classmethod
    def _in_trees(cls) -> None:
        """Machines of this class are in trees of machines (it invokes children, or is a
        child's class): their events go through :meth:`_send_tree`. Set on the class when that
        is known, so that other machines' events pay nothing for trees."""
        cls._send_slow = Machine._send_tree  # type: ignore[method-assign]  # the tree's path

    # ----------------------------------------------------------------- the general path

    def _send_slow(self, event: object, payload: dict[str, Any], key: str | None = None) -> S:
        """An event off the trivial path (the caller holds the lock)."""
        if self._chart is None and (rejection := self._rejection(event)) is not None:  # no step
            raise self._logged(InvalidTransition(*rejection[2])) from None  # (not a KeyError's)
        target, pending = self._drive(self._transition(event, payload, key, None))
        if pending:
            refuse_async_listeners(pending)
        return target

    def _send_tree(self, event: object, payload: dict[str, Any], key: str | None = None) -> S:
        """:meth:`_send_slow` in a tree of machines: the event, then the events it caused
        between them (:mod:`statewright._tree`)."""
        assert self._chart is not None  # a tree's machines are statecharts
        before = self._chart.children
        target, pending = self._drive(self._transition(event, payload, key, None))
        if pending:
            refuse_async_listeners(pending)
        chart = self._chart
        settled = not self._unsettled and self._parent is None
        if settled and chart.children is before and not chart.timers:
            return target  # nothing started, ended or sent: nothing to deliver
        from statewright._tree import quiet

        if not quiet(self, before):
            self._deliver(self._clock(), False)
        return self._state

    def _apply(
        self,
        event: object,
        payload: dict[str, Any],
        key: str | None = None,
        lateness: float | None = None,
        now: float | None = None,
        sent: Pending | None = None,
    ) -> S:
        """One event of this machine alone; a timer's gives how late it fires, its due time
        and the timer (see :meth:`_transition`)."""
        target, pending = self._drive(self._transition(event, payload, key, lateness, now, sent))
        if pending:
            refuse_async_listeners(pending)
        return target

    def _deliver(self, at: float, own: bool) -> int:
        """Process the events of this machine's tree due at ``at`` (``own``: every timer, else
        the events between machines) until none is left; returns how many
        (:class:`~statewright._tree.Delivery`)."""
        from statewright._tree import Delivery, root_of

        root = root_of(self)
        delivery = Delivery(root, at, own)
        root._unsettled = True  # until the walk ends (an error leaves events to deliver)
        while (item := delivery.next()) is not None:
            session, timer = item
            with contextlib.suppress(InvalidTransition):  # logged at DEBUG by send
                lateness = delivery.lateness(timer)
                session._apply(timer.event, timer.payload, None, lateness, timer.due, timer)
        root._unsettled = False
        return delivery.count

    def _new_child(self, invoke: Any, invokeid: str, data: Any, now: float) -> Any:
        """Start the child machine ``invoke`` describes, at ``now`` (the ``INVOKE`` request)."""
        from statewright._tree import adopt, child_class, child_parts

        cls = child_class(type(self), invoke)
        context, handlers, options = child_parts(self, invoke)
        child = cls.__new__(cls)  # built as restore builds one: the parent starts it
        child._parent, child._invokeid = self, invokeid
        child._construct(context, handlers, options, None, data)
        if not child._started:
            child._drive(child._start_steps(now))
        return adopt(self, child, now)

    def _try_slow(self, event: object, payload: dict[str, Any]) -> bool:
        """``try_send`` off the trivial path: an event no transition of the state takes is
        answered without an exception; the rest is :meth:`_send_slow`."""
        try:
            self._check_usable()
            member = self._member(event)
            if self._rejection(member) is not None:
                self._rejected_quietly(member)
                return False
            self._send_slow(member, payload)
        except InvalidTransition:
            return False
        return True

    def _drive(self, steps: Generator[Request, Any, T]) -> T:
        """Answer the engine's requests (guards, actions, delays, logs, checkpoint saves) by
        calling the user's code and the store, until the step returns its result. A failed save
        is thrown back into the step, so that it leaves the machine as it was."""
        value: Any = None
        resume = steps.send
        try:
            while True:
                try:
                    kind, subject, argument = resume(value)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
                resume = steps.send
                if kind is GUARD:
                    try:
                        value = subject(self._handlers, self._context, *argument)
                    except Exception as exc:
                        value = Failure(exc)
                elif kind is ACTION:
                    try:
                        value = self._call(subject, argument)
                    except Exception as exc:
                        value = Failure(exc)
                elif kind is DELAY:
                    try:
                        value = self._calls[subject](self._context, argument)
                    except Exception as exc:
                        value = Failure(exc)
                elif kind is SAVE:
                    try:
                        value = self._store_snapshot(subject, argument)
                    except Exception as exc:
                        resume, value = steps.throw, exc
                elif kind is INVOKE:
                    try:
                        value = self._new_child(subject, *argument)
                    except Exception as exc:
                        value = Failure(exc)
                else:
                    self._log_step(subject, argument)
                    value = None
        finally:
            steps.close()  # a no-op once it returned; its clean-up when user code raised

    # ----------------------------------------------------------------- the other entry points

    @property
    def dynamic(self) -> Machine[S, E, C]:
        """This machine, typed as the generic :class:`Machine`: its ``send``, ``try_send`` and
        ``can_send`` take any event member with any payload keywords. The escape hatch for
        events chosen at run time; strings from outside go through :meth:`send_external`."""
        return self

    @overload
    def send_external(
        self,
        event: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        /,
        *,
        idempotency_key: None = None,
    ) -> S: ...
    @overload
    def send_external(
        self,
        event: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        /,
        *,
        idempotency_key: str,
    ) -> SendResult[S]: ...
    def send_external(
        self,
        event: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        /,
        *,
        idempotency_key: str | None = None,
    ) -> S | SendResult[S]:
        """Send an event named by untrusted input (an LLM tool call, a webhook): ``event`` is the
        event's name or value, ``arguments`` its payload as a mapping or JSON text.

        The payload is checked against the spec's types first: an unknown event raises
        :class:`UnknownEvent`, bad arguments :class:`InvalidPayload` naming the field; either
        way nothing was sent. Then it is :meth:`send` (which may raise InvalidTransition), or
        with ``idempotency_key`` :meth:`send_once`.
        """
        member, payload = self._external(event, arguments)
        if idempotency_key is None:
            return self.send(member, **payload)
        return self.send_once(idempotency_key, member, **payload)

    def send_once(self, key: str, event: E, /, **payload: Any) -> SendResult[S]:
        """Apply ``event`` unless ``key`` was applied before: the same key on the same machine
        is applied once (across processes, with a store). Returns a :class:`SendResult`:
        ``applied`` False and the earlier event id for a duplicate.

        With ``options.store`` the transition is checkpointed with its key (durable or not
        applied): a duplicate racing in another process gets :class:`Conflict`; load the
        instance again and send once more, and it answers ``applied=False``. A rejected event
        (:class:`InvalidTransition`) or a failed action records no key. ``key`` is a string of 1
        to 200 characters (else ValueError).
        """
        from statewright._idempotency import SendResult, check_key

        check_key(key)
        with self._lock:
            self._check_usable()
            keys = self._keys
            if keys is not None and key in keys:
                return SendResult(self._state, False, keys[key])
            state = self._send_slow(event, payload, key)
            keys = self._keys
            applied = keys[key] if keys is not None and key in keys else self.total_transitions
            return SendResult(state, True, applied)

    def can_send(self, event: E, /, **payload: Any) -> bool:
        """Whether ``send(event, **payload)`` would be accepted now; evaluates guards only."""
        with self._lock:
            return self._drive(self._can_take(event, payload))

    def save(self, store: Store | None = None) -> int:
        """Save a snapshot to ``store`` (default ``options.store``) now; returns the revision."""
        with self._lock:
            if store is None:
                return self._save_locked()
            return self._store_snapshot(store, self._save_payload(store))

    def fire_due(self, now: float | None = None) -> int:
        """Send every timer's event that is due at ``now`` (default: the clock, read once),
        earliest first, through the send path (so guards, checkpoints and listeners apply);
        returns how many fired. A fired timer is gone even when no transition took its event.

        Each timer fires at its due time: its macrostep's time is the due time, so the timers
        it starts are due at that time plus their delay, and its history record's epoch is the
        due time; ``lateness`` records how late it fired (``now`` minus the due time). One call
        fires at most ``MAX_TIMER_FIRINGS`` (10,000) timers: when another is still due it raises
        :class:`TimerLoop` naming the cycle, keeping what fired (see
        :mod:`statewright._timers`). A tree of machines (child machines) fires every timer and
        event between its machines due at ``now``, earliest first (:mod:`statewright._tree`)."""
        from statewright._timers import Firing

        with self._lock:
            at = self._clock() if now is None else now
            if self._invoking or self._parent is not None:  # the tree's, earliest first
                return self._deliver(at, True)
            firing = Firing(at)
            while (timer := firing.next(self._chart)) is not None:
                with contextlib.suppress(InvalidTransition):  # logged at DEBUG by send
                    lateness = firing.lateness(timer)
                    self._apply(timer.event, timer.payload, None, lateness, timer.due, timer)
            return firing.count


#: Statecharts are machines whose engine is the chart engine: the name generated statechart
#: modules (and code written for statewright 0.2) subclass.
ChartMachine = Machine

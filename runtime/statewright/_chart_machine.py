"""Statechart machines: :class:`ChartMachine` and the part it shares with the asyncio flavour.

A generated module whose spec nests states, runs regions in parallel, keeps history, has
eventless transitions or raises events subclasses these instead of :class:`Machine`. The chart
engine (:mod:`statewright._chart`) decides what runs; this module calls the user's guards and
actions when the engine asks, and commits the outcome: one external event is one macrostep,
applied to a copy of the chart's state that replaces the machine's only when the whole
macrostep succeeded.

What the rest of the runtime sees stays the flat machine's shape: ``state`` is the first active
leaf in document order (the only one unless regions run in parallel), history records one
``(state before, event, state after)`` per macrostep, and counters count those triples.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Collection, Generator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from statewright._chart import ChartEngine
from statewright._chart_spec import ERROR_ROUTE
from statewright._chart_state import (
    ACTION,
    DELAY,
    GUARD,
    ChartState,
    Failure,
    Microstep,
    Request,
)
from statewright._chart_timers import ChartTimers
from statewright._compat import StrEnum
from statewright._core import _INFO, refuse_async_listeners
from statewright._errors import ActionFailed, InvalidTransition
from statewright._machine import Machine
from statewright._snapshot import M, Snapshot, SnapshotMixin

if TYPE_CHECKING:
    from statewright._options import MachineOptions
    from statewright._snapshot import Payload
    from statewright._snapshot_decode import Decoded
    from statewright._stores.protocol import Store

#: Set while :meth:`ChartCore.restore` builds a machine: the constructor must not enter the
#: initial configuration (running entry actions) of a machine about to get its saved one.
_RESTORING: ContextVar[bool] = ContextVar("statewright_chart_restoring", default=False)

__all__ = ["ChartCore", "ChartMachine"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


class ChartCore(ChartTimers, SnapshotMixin[S, E, C]):
    """The chart's state and bookkeeping, shared by :class:`ChartMachine` and
    :class:`~statewright.AsyncChartMachine`; neither calls user code here."""

    _engine_cache: ClassVar[ChartEngine | None] = None

    @classmethod
    def _engine(cls) -> ChartEngine:
        engine = cls.__dict__.get("_engine_cache")
        table = cls._table()
        if engine is None or engine.chart is not table.spec.chart:
            chart = table.spec.chart
            if chart is None:
                raise TypeError(f"{cls.__name__}.spec has no chart: subclass Machine instead")
            engine = ChartEngine(chart, table.events_by_value)
            cls._engine_cache = engine
        return engine

    def _chart_setup(self) -> bool:
        """Set the chart up; False when a restore will install the saved chart state."""
        self._chart_engine = type(self)._engine()
        self._chart = ChartState(clock=self._clock)
        self._started = False
        self._checkpoint_time: float | None = None
        return not _RESTORING.get()

    # ----------------------------------------------------------------- read-only views

    @property
    def active_states(self) -> frozenset[S]:
        """Every active leaf state (several while parallel regions are active)."""
        engine = self._chart_engine
        return frozenset(engine.members[node] for node in engine.leaves(self._chart))

    def is_in(self, states: S | Collection[S], /) -> bool:
        """Whether a leaf state is active, or (a collection such as ``IN_<NAME>``) any of its
        states is."""
        active = self.active_states
        if isinstance(states, StrEnum):
            return states in active
        return not active.isdisjoint(states)

    def allowed_events(self) -> frozenset[E]:
        """Events some transition of an active state (or an ancestor) takes; guards not
        evaluated."""
        allowed = self._spec_table.allowed
        states = self.active_states or {self._state}
        return frozenset().union(*(allowed[state] for state in states))

    @property
    def is_final(self) -> bool:
        return self._chart.finished

    # ----------------------------------------------------------------- running the engine

    def _log_step(self, label: str, text: str) -> None:
        self._logger.info(
            "%s %s: %s: %s", self._spec_table.spec.name, self._instance_id, label or "log", text
        )

    def _chart_commit(
        self,
        working: ChartState,
        event: E,
        payload: Mapping[str, Any],
        stamp: float | None,
        error: str | None = None,
        lateness: float | None = None,
    ) -> tuple[S, S, int]:
        """Make ``working`` the machine's chart state and record the macrostep (``error``: the
        failed action an error route replaced; ``lateness``: how late its timer fired, for a
        timer's event); returns ``(state before, state after, counter
        index)``."""
        engine = self._chart_engine
        source = self._state
        leaves = engine.leaves(working)
        target: S = engine.members[leaves[0]] if leaves else source
        index = self._counter(source, event, target)
        if self._history is not None:
            if lateness is not None:
                record: tuple[Any, ...] = (index, stamp, payload, error, lateness)
            elif error is not None:
                record = (index, stamp, payload, error)
            else:
                record = (index, stamp, payload)
            self._history.append(record)
        self._chart = working
        if target is not source:
            self._prev = source
        self._state = target
        self._counts[index] += 1
        return source, target, index

    def _chart_checkpoint(
        self,
        store: Store,
        working: ChartState,
        event: E,
        payload: Mapping[str, Any],
        stamp: float | None,
        error: str | None,
        key: str | None,
        lateness: float | None,
    ) -> Payload:
        """What the machine will save once the macrostep is committed (with the idempotency
        ``key`` it applies); the machine is left as it was (the caller saves it, then commits:
        durable or not applied)."""
        history, previous, state, chart = self._history, self._prev, self._state, self._chart
        full = history is not None and len(history) == history.maxlen
        dropped = history[0] if history is not None and full else None
        _, _, index = self._chart_commit(working, event, payload, stamp, error, lateness)
        self._checkpoint_time = working.time()  # the macrostep's, not a second clock reading
        evicted = self._remember_key(key)
        try:
            return self._save_payload(store)
        finally:
            self._forget_key(key, evicted)
            self._checkpoint_time = None
            self._state, self._prev, self._chart = state, previous, chart
            self._counts[index] -= 1
            if history is not None:
                history.pop()
                if dropped is not None:
                    history.appendleft(dropped)

    # ----------------------------------------------------------------- snapshots

    def _build_snapshot(self, history: list[dict[str, Any]] | None) -> dict[str, Any]:
        from statewright._chart_snapshot import encode_chart

        data = super()._build_snapshot(history)
        saved_at = self._checkpoint_time
        if saved_at is None:
            saved_at = self._clock()
        data["chart"] = encode_chart(self._chart_engine, self._chart, saved_at)
        return data

    @classmethod
    def restore(
        cls: type[M],
        snapshot: Snapshot[M] | str | bytes,
        handlers: object | None = None,
        *,
        options: MachineOptions | None = None,
        context: Any = None,
    ) -> M:
        """Like :meth:`Machine.restore`; the saved configuration, history memory, queued events
        and timers are installed as they were, and no entry action runs."""
        token = _RESTORING.set(True)
        try:
            return super().restore(snapshot, handlers, options=options, context=context)
        finally:
            _RESTORING.reset(token)

    def _restored(self, decoded: Decoded) -> None:
        from statewright._chart_snapshot import restart_timers

        chart: ChartState
        chart, saved_at = decoded.chart
        chart.clock = self._clock
        restart_timers(chart.timers, saved_at, self._clock())
        self._chart = chart
        self._started = True

    def _counter(self, source: S, event: E, target: S) -> int:
        """The counter of a ``(source, event, target)`` triple, registered on first use: a
        chart's triples depend on history and regions, so the class learns them as they occur."""
        table = self._spec_table
        triple = (source, event, target)
        index = table.counter_index.get(triple)
        if index is None:
            index = table.learn_triple(triple)
        while len(self._counts) <= index:
            self._counts.append(0)
        return index

    def _after_start(self, working: ChartState) -> None:
        engine = self._chart_engine
        self._chart = working
        leaves = engine.leaves(working)
        if leaves:
            self._state = engine.members[leaves[0]]

    def _route_text(self, failure: ActionFailed, event: E, working: ChartState) -> str:
        """The history's error text for an action an error route replaced (logged as well)."""
        text = f"{failure.action}: {type(failure.error).__name__}: {failure.error}"
        leaves = self._chart_engine.leaves(working)
        self._routed(event, text, self._chart_engine.members[leaves[0]])
        return text

    def _checkpoints(self, taken: list[Microstep]) -> bool:
        transitions = self._chart_engine.chart.transitions
        return any(transitions[index].checkpoint for _, indexes in taken for index in indexes)

    def _rejected(self, member: E) -> InvalidTransition:
        reason = "no guard passed" if member in self.allowed_events() else ""
        if not reason and self._chart.finished:
            reason = "the state is final"
        return self._reject(member, reason)


class ChartMachine(ChartCore[S, E, C], Machine[S, E, C]):
    """Base class of generated statechart machines: entering the initial configuration runs
    its entry actions (and eventless transitions) as the machine is constructed."""

    def __init__(
        self, context: C, handlers: object | None = None, *, options: MachineOptions | None = None
    ) -> None:
        super().__init__(context, handlers, options=options)
        if not self._chart_setup():
            return
        working = ChartState(clock=self._clock)
        self._enter_user_code()
        try:
            self._drive(self._chart_engine.start(working), working)
        finally:
            self._leave_user_code()
        self._after_start(working)

    def _drive(self, steps: Generator[Request, Any, Any], working: ChartState) -> Any:
        """Answer the engine's requests (guards, actions, logs) until it returns."""
        result: Any = None
        try:
            while True:
                kind, subject, argument = steps.send(result)
                result = None
                if kind is GUARD:
                    try:
                        result = subject(self._handlers, self._context, argument, working.active)
                    except Exception as exc:
                        result = Failure(exc)
                elif kind is ACTION:
                    working.time()  # read before any action runs; a failing clock propagates
                    try:
                        self._call(subject, argument)
                    except Exception as exc:
                        result = Failure(exc)
                elif kind is DELAY:
                    try:
                        result = self._calls[subject](self._context, argument)
                    except Exception as exc:
                        result = Failure(exc)
                else:
                    self._log_step(subject, argument)
        except StopIteration as stop:
            return stop.value

    def send(self, event: E, /, **payload: Any) -> S:
        """Process ``event`` to completion (its transitions, then eventless transitions and
        raised events) and return the new state, or raise :class:`InvalidTransition` when no
        transition takes it. A guard or action that raises leaves the machine as it was
        (``on_error = "raise"``) or raises ``error.execution`` (``on_error = "event"``)."""
        with self._lock:
            return self._send_chart(event, payload, None, None)

    def _send_keyed(self, event: object, payload: dict[str, Any], key: str) -> S:
        return self._send_chart(event, payload, key, None)

    def _send_chart(
        self, event: object, payload: dict[str, Any], key: str | None, lateness: float | None
    ) -> S:
        """One macrostep (the caller holds the lock); checkpointed when a transition taken is
        a checkpoint one or ``key`` (an idempotency key) is given and there is a store."""
        self._check_usable()
        member, _ = self._resolve(event)
        working = self._chart.copy()
        error: str | None = None
        self._enter_user_code()
        try:
            try:
                taken = self._drive(self._chart_engine.handle(working, member, payload), working)
            except ActionFailed as failure:  # an error route, or the failure as it is
                failed = working.selected
                working = self._chart.copy()
                engine = self._chart_engine
                taken = self._drive(engine.handle(working, ERROR_ROUTE, payload), working)
                if taken is None:
                    raise
                error = self._route_text(failure, member, working)
                taken.insert(0, (member, failed[0] if failed else ()))
            if taken is None:
                raise self._rejected(member)
            stamp = working.time() if self._history is not None or self._listeners else None
            store = self._options.store
            if store is not None and (key is not None or self._checkpoints(taken)):
                snapshot = self._chart_checkpoint(
                    store, working, member, payload, stamp, error, key, lateness
                )
                self._store_snapshot(store, snapshot)  # durable before it is applied
            source, target, _ = self._chart_commit(working, member, payload, stamp, error, lateness)
            self._remember_key(key)
        finally:
            self._leave_user_code()
        pending = pending_listeners(self, source, member, target, payload, error, stamp)
        if pending:
            refuse_async_listeners(pending)
        return target

    def try_send(self, event: E, /, **payload: Any) -> bool:
        try:
            self.send(event, **payload)
        except InvalidTransition:
            return False
        return True

    def fire_due(self, now: float | None = None) -> int:
        """Send every timer's event that is due at ``now`` (default: the clock), earliest first,
        through the send path (so guards, checkpoints and listeners apply); returns how many
        fired. A fired timer is gone even when no transition took its event. Each transition a
        timer makes records how late it fired (``now`` minus the due time) in its history
        record's ``lateness``."""
        fired = 0
        with self._lock:
            while True:
                at = self._clock() if now is None else now
                found = self._take_due(at)
                if found is None:
                    return fired
                fired += 1
                pending = found[1]
                with contextlib.suppress(InvalidTransition):  # logged at DEBUG by send
                    self._send_chart(pending.event, {}, None, max(0.0, at - pending.due))

    def can_send(self, event: E, /, **payload: Any) -> bool:
        """Whether some transition would take ``event`` now; evaluates guards only."""
        with self._lock:
            member, _ = self._resolve(event)
            working = self._chart.copy()
            self._enter_user_code()
            try:
                enabled = self._drive(self._chart_engine.select(working, member, payload), working)
            finally:
                self._leave_user_code()
            return bool(enabled)


def pending_listeners(machine: ChartCore[Any, Any, Any], *args: Any) -> list[Awaitable[object]]:
    """The announcement of a committed macrostep (listeners and the log)."""
    if machine._listeners or machine._log_cache.get(_INFO, True):
        return machine._announce(*args)
    return []

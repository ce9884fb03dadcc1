"""What an event does to a machine, whatever its flavour (sync or asyncio) and its engine (flat
or statechart), written once.

A generated machine is one runtime class, :class:`~statewright.Machine` or
:class:`~statewright.AsyncMachine` (statecharts: the thin :class:`~statewright.ChartMachine` and
:class:`~statewright.AsyncChartMachine` on top), over :class:`BaseMachine`, over
:class:`~statewright._persistence.PersistentMachine` (snapshots and saves), over
:class:`~statewright._instance.MachineInstance` (what an instance holds and reports). It *holds*
an engine, built once per class: :class:`~statewright._flat.FlatEngine` or
:class:`~statewright._chart_engine.ChartEngine`, which answer the same questions
(:class:`~statewright._engine.Engine`). An event off the trivial path is one generator,
:meth:`BaseMachine._transition`: it asks the engine for an :data:`~statewright._engine.Outcome`,
saves a checkpoint, commits and announces, and *yields* every call of user code and every save,
which the flavour's driver answers (calling or awaiting). The trivial path is compiled from one
text (:mod:`statewright._trivial`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from statewright._compat import StrEnum
from statewright._engine import SAVE, Outcome, Request
from statewright._errors import ClockError, InvalidTransition, StatewrightError, UnknownEvent
from statewright._first_call import on_first_call
from statewright._history_views import record, record_type
from statewright._instance import BUSY_ROW
from statewright._listeners import DEBUG, INFO
from statewright._persistence import PersistentMachine

if TYPE_CHECKING:
    from statewright._chart_state import Pending
    from statewright._snapshot import Payload
    from statewright._stores.protocol import Store
    from statewright._table import Fast

__all__ = ["BaseMachine"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


class BaseMachine(PersistentMachine[S, E, C]):
    """What an event does to an instance; the flavour above adds the lock, the driver that
    answers the engine's requests, and ``send`` and its siblings."""

    # ----------------------------------------------------------------- an event, written once

    def _transition(
        self,
        event: object,
        payload: dict[str, Any],
        key: str | None,
        lateness: float | None,
        now: float | None = None,
        sent: Pending | None = None,
    ) -> Generator[Request, Any, tuple[S, list[Awaitable[object]]]]:
        """One event off the trivial path, for both flavours (the caller holds the lock): the
        engine's outcome, then a checkpoint when a transition taken asks for one or ``key`` (an
        idempotency key) is given and there is a store (durable, then applied), then the
        commit. Returns the new state and what coroutine listeners returned. A timer's event
        gives how late it fires, its due time (the macrostep's ``now``) and the timer
        (``sent``). A statechart's outcome that is not committed (its checkpoint failed) undoes
        its assignments to the data."""
        if not self._started:  # an asyncio statechart enters with its first event
            yield from self._start_steps()
        if self._busy or self._stale is not None:
            self._check_usable()
        if type(event) is self._spec_table.spec.event_type:
            member: E = event  # type: ignore[assignment]  # a member of the spec's event type E
        else:
            member = self._member(event)
        clock = self._clock if self._history is not None or self._listeners else None
        self._busy = True  # from the first guard to the commit, re-entrant sends are refused
        self._fast = BUSY_ROW
        try:
            outcome = yield from self._engine.step(
                self._state, self._prev, self._chart, member, payload, clock, now, sent
            )
            if isinstance(outcome, str):
                raise self._reject(member, outcome)
            target, working, error, checkpoint, stamp = outcome
            if error is not None:
                self._routed(member, error, target)
            store = self._options.store
            if store is not None and (key is not None or checkpoint):
                try:
                    yield (
                        SAVE,
                        store,
                        self._checkpoint(store, outcome, member, payload, key, lateness),
                    )
                except BaseException:
                    if working is not None:
                        working.rollback()
                    raise
            source = self._commit(member, target, working, payload, error, stamp, lateness)
            if key is not None:
                self._remember_key(key)
        finally:
            self._busy = False
            if self._stale is None:  # a planning statechart's row is its configuration's
                engine = self._engine
                if engine.planned and self._parent is None:  # (a child's events go via its tree)
                    self._fast = engine.row(self._state, self._chart)
                else:
                    self._fast = self._spec_table.fast_rows[self._state]
        pending: list[Awaitable[object]] = []
        if self._listeners or self._log_cache.get(INFO, True):
            pending = self._announce(source, member, target, payload, error, stamp)
        return target, pending

    @classmethod
    def _in_trees(cls) -> None:
        """Machines of this class are in trees of machines (see the flavour's)."""

    def _start_steps(self, now: float | None = None) -> Generator[Request, Any, None]:
        """Enter a statechart's initial configuration (its entry actions and eventless
        transitions); nothing for a flat machine. A child machine starts at its parent's
        macrostep's time ``now``."""
        working = self._engine.initial(self._clock, self._instance_id, self._given)
        if self._parent is not None:
            working.now = now
            if working.model is not None:
                working.model.system.parent = True
        self._enter_user_code()
        try:
            yield from self._engine.start(working)
        finally:
            self._leave_user_code()
        self._chart = working
        if self._given is not None:
            del self._given  # entered with it: back to the class's None
        self._state = self._engine.reported(working, self._state)
        self._started = True

    def _can_take(self, event: object, payload: Mapping[str, Any]) -> Generator[Request, Any, bool]:
        """Whether the event would be accepted now; evaluates guards only."""
        if not self._started:
            yield from self._start_steps()
        member = self._member(event)
        self._enter_user_code()
        try:
            return (
                yield from self._engine.can_take(
                    self._state, self._prev, self._chart, member, payload
                )
            )
        finally:
            self._leave_user_code()

    def _commit(
        self,
        event: E,
        target: S,
        working: Any,
        payload: Mapping[str, Any],
        error: str | None,
        stamp: float | None,
        lateness: float | None,
    ) -> S:
        """Apply an engine's outcome and record it (after user code succeeded); returns the
        state before. The fast row is set when user code is left."""
        source = self._state
        index = self._spec_table.counter_index.get((source, event, target))
        if index is None or index >= len(self._counts):
            index = self._counter(source, event, target)
        history = self._history
        if history is not None:
            if lateness is not None:
                history.append((index, stamp, payload, error, lateness))
            elif error is not None:
                history.append((index, stamp, payload, error))
            elif payload:
                history.append((index, stamp, payload))
            else:  # see statewright._history.RawRecord
                history.append((index, stamp))
        if working is not None:
            self._chart = working
            if self._parent is not None:  # a child: its parent's next save writes it again
                _changed(self)
        if target is not source:
            self._prev = source
        self._state = target
        self._counts[index] += 1
        return source

    def _counter(self, source: S, event: E, target: S) -> int:
        """The counter of a ``(source, event, target)`` triple. A flat table knows every one; a
        statechart's depend on history and regions, so its class learns them as they occur."""
        table = self._spec_table
        triple = (source, event, target)
        index = table.counter_index.get(triple)
        if index is None:
            index = table.learn_triple(triple)
        counts = self._counts
        while len(counts) <= index:
            counts.append(0)
        return index

    def _checkpoint(
        self,
        store: Store,
        outcome: Outcome,
        event: E,
        payload: Mapping[str, Any],
        key: str | None,
        lateness: float | None,
    ) -> Payload:
        """What the machine will save once ``outcome`` is committed (with ``key``, the
        idempotency key it applies); the machine is left as it was (the caller saves it, then
        commits: durable or not applied)."""
        history, previous, state, chart = self._history, self._prev, self._state, self._chart
        full = history is not None and len(history) == history.maxlen
        dropped = history[0] if history is not None and full else None
        target, working, error, _, stamp = outcome
        self._commit(event, target, working, payload, error, stamp, lateness)
        index = self._spec_table.counter_index[(state, event, target)]
        if working is not None:  # a statechart's snapshot is taken at its macrostep
            self._checkpoint_time = working.time()
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

    def _announce(
        self,
        source: S,
        event: E,
        target: S,
        payload: Mapping[str, Any],
        error: str | None,
        stamp: float | None = None,
    ) -> list[Awaitable[object]]:
        """Log and notify listeners about the transition just committed.

        Returns what coroutine listeners returned; the async machine awaits those after
        releasing its lock, the sync machine cannot and refuses them.
        """
        if self._log_on and self._logger.isEnabledFor(INFO):
            self._logger.info(
                "%s %s: %s --%s--> %s",
                self._spec_table.spec.name,
                self._instance_id,
                source,
                event,
                target,
            )
        pending: list[Awaitable[object]] = []
        if not self._listeners:
            return pending
        if self._history:
            transition = record(self._spec_table.triples, self._history[-1], self.total_transitions)
        else:
            if stamp is None:  # history off, on the fast path: the transition is applied
                try:
                    stamp = self._clock()
                except ClockError:
                    self._logger.exception("clock failed; listeners not called")
                    return pending
            transition = record_type()(
                source, event, target, stamp, self.total_transitions, payload, error
            )
        for listener in tuple(self._listeners):
            try:
                result = listener(transition)
            except Exception:
                self._logger.exception("listener %r failed; transition kept", listener)
                continue
            if result is not None:  # most listeners return None: spare importing inspect
                import inspect

                if inspect.isawaitable(result):
                    pending.append(result)
        return pending

    # ----------------------------------------------------------------- checks along the way

    def _member(self, event: object) -> E:
        """The canonical event member ``event`` names (a member or its string value)."""
        table = self._spec_table
        event_type = table.spec.event_type
        if isinstance(event, event_type):
            return event  # type: ignore[no-any-return]  # the spec's event type is E
        if isinstance(event, str) and not isinstance(event, Enum):  # a member of another enum
            # with the same value is no event of this machine, on any path
            member = table.events_by_value.get(event)
            if member is not None:
                return member  # type: ignore[no-any-return]
            reason = f"{event!r} is not an event of {table.spec.name}"
            events: type[Enum] | tuple[()] = event_type
        else:
            event = repr(event)
            reason = f"{event} is not a {event_type.__name__} member or its string value"
            events = ()
        raise self._logged(
            UnknownEvent(str(self._state), str(event), self.allowed_events(), reason, events)
        )

    def _check_usable(self) -> None:
        if self._stale is not None:
            raise StatewrightError(
                f"machine {self._instance_id!r} is stale: its checkpoint lost a race "
                f"({self._stale}); load it again from the store"
            )
        if self._busy:
            raise StatewrightError(
                "send() was called re-entrantly from a guard or action of the same machine; "
                "return and send the next event afterwards"
            )

    def _enter_user_code(self) -> None:
        """From the first guard to the commit, re-entrant sends must take the checked path."""
        self._busy = True
        self._fast = BUSY_ROW

    def _leave_user_code(self) -> None:
        self._busy = False
        if self._stale is None:
            self._fast = self._spec_table.fast_rows[self._state]

    def _routed(self, event: E, error_text: str, target: S) -> None:
        # Seed tests match "taking error route to <state>": keep that wording stable.
        self._logger.warning(
            "%s %s: action failed in %s on %s (%s); taking error route to %s",
            self._spec_table.spec.name,
            self._instance_id,
            self._state,
            event,
            error_text,
            target,
        )

    def _rejection(self, event: object) -> Fast | None:
        """The fast entry that rejects ``event`` when it is a member of the spec's events that
        this flat machine's state has no transition for, while the machine is usable (None
        otherwise): rejected without a step. The state's fast row learns it, so that the next
        one is raised at once (:data:`~statewright._table.Fast`)."""
        table = self._spec_table
        if type(event) is not table.spec.event_type or self._chart is not None:
            return None
        state = self._state
        if event in table.rows[state] or self._busy or self._stale is not None:
            return None
        row = table.fast_rows[state]
        entry = row.get(event)
        if entry is None:
            member: E = event  # type: ignore[assignment]  # a member of the spec's event type E
            entry = row[member] = (None, member, self._rejected_facts(member), -1, False)
        return entry

    def _rejected_facts(self, event: E, reason: str = "") -> tuple[str, str, frozenset[E], str]:
        """What :class:`InvalidTransition` says about ``event`` rejected in the current state."""
        state = self._state
        if not reason and state in self._spec_table.spec.final_states:
            reason = "the state is final"
        return str(state), str(event), self.allowed_events(), reason

    def _reject(self, event: E, reason: str = "") -> InvalidTransition:
        """Build (and log at DEBUG) the rejection; the caller raises it."""
        return self._logged(InvalidTransition(*self._rejected_facts(event, reason)))

    def _rejected_quietly(self, event: E) -> None:
        """A rejection nobody raises (``try_send``): logged like every rejection when DEBUG is
        enabled; otherwise nothing is built for it."""
        if self._log_cache.get(DEBUG, True) and self._logger.isEnabledFor(DEBUG):
            self._reject(event)  # builds and logs it

    def _log_step(self, label: str, text: str) -> None:
        self._logger.info(
            "%s %s: %s: %s", self._spec_table.spec.name, self._instance_id, label or "log", text
        )

    def _call(self, name: str, payload: Mapping[str, Any]) -> Any:
        method = self._calls.get(name)
        if method is None:
            method = getattr(self._handlers, name)
        return method(self._context, payload)


#: What marks a child changed for its tree's saves (statewright._tree_text's ``changed``),
#: imported by the first child's commit (a program without trees never imports it).
_changed: Callable[[Any], None] = on_first_call(
    globals(), "_changed", "statewright._tree_text", "changed"
)

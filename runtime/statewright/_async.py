"""The asyncio flavour: the same engines, bookkeeping and order of effects as :class:`Machine`.

Guards, actions and listeners may be plain functions or coroutines (a result that is awaitable is
awaited). One :class:`asyncio.Lock` per instance makes each event atomic with respect to other
tasks; checkpoint saves run in a worker thread so a slow disk does not stall the loop. What an
event does is :class:`~statewright._base.BaseMachine`'s; this class adds the driver that awaits
what the engine asks for, and the public entry points.

A trivial transition (no guard, no action, no checkpoint) is committed inline when no other task
is inside a transition of this machine: nothing can interleave, because it does not await
(``send`` is compiled from the trivial commit's one text, :mod:`statewright._trivial`). A
constructor cannot await, so a statechart enters its initial configuration (running entry
actions and eventless transitions) on ``await machine.start_chart()`` or, at the latest, with its
first event; until then ``machine.state`` is the spec's initial leaf. Every generated module
defines an async machine class, so this module is imported with it: asyncio and inspect are
imported where they are used (the lock is made by the first event that needs it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar, overload

from statewright._base import BaseMachine
from statewright._compat import StrEnum
from statewright._engine import ACTION, DELAY, GUARD, INVOKE, SAVE, Failure, Request
from statewright._errors import InvalidTransition
from statewright._listeners import default_options
from statewright._locks import NO_LOCK
from statewright._trivial import Compiled, compile_async_send

if TYPE_CHECKING:  # statewright._options is imported on first use: see statewright._listeners
    import asyncio

    from statewright._idempotency import SendResult
    from statewright._options import MachineOptions
    from statewright._snapshot_decode import Decoded
    from statewright._stores.protocol import Store

__all__ = ["AsyncChartMachine", "AsyncMachine"]

#: The longest ``run_timers`` sleeps before looking at the timers again, seconds.
_POLL: Final = 1.0

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")
T = TypeVar("T")

_SEND_DOC = """Apply ``event`` and return the new state, or raise :class:`InvalidTransition`.

Coroutine listeners are awaited after the lock is released, so they may send."""


def _is_awaitable(value: object) -> bool:
    import inspect  # here, not at the top: only results of user code are checked

    return inspect.isawaitable(value)


class AsyncMachine(BaseMachine[S, E, C]):
    """Base class of generated async machines: ``await machine.send(event, **payload)``."""

    _asyncio = True

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
        self._async_lock: asyncio.Lock | None = None
        self._owner: asyncio.Task[Any] | None = None
        opts = default_options() if options is None else options
        self._setup(context, handlers, opts, NO_LOCK, data, snapshot is not None)
        if snapshot is not None:
            self._install(snapshot)
        # else a statechart enters its initial configuration with start_chart() or its first event

    @property
    def _lock(self) -> asyncio.Lock:
        """The machine's lock, made on first use (an asyncio.Lock binds no loop until used); a
        child machine's is its tree's one lock."""
        lock = self._async_lock
        if lock is None:
            if self._parent is not None:
                from statewright._tree import root_of

                return root_of(self)._lock  # type: ignore[no-any-return]  # an AsyncMachine's
            if self._invoking:  # a tree's, which a guard or action of the tree may take again
                from statewright._tree_lock import TreeLock

                lock = self._async_lock = TreeLock()
                return lock
            import asyncio

            lock = self._async_lock = asyncio.Lock()
        return lock

    if TYPE_CHECKING:

        async def send(self, event: E, /, **payload: Any) -> S:
            """See :data:`_SEND_DOC`."""

    else:
        send = Compiled(compile_async_send, _SEND_DOC)

    async def _send_general(self, event: object, payload: dict[str, Any]) -> S:
        """``send`` off the trivial path, or while another task is inside a transition."""
        self._refuse_reentry()
        async with self._lock:
            target, pending = await self._send_locked(event, payload, None)
        for awaitable in pending:
            await self._await_listener(awaitable)
        return target

    async def _send_locked(
        self, event: object, payload: dict[str, Any], key: str | None
    ) -> tuple[S, list[Awaitable[object]]]:
        """One event (the caller holds the lock), then, in a tree of machines, the events it
        caused between them (:mod:`statewright._tree`); the state after them and what
        coroutine listeners returned."""
        if (rejection := self._rejection(event)) is not None:  # no transition: no step either
            raise self._logged(InvalidTransition(*rejection[2]))
        if not self._invoking and self._parent is None:
            return await self._drive(self._transition(event, payload, key, None))
        before = self._chart.children if self._chart is not None else None
        _, pending = await self._drive(self._transition(event, payload, key, None))
        from statewright._tree import quiet

        if not quiet(self, before):
            _, more = await self._deliver(self._clock(), False)
            pending += more
        return self._state, pending

    async def _deliver(self, at: float, own: bool) -> tuple[int, list[Awaitable[object]]]:
        """:meth:`Machine._deliver`, awaiting each event (the caller holds the lock): how many
        were processed, and what coroutine listeners returned."""
        from statewright._tree import Delivery, root_of

        root = root_of(self)
        delivery = Delivery(root, at, own)
        root._unsettled = True  # until the walk ends (an error leaves events to deliver)
        pending: list[Awaitable[object]] = []
        while (item := delivery.next()) is not None:
            session, timer = item
            lateness = delivery.lateness(timer)
            with contextlib.suppress(InvalidTransition):  # logged at DEBUG by send
                _, more = await session._drive(
                    session._transition(
                        timer.event, timer.payload, None, lateness, timer.due, timer
                    )
                )
                pending += more
        root._unsettled = False
        return delivery.count, pending

    async def _new_child(self, invoke: Any, invokeid: str, data: Any, now: float) -> Any:
        """Start the child machine ``invoke`` describes, at ``now`` (the ``INVOKE`` request)."""
        from statewright._tree import adopt, child_class, child_parts

        cls = child_class(type(self), invoke)
        context, handlers, options = child_parts(self, invoke)
        child = cls.__new__(cls)  # built as restore builds one: the parent starts it
        child._parent, child._invokeid = self, invokeid
        child._construct(context, handlers, options, None, data)
        await child._drive(child._start_steps(now))
        return adopt(self, child, now)

    async def _await_listener(self, awaitable: Awaitable[object]) -> None:
        try:
            await awaitable
        except Exception:
            self._logger.exception("listener failed; transition kept")

    def _refuse_reentry(self) -> None:
        """A guard or action awaiting ``send`` on its own machine would wait for itself forever."""
        if self._busy:
            import asyncio

            if self._owner is asyncio.current_task():
                self._check_usable()

    async def _drive(self, steps: Generator[Request, Any, T]) -> T:
        """Answer the engine's requests like :meth:`Machine._drive`, awaiting what guards and
        actions return; checkpoint saves run in a worker thread."""
        import asyncio

        self._owner = asyncio.current_task()
        value: Any = None
        resume = steps.send
        try:
            while True:
                try:
                    kind, subject, argument = resume(value)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
                resume = steps.send
                try:
                    if kind is GUARD:
                        value = subject(self._handlers, self._context, *argument)
                    elif kind is ACTION:
                        value = self._call(subject, argument)
                    elif kind is DELAY:
                        value = self._calls[subject](self._context, argument)
                    elif kind is SAVE:
                        value = await asyncio.to_thread(self._store_snapshot, subject, argument)
                        continue
                    elif kind is INVOKE:
                        value = await self._new_child(subject, *argument)
                        continue
                    else:
                        self._log_step(subject, argument)
                        value = None
                        continue
                    if _is_awaitable(value):
                        value = await value
                except Exception as exc:
                    if kind is SAVE:
                        resume, value = steps.throw, exc
                    else:
                        value = Failure(exc)
        finally:
            steps.close()  # a no-op once it returned; its clean-up when user code raised

    # ----------------------------------------------------------------- the other entry points

    @property
    def dynamic(self) -> AsyncMachine[S, E, C]:
        """This machine, typed as the generic :class:`AsyncMachine`: its ``send``, ``try_send``
        and ``can_send`` take any event member with any payload keywords (the escape hatch for
        events chosen at run time; strings from outside go through :meth:`send_external`)."""
        return self

    @overload
    async def send_external(
        self,
        event: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        /,
        *,
        idempotency_key: None = None,
    ) -> S: ...
    @overload
    async def send_external(
        self,
        event: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        /,
        *,
        idempotency_key: str,
    ) -> SendResult[S]: ...
    async def send_external(
        self,
        event: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        /,
        *,
        idempotency_key: str | None = None,
    ) -> S | SendResult[S]:
        """Like :meth:`Machine.send_external`: check untrusted arguments, then :meth:`send`
        (or, with ``idempotency_key``, :meth:`send_once`)."""
        member, payload = self._external(event, arguments)
        if idempotency_key is None:
            return await self.send(member, **payload)
        return await self.send_once(idempotency_key, member, **payload)

    async def send_once(self, key: str, event: E, /, **payload: Any) -> SendResult[S]:
        """Like :meth:`Machine.send_once`: ``event`` is applied unless ``key`` was applied
        before; the checkpoint with the key runs in a worker thread."""
        from statewright._idempotency import SendResult, check_key

        check_key(key)
        self._refuse_reentry()
        async with self._lock:
            self._check_usable()
            keys = self._keys
            if keys is not None and key in keys:
                return SendResult(self._state, False, keys[key])
            state, pending = await self._send_locked(event, payload, key)
            keys = self._keys
            applied = keys[key] if keys is not None and key in keys else self.total_transitions
        for awaitable in pending:
            await self._await_listener(awaitable)
        return SendResult(state, True, applied)

    async def try_send(self, event: E, /, **payload: Any) -> bool:
        """Like :meth:`send` but return False instead of raising :class:`InvalidTransition`."""
        try:
            await self.send(event, **payload)
        except InvalidTransition:
            return False
        return True

    async def can_send(self, event: E, /, **payload: Any) -> bool:
        """Whether ``send(event, **payload)`` would be accepted now; evaluates guards only."""
        self._refuse_reentry()
        async with self._lock:
            return await self._drive(self._can_take(event, payload))

    async def save(self, store: Store | None = None) -> int:
        """Save a snapshot to ``store`` (default ``options.store``) in a worker thread."""
        self._refuse_reentry()
        import asyncio

        async with self._lock:
            target = self._options.store if store is None else store
            if target is None:
                return self._save_locked()  # raises: no store configured
            # The snapshot is taken here, only the store's I/O runs in the worker thread.
            return await asyncio.to_thread(self._store_snapshot, target, self._save_payload(target))

    async def start_chart(self) -> S:
        """Enter a statechart's initial configuration (once; later calls return the state)."""
        self._refuse_reentry()
        pending: list[Awaitable[object]] = []
        async with self._lock:
            if not self._started:
                await self._drive(self._start_steps())
                if self._invoking:  # what its first children sent
                    _, pending = await self._deliver(self._clock(), False)
        for awaitable in pending:
            await self._await_listener(awaitable)
        return self._state

    async def fire_due(self, now: float | None = None) -> int:
        """Like :meth:`Machine.fire_due` (each timer at its due time, lateness recorded the same
        way, at most ``MAX_TIMER_FIRINGS`` per call); coroutine listeners are awaited after each
        timer's transition (a tree of machines: after the whole call)."""
        from statewright._timers import Firing

        if self._invoking or self._parent is not None:
            return await self._fire_tree(now)
        firing: Firing | None = None
        while True:
            self._refuse_reentry()
            pending: list[Awaitable[object]] = []
            async with self._lock:
                if not self._started:
                    await self._drive(self._start_steps())
                if firing is None:
                    firing = Firing(self._clock() if now is None else now)
                timer = firing.next(self._chart)
                if timer is not None:
                    lateness = firing.lateness(timer)
                    with contextlib.suppress(InvalidTransition):  # logged at DEBUG by send
                        _, pending = await self._drive(
                            self._transition(
                                timer.event, timer.payload, None, lateness, timer.due, timer
                            )
                        )
            if timer is None:
                return firing.count
            for awaitable in pending:
                await self._await_listener(awaitable)

    async def _fire_tree(self, now: float | None) -> int:
        """``fire_due`` of a tree of machines: every timer and event between them due at
        ``now``, earliest first, under the tree's lock; coroutine listeners are awaited after."""
        self._refuse_reentry()
        async with self._lock:
            if not self._started:
                await self._drive(self._start_steps())
            count, pending = await self._deliver(self._clock() if now is None else now, True)
        for awaitable in pending:
            await self._await_listener(awaitable)
        return count

    async def run_timers(self, sleep: Callable[[float], Awaitable[object]] | None = None) -> None:
        """Fire timers as they fall due, forever (run it as a task; cancel it to stop). It
        sleeps until the next due time by the machine's clock, at most ``poll`` seconds at a
        time so that timers started meanwhile are seen; ``sleep`` is injectable for tests."""
        import asyncio

        pause = asyncio.sleep if sleep is None else sleep
        while True:
            await self.fire_due()
            due = self.next_due
            wait = _POLL if due is None else min(_POLL, max(0.0, due - self._clock()))
            await pause(wait)


#: Statecharts are machines whose engine is the chart engine: the name generated statechart
#: modules (and code written for statewright 0.2) subclass.
AsyncChartMachine = AsyncMachine

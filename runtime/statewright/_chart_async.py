"""The asyncio flavour of statechart machines: the same engine and bookkeeping as
:class:`~statewright.ChartMachine`; guards and actions may be coroutines.

A constructor cannot await, so an async chart enters its initial configuration (running entry
actions and eventless transitions) on ``await machine.start_chart()`` or, at the latest, with its
first event. Until then ``machine.state`` is the spec's initial leaf.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, Final, TypeVar

from statewright._async import AsyncMachine, _is_awaitable
from statewright._chart_machine import ChartCore, pending_listeners
from statewright._chart_spec import ERROR_ROUTE
from statewright._chart_state import ACTION, DELAY, GUARD, ChartState, Failure, Request
from statewright._compat import StrEnum
from statewright._errors import ActionFailed, InvalidTransition

if TYPE_CHECKING:
    from statewright._options import MachineOptions

__all__ = ["AsyncChartMachine"]

#: The longest ``run_timers`` sleeps before looking at the timers again, seconds.
_POLL: Final = 1.0

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


class AsyncChartMachine(ChartCore[S, E, C], AsyncMachine[S, E, C]):
    """Base class of generated async statechart machines."""

    def __init__(
        self, context: C, handlers: object | None = None, *, options: MachineOptions | None = None
    ) -> None:
        super().__init__(context, handlers, options=options)
        self._chart_setup()

    async def start_chart(self) -> S:
        """Enter the initial configuration (once; later calls return the state)."""
        self._refuse_reentry()
        async with self._lock:
            await self._start_locked()
        return self._state

    async def _start_locked(self) -> None:
        if self._started:
            return
        import asyncio

        working = ChartState(clock=self._clock)
        self._owner = asyncio.current_task()
        self._enter_user_code()
        try:
            await self._drive(self._chart_engine.start(working), working)
        finally:
            self._leave_user_code()
        self._after_start(working)
        self._started = True

    async def _drive(self, steps: Generator[Request, Any, Any], working: ChartState) -> Any:
        """Answer the engine's requests, awaiting what guards and actions return."""
        result: Any = None
        try:
            while True:
                kind, subject, argument = steps.send(result)
                result = None
                if kind is GUARD:
                    try:
                        result = subject(self._handlers, self._context, argument, working.active)
                        if _is_awaitable(result):
                            result = await result
                    except Exception as exc:
                        result = Failure(exc)
                elif kind is ACTION:
                    working.time()  # read before any action runs; a failing clock propagates
                    try:
                        await self._call(subject, argument)
                    except Exception as exc:
                        result = Failure(exc)
                elif kind is DELAY:
                    try:
                        result = self._calls[subject](self._context, argument)
                        if _is_awaitable(result):
                            result = await result
                    except Exception as exc:
                        result = Failure(exc)
                else:
                    self._log_step(subject, argument)
        except StopIteration as stop:
            return stop.value

    async def send(self, event: E, /, **payload: Any) -> S:
        """Like :meth:`ChartMachine.send`; coroutine listeners are awaited after the lock is
        released."""
        self._refuse_reentry()
        async with self._lock:
            target, pending = await self._send_chart(event, payload, None, None)
        for awaitable in pending:
            await self._await_listener(awaitable)
        return target

    async def _send_keyed(
        self, event: object, payload: dict[str, Any], key: str
    ) -> tuple[S, list[Awaitable[object]]]:
        return await self._send_chart(event, payload, key, None)

    async def _send_chart(
        self, event: object, payload: dict[str, Any], key: str | None, lateness: float | None
    ) -> tuple[S, list[Awaitable[object]]]:
        """One macrostep (the caller holds the lock); see :meth:`ChartMachine._send_chart`."""
        import asyncio

        await self._start_locked()
        self._check_usable()
        member, _ = self._resolve(event)
        working = self._chart.copy()
        error: str | None = None
        self._owner = asyncio.current_task()
        self._enter_user_code()
        try:
            try:
                taken = await self._drive(
                    self._chart_engine.handle(working, member, payload), working
                )
            except ActionFailed as failure:  # an error route, or the failure as it is
                failed = working.selected
                working = self._chart.copy()
                engine = self._chart_engine
                taken = await self._drive(engine.handle(working, ERROR_ROUTE, payload), working)
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
                await asyncio.to_thread(self._store_snapshot, store, snapshot)
            source, target, _ = self._chart_commit(working, member, payload, stamp, error, lateness)
            self._remember_key(key)
        finally:
            self._leave_user_code()
        return target, pending_listeners(self, source, member, target, payload, error, stamp)

    async def fire_due(self, now: float | None = None) -> int:
        """Like :meth:`ChartMachine.fire_due` (lateness recorded the same way)."""
        fired = 0
        while True:
            self._refuse_reentry()
            pending: list[Awaitable[object]] = []
            async with self._lock:
                await self._start_locked()
                at = self._clock() if now is None else now
                found = self._take_due(at)
                if found is not None:
                    timer = found[1]
                    with contextlib.suppress(InvalidTransition):  # logged at DEBUG by send
                        _, pending = await self._send_chart(
                            timer.event, {}, None, max(0.0, at - timer.due)
                        )
            if found is None:
                return fired
            fired += 1
            for awaitable in pending:
                await self._await_listener(awaitable)

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

    async def can_send(self, event: E, /, **payload: Any) -> bool:
        """Whether some transition would take ``event`` now; evaluates guards only."""
        self._refuse_reentry()
        async with self._lock:
            await self._start_locked()
            member, _ = self._resolve(event)
            working = self._chart.copy()
            self._enter_user_code()
            try:
                enabled = await self._drive(
                    self._chart_engine.select(working, member, payload), working
                )
            finally:
                self._leave_user_code()
            return bool(enabled)

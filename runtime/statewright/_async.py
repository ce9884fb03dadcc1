"""The asyncio flavour: same table, same bookkeeping, same order of effects as :class:`Machine`.

Guards, actions and listeners may be plain functions or coroutines (a result that is awaitable is
awaited). One :class:`asyncio.Lock` per instance makes each transition atomic with respect to
other tasks; checkpoint saves run in a worker thread so a slow disk does not stall the loop.

A trivial transition (no guard, no action, no checkpoint) is committed inline when no other task
is inside a transition of this machine: nothing can interleave, because it does not await. Every
generated module defines an async machine class, so this module is imported with it: asyncio and
inspect are imported where they are used (the lock is made by the first event that needs it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

from statewright._compat import StrEnum
from statewright._core import _INFO
from statewright._errors import ActionFailed, GuardFailed, InvalidTransition
from statewright._snapshot import SnapshotMixin
from statewright._stores.protocol import Store
from statewright._table import CompiledAlt, Plan

if TYPE_CHECKING:  # statewright._options is imported on first use: see statewright._core
    import asyncio

    from statewright._idempotency import SendResult
    from statewright._options import MachineOptions

__all__ = ["AsyncMachine"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


def _is_awaitable(value: object) -> bool:
    import inspect  # here, not at the top: only results of user code are checked

    return inspect.isawaitable(value)


class AsyncMachine(SnapshotMixin[S, E, C]):
    """Base class of generated async machines: ``await machine.send(event, **payload)``."""

    def __init__(
        self, context: C, handlers: object | None = None, *, options: MachineOptions | None = None
    ) -> None:
        super().__init__(context, handlers, options=options)
        self._async_lock: asyncio.Lock | None = None
        self._owner: asyncio.Task[Any] | None = None

    @property
    def _lock(self) -> asyncio.Lock:
        """The machine's lock, made on first use (an asyncio.Lock binds no loop until used)."""
        lock = self._async_lock
        if lock is None:
            import asyncio

            lock = self._async_lock = asyncio.Lock()
        return lock

    async def send(self, event: E, /, **payload: Any) -> S:
        """Apply ``event`` and return the new state, or raise :class:`InvalidTransition`.

        Coroutine listeners are awaited after the lock is released, so they may send.
        """
        lock = self._async_lock
        if lock is None or not lock.locked():
            try:
                member, target, fast, index, moves = self._fast[event]
            except (KeyError, TypeError):
                pass  # guarded, with actions, rejected or not an event: the general path
            else:
                # Found by value but neither the member nor a plain string (another enum's
                # member, a str subclass): the general path decides, as for Machine.send.
                if member is event or type(event) is str:
                    # No other task is inside a transition and nothing below awaits: commit
                    # inline.
                    pending = self._commit_trivial(member, target, fast, index, moves, payload)
                    for awaitable in pending:
                        await self._await_listener(awaitable)
                    return target  # type: ignore[no-any-return]  # table stores members as Any
        self._refuse_reentry()
        async with self._lock:
            target, pending = await self._send_locked(event, payload)
        for awaitable in pending:
            await self._await_listener(awaitable)
        return target

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
            state, pending = await self._send_keyed(event, payload, key)
            keys = self._keys
            applied = keys[key] if keys is not None and key in keys else self.total_transitions
        for awaitable in pending:
            await self._await_listener(awaitable)
        return SendResult(state, True, applied)

    async def _send_keyed(
        self, event: object, payload: dict[str, Any], key: str
    ) -> tuple[S, list[Awaitable[object]]]:
        return await self._send_locked(event, payload, key)

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
            member, plan = self._resolve(event)
            if plan is None:
                return False
            alt = await self._choose(member, plan, payload)
            return alt is not None and self._target_of(alt) is not None

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

    async def _choose(self, event: E, plan: Plan, payload: Mapping[str, Any]) -> CompiledAlt | None:
        for alt in plan[1]:
            guard = alt.guard
            if guard is None:
                return alt
            try:
                passed: Any = guard(self._handlers, self._context, payload)
                if _is_awaitable(passed):
                    passed = await passed
            except Exception as exc:
                raise GuardFailed(str(self._state), str(event), exc) from exc
            if passed:
                return alt
        return None

    async def _call(self, name: str, payload: Mapping[str, Any]) -> None:
        method = self._calls.get(name)
        if method is None:
            method = getattr(self._handlers, name)
        result = method(self._context, payload)
        if _is_awaitable(result):
            await result

    async def _send_locked(
        self, event: object, payload: dict[str, Any], key: str | None = None
    ) -> tuple[S, list[Awaitable[object]]]:
        self._check_usable()
        member, plan = self._resolve(event)
        if plan is None:
            raise self._reject(member)
        import asyncio

        source = self._state
        spec = self._spec_table.spec
        self._owner = asyncio.current_task()
        self._enter_user_code()
        try:
            alt = await self._choose(member, plan, payload)
            if alt is None:
                raise self._reject(member, "no guard passed")
            target = self._target_of(alt)
            if target is None:
                raise self._reject(member, "there is no previous state to return to")
            stamp = self._stamp()
            step = ""
            error_text: str | None = None
            try:
                for step in spec.exit_actions.get(source, ()):
                    await self._call(step, payload)
                for step in alt.actions:
                    await self._call(step, payload)
                for step in spec.entry_actions.get(target, ()):
                    await self._call(step, payload)
            except Exception as exc:
                route = self._route_or_raise(member, step, exc)
                error_text = f"{step}: {type(exc).__name__}: {exc}"
                try:
                    for step in route.actions:
                        await self._call(step, payload)
                except Exception as route_exc:
                    raise ActionFailed(str(source), str(member), step, route_exc) from exc
                target = self._routed(member, error_text, route.target)
            store = self._options.store
            if (alt.checkpoint or key is not None) and store is not None:  # durable, then applied
                snapshot = self._checkpoint_snapshot(
                    store, source, member, target, payload, error_text, stamp, key
                )
                await asyncio.to_thread(self._store_snapshot, store, snapshot)
            self._commit(source, member, target, payload, error_text, stamp)
            self._remember_key(key)
        finally:
            self._leave_user_code()
        pending: list[Awaitable[object]] = []
        if self._listeners or self._log_cache.get(_INFO, True):
            pending = self._announce(source, member, target, payload, error_text, stamp)
        return target, pending

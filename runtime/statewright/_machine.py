"""The synchronous machine: ``send`` applies one transition atomically under a per-instance lock.

Order of effects for one event: guards (spec order, first that passes wins) -> clock -> exit
actions of the source -> the alternative's actions -> entry actions of the target -> checkpoint
save of the post-transition snapshot (checkpoint alternatives with a store) -> state change and
history record -> listeners and log. A checkpoint transition is durable or does not happen: if
its save fails, the machine stays in the source state. Self-transitions are external: they run
exit and entry actions too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

from statewright._compat import StrEnum
from statewright._core import _INFO, refuse_async_listeners
from statewright._errors import ActionFailed, GuardFailed, InvalidTransition
from statewright._hot_path import install_event_methods, restore_event_methods
from statewright._locks import NO_LOCK, Lock
from statewright._snapshot import SnapshotMixin
from statewright._stores.protocol import Store
from statewright._table import CompiledAlt, Plan

if TYPE_CHECKING:  # statewright._options is imported on first use: see statewright._core
    from statewright._idempotency import SendResult
    from statewright._options import MachineOptions

__all__ = ["Machine"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


class Machine(SnapshotMixin[S, E, C]):
    """Base class of every generated machine (the generated subclass sets ``spec``)."""

    def __init__(
        self, context: C, handlers: object | None = None, *, options: MachineOptions | None = None
    ) -> None:
        super().__init__(context, handlers, options=options)
        if self._options.thread_safe:
            import threading  # here, not at the top: ~1 ms off importing a generated module

            lock: Lock = threading.RLock()
        else:
            lock = NO_LOCK
        self._lock = lock
        self._read_lock = lock

    def send(self, event: E, /, **payload: Any) -> S:
        """Apply ``event`` and return the new state, or raise :class:`InvalidTransition`.

        Accepts the event member or its string value. Raises :class:`ActionFailed` when an action
        raised and the source state has no error route (the machine then did not move).
        """
        # acquire/release instead of ``with``: the context-manager protocol costs as much again.
        lock = self._lock
        lock.acquire()
        try:
            try:
                member, target, fast, index, moves = self._fast[event]
            except (KeyError, TypeError):  # guarded, with actions, rejected or not an event
                return self._send_slow(event, payload)
            if member is not event and type(event) is not str:
                # Found by value but neither the member nor a plain string: a member of another
                # enum (UnknownEvent) or a str subclass. The checked path decides, as it does
                # for guarded events; an identity test keeps the usual case free.
                return self._send_slow(event, payload)
            # A trivial transition (no guard, no action, no checkpoint): no user code can run,
            # so it is committed inline.
            history = self._history
            if history is not None:  # first: a clock that raises leaves nothing half-recorded
                # A plain attribute load: CPython does not specialise ``self._clock()`` on an
                # instance attribute holding a C function.
                clock = self._clock
                history.append((index, clock(), payload))
            source = self._state
            if moves:
                self._prev = source
            self._state = target
            self._fast = fast
            self._counts[index] += 1
            # The logger's own level cache (False = INFO disabled) spares an isEnabledFor call.
            if self._listeners or self._log_cache.get(_INFO, True):
                pending = self._announce(source, member, target, payload, None)
                if pending:
                    refuse_async_listeners(pending)
            return target  # type: ignore[no-any-return]  # table stores members as Any
        finally:
            lock.release()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give a generated flat machine's event methods :meth:`send`'s inline path.

        A generated method ``open()`` is ``return self.send(_E_OPEN)``: one Python frame more
        than ``send``. Here it is replaced by the same path with its event built in (compiled
        on first use), keeping its name, signature and docstring. A subclass that overrides
        ``send`` gets the generated methods back, so they keep going through its ``send``.
        """
        super().__init_subclass__(**kwargs)
        if cls.send is not Machine.send:
            restore_event_methods(cls)
            return
        spec = cls.__dict__.get("spec")
        if spec is not None and getattr(spec, "chart", None) is None:
            install_event_methods(cls, spec)

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
            state = self._send_keyed(event, payload, key)
            keys = self._keys
            applied = keys[key] if keys is not None and key in keys else self.total_transitions
            return SendResult(state, True, applied)

    def _send_keyed(self, event: object, payload: dict[str, Any], key: str) -> S:
        return self._send_slow(event, payload, key)

    def try_send(self, event: E, /, **payload: Any) -> bool:
        """Like :meth:`send` but return False instead of raising :class:`InvalidTransition`.

        A rejection is an answer, not a failure: nothing is raised or built for it (it is logged
        at DEBUG when that level is enabled). The trivial-transition path is :meth:`send`'s,
        written out again: calling ``send`` would cost half as much as the transition itself.
        """
        lock = self._lock
        lock.acquire()
        try:
            try:
                member, target, fast, index, moves = self._fast[event]
            except (KeyError, TypeError):
                return self._try_slow(event, payload)
            if member is not event and type(event) is not str:
                return self._try_slow(event, payload)
            history = self._history
            if history is not None:
                clock = self._clock
                history.append((index, clock(), payload))
            source = self._state
            if moves:
                self._prev = source
            self._state = target
            self._fast = fast
            self._counts[index] += 1
            if self._listeners or self._log_cache.get(_INFO, True):
                pending = self._announce(source, member, target, payload, None)
                if pending:
                    refuse_async_listeners(pending)
            return True
        finally:
            lock.release()

    def _try_slow(self, event: object, payload: dict[str, Any]) -> bool:
        """``try_send`` off the trivial path: an event without alternatives here is answered
        without an exception; the rest is :meth:`_send_slow`."""
        try:
            self._check_usable()
            member, plan = self._resolve(event)
            if plan is None:
                self._rejected_quietly(member)
                return False
            self._send_slow(member, payload)
        except InvalidTransition:
            return False
        return True

    def can_send(self, event: E, /, **payload: Any) -> bool:
        """Whether ``send(event, **payload)`` would be accepted now; evaluates guards only."""
        with self._lock:
            member, plan = self._resolve(event)
            if plan is None:
                return False
            alt = self._choose(member, plan, payload)
            return alt is not None and self._target_of(alt) is not None

    def save(self, store: Store | None = None) -> int:
        """Save a snapshot to ``store`` (default ``options.store``) now; returns the revision."""
        with self._lock:
            return self._save_locked() if store is None else self._save_to(store)

    # ----------------------------------------------------------------- slow path

    def _choose(self, event: E, plan: Plan, payload: Mapping[str, Any]) -> CompiledAlt | None:
        for alt in plan[1]:
            guard = alt.guard
            if guard is None:
                return alt
            try:
                passed = guard(self._handlers, self._context, payload)
            except Exception as exc:
                raise GuardFailed(str(self._state), str(event), exc) from exc
            if passed:
                return alt
        return None

    def _call(self, name: str, payload: Mapping[str, Any]) -> None:
        method = self._calls.get(name)
        if method is None:
            method = getattr(self._handlers, name)
        method(self._context, payload)

    def _send_slow(self, event: object, payload: dict[str, Any], key: str | None = None) -> S:
        """The general path (the caller holds the lock): guards, actions, re-entrancy checks;
        ``key`` is the idempotency key of a keyed send (checkpointed with it)."""
        self._check_usable()
        member, plan = self._resolve(event)
        if plan is None:
            raise self._reject(member)
        source = self._state
        spec = self._spec_table.spec
        self._enter_user_code()
        try:
            alt = self._choose(member, plan, payload)
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
                    self._call(step, payload)
                for step in alt.actions:
                    self._call(step, payload)
                for step in spec.entry_actions.get(target, ()):
                    self._call(step, payload)
            except Exception as exc:
                route = self._route_or_raise(member, step, exc)
                error_text = f"{step}: {type(exc).__name__}: {exc}"
                try:
                    for step in route.actions:
                        self._call(step, payload)
                except Exception as route_exc:
                    raise ActionFailed(str(source), str(member), step, route_exc) from exc
                target = self._routed(member, error_text, route.target)
            store = self._options.store
            if (alt.checkpoint or key is not None) and store is not None:  # durable, then applied
                snapshot = self._checkpoint_snapshot(
                    store, source, member, target, payload, error_text, stamp, key
                )
                self._store_snapshot(store, snapshot)
            self._commit(source, member, target, payload, error_text, stamp)
            self._remember_key(key)
        finally:
            self._leave_user_code()
        if self._listeners or self._log_cache.get(_INFO, True):
            pending = self._announce(source, member, target, payload, error_text, stamp)
            if pending:
                refuse_async_listeners(pending)
        return target

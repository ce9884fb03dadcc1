"""Fire the due timers of every machine in a store: ``fire_due_timers(store, MachineClass, ...)``.

Stores with a due-timer index (:class:`~statewright.TimerStore`: every built-in one) record at
each save when the instance's earliest ``on_restore = "fire"`` timer falls due. A worker calls
:func:`fire_due_timers` in a loop: it claims due instances (leased to it, so workers sharing a
store do not pick the same ones), loads each, fires what is due through the machine's own send
path and saves. Exactly once does not rest on the lease: a timer's firing is a save like any
other, and of two workers firing the same timer only one save wins the revision; the loser
reloads, and finds the timer gone.

:func:`fire_due_timers_async` is the same driver for asyncio machines (whose handlers may be
coroutines): the store's calls run in worker threads, so the event loop is never blocked.

A parent and its child machines are one row (:mod:`statewright._tree_snapshot`): the index holds
the earliest due time of the whole tree, and the parent's ``fire_due`` fires its children's
timers and delivers the events between them (``done.invoke`` included) before the tree is
saved, under the same compare-and-swap.

It lives beside the machines, not in ``_stores/``: it loads, fires and saves machines through
nothing but the :class:`TimerStore` protocol, so it is a client of the stores like the registry
is, and ``_stores/`` stays a layer below the machines that imports none of them (the machines
import ``_stores.protocol``; a driver inside ``_stores/`` would import them back).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

from statewright._errors import Conflict, StatewrightError, TimerLoop, UnknownInstance

if TYPE_CHECKING:
    from statewright._async import AsyncChartMachine
    from statewright._machine import ChartMachine
    from statewright._options import MachineOptions
    from statewright._stores.protocol import TimerStore

__all__ = ["fire_due_timers", "fire_due_timers_async"]

#: How often one instance is reloaded after losing a race before it is left to the next call.
_ATTEMPTS: Final = 8


def fire_due_timers(
    store: TimerStore,
    machine_class: type[ChartMachine[Any, Any, Any]],
    handlers: object | None = None,
    *,
    now: float | None = None,
    limit: int = 100,
    lease_seconds: float = 30.0,
    options: MachineOptions | None = None,
) -> int:
    """Fire the timers due at ``now`` (default: ``time.time()``) of at most ``limit`` instances
    of ``machine_class`` in ``store``; returns how many timers fired (and were saved).

    Each claimed instance is loaded with ``handlers`` and ``options``, ``fire_due(now)`` runs
    (each transition records its ``lateness``), the machine is saved, and the lease is released.
    A lost race (:class:`Conflict`: another process saved the instance meanwhile) reloads and
    tries again. A :class:`TimerLoop` (the instance's timers did not settle within one call's
    bound) saves what fired, counts it, is logged at ERROR naming the cycle, and the claim is
    released: a claim is never held longer than one bounded call. Any other error of one
    instance (a corrupted snapshot, a failing action) is logged at ERROR with its traceback and
    the others go on; its timer stays due, so the next call after its lease ends retries it.
    """
    at = time.time() if now is None else now
    fired = 0
    for instance_id in store.claim_due(at, limit, lease_seconds):
        try:
            fired += _fire_one(store, machine_class, instance_id, handlers, at, options)
        except TimerLoop as loop:
            fired += loop.fired
            _log_loop(machine_class, instance_id, loop)
        except StatewrightError:
            _log_failure(machine_class, instance_id)
        finally:
            store.release(instance_id)
    return fired


async def fire_due_timers_async(
    store: TimerStore,
    machine_class: type[AsyncChartMachine[Any, Any, Any]],
    handlers: object | None = None,
    *,
    now: float | None = None,
    limit: int = 100,
    lease_seconds: float = 30.0,
    options: MachineOptions | None = None,
) -> int:
    """:func:`fire_due_timers` for an asyncio machine class: ``await machine.fire_due(now)``
    and ``await machine.save()``; claiming, loading and releasing run in worker threads."""
    import asyncio

    at = time.time() if now is None else now
    fired = 0
    claimed = await asyncio.to_thread(store.claim_due, at, limit, lease_seconds)
    for instance_id in claimed:
        try:
            fired += await _fire_one_async(store, machine_class, instance_id, handlers, at, options)
        except TimerLoop as loop:
            fired += loop.fired
            _log_loop(machine_class, instance_id, loop)
        except StatewrightError:
            _log_failure(machine_class, instance_id)
        finally:
            await asyncio.to_thread(store.release, instance_id)
    return fired


def _log_failure(machine_class: type, instance_id: str) -> None:
    from statewright._listeners import statewright_logger

    statewright_logger().exception(
        "%s %s: firing its due timers failed; retried after the lease",
        machine_class.__name__,
        instance_id,
    )


def _log_loop(machine_class: type, instance_id: str, loop: TimerLoop) -> None:
    from statewright._listeners import statewright_logger

    statewright_logger().error(
        "%s %s: %s; saved, and released for the next call",
        machine_class.__name__,
        instance_id,
        loop,
    )


def _fire_one(
    store: TimerStore,
    machine_class: type[ChartMachine[Any, Any, Any]],
    instance_id: str,
    handlers: object | None,
    at: float,
    options: MachineOptions | None,
) -> int:
    for _ in range(_ATTEMPTS):
        try:
            machine = machine_class.load(store, instance_id, handlers, options=options)
        except UnknownInstance:
            return 0  # deleted since it was claimed
        try:
            try:
                count = machine.fire_due(at)
            except TimerLoop:
                machine.save()  # what fired is kept: the next call goes on from there
                raise
            if count:
                machine.save()
        except Conflict:
            continue  # another process saved it: its timers may have fired or changed
        return count
    return 0


async def _fire_one_async(
    store: TimerStore,
    machine_class: type[AsyncChartMachine[Any, Any, Any]],
    instance_id: str,
    handlers: object | None,
    at: float,
    options: MachineOptions | None,
) -> int:
    """:func:`_fire_one` with the machine's awaits, loading in a worker thread."""
    import asyncio

    for _ in range(_ATTEMPTS):
        try:
            machine = await asyncio.to_thread(
                machine_class.load, store, instance_id, handlers, options=options
            )
        except UnknownInstance:
            return 0  # deleted since it was claimed
        try:
            try:
                count = await machine.fire_due(at)
            except TimerLoop:
                await machine.save()  # what fired is kept: the next call goes on from there
                raise
            if count:
                await machine.save()
        except Conflict:
            continue  # another process saved it: its timers may have fired or changed
        return count
    return 0

"""A registry of live machine instances (seed 002's TaskRegistry), optionally backed by a store.

Applications that run many instances need to find them by id, see which are still active, and
drop finished ones. The registry only indexes instances; each machine keeps its own lock, and
the registry's lock only guards the index. ``max_active`` is a soft limit: exceeding it logs a
warning (a sign of leaked instances) but never refuses work.

The registry knows the tree: a registered machine's running child machines (what its states
invoke, theirs included) are reached by path, ``<instance id>/<invoke id>/...``, through
:meth:`MachineRegistry.machine_at` and :meth:`MachineRegistry.children_of`. They are not indexed:
they start and end with their parent's events without telling the registry, so each path is
followed through the running children when it is asked for. A child is its parent's (saved in
its snapshot, ended by its states): it is not registered, counted, saved or removed on its own.

Registering costs O(1) amortized. A machine becomes final without telling the registry, so the
active machines are counted, not tracked; but not on every registration. The registry keeps the
machines it has not yet seen final (a final state is for good, so each is dropped once) and
counts them only when they outnumber a threshold: ``max_active`` at first; after a count of
``a`` active machines, ``2a`` if that exceeded the limit (the warning comes again when they
double), else ``max_active + a // 2``. Each count so reads no more machines than about three
registrations since the one before.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from statewright._errors import (
    ChildMachineError,
    RegistrySaveError,
    StatewrightError,
    UnknownInstance,
)
from statewright._machine import Machine
from statewright._persistence import PersistentMachine
from statewright._stores.protocol import Store

__all__ = ["MachineRegistry"]

M = TypeVar("M", bound="PersistentMachine[Any, Any, Any]")

_LOG = logging.getLogger("statewright")
#: What separates a parent's instance id and its children's invoke ids in a path (no instance id
#: or invoke id holds one).
_SEPARATOR = "/"


class MachineRegistry(Generic[M]):
    """Instances by ``instance_id``, in registration order."""

    def __init__(
        self,
        *,
        max_active: int | None = None,
        store: Store | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.store = store
        self._logger = logger if logger is not None else _LOG
        self._machines: dict[str, M] = {}
        self._lock = threading.Lock()
        #: The registered machines not yet seen final (with a limit only), and how many of them
        #: make the next count due (see the module docstring).
        self._unfinished: dict[str, M] = {}
        self._count_above: int | None = None
        self._max_active: int | None = None
        self.max_active = max_active

    @property
    def max_active(self) -> int | None:
        """The soft limit on active machines; None (no limit) means nothing is counted."""
        return self._max_active

    @max_active.setter
    def max_active(self, limit: int | None) -> None:
        with self._lock:
            self._max_active = self._count_above = limit
            self._unfinished = {} if limit is None else dict(self._machines)

    def register(self, machine: M) -> str:
        """Add ``machine`` under its ``instance_id``; a second machine with that id is an error,
        and so is a child machine (:class:`ChildMachineError`: reach it through its parent)."""
        if machine._parent is not None:
            raise _child_error(machine, "registered")
        instance_id = machine.instance_id
        with self._lock:
            existing = self._machines.get(instance_id)
            if existing is not None and existing is not machine:
                raise ValueError(f"another machine is already registered as {instance_id!r}")
            self._machines[instance_id] = machine
            limit = self._max_active
            if limit is None:
                return instance_id
            self._unfinished[instance_id] = machine
            active = self._count_if_due()
        if active is not None and active > limit:
            self._logger.warning(
                "registry holds %d active machines, more than max_active=%d "
                "(finished instances not cleaned up?)",
                active,
                limit,
            )
        return instance_id

    def _count_if_due(self) -> int | None:
        """The number of active machines when they may exceed ``max_active`` and enough were
        registered since the last count (see the module docstring); else None. Under the lock."""
        due = self._count_above
        if due is None or len(self._unfinished) <= due:
            return None
        return self._recount()

    def _recount(self) -> int:
        """Drop the machines now final from the unfinished ones, count the rest and set when
        the next count is due. Under the lock."""
        self._unfinished = {i: m for i, m in self._unfinished.items() if not m.is_final}
        active = len(self._unfinished)
        limit = self._max_active
        if limit is not None:
            self._count_above = 2 * active if active > limit else limit + active // 2
        return active

    def get(self, instance_id: str) -> M:
        """The machine registered as ``instance_id``; :class:`UnknownInstance` if none."""
        with self._lock:
            machine = self._machines.get(instance_id)
        if machine is None:
            where = "the registry"
            if _SEPARATOR in instance_id:
                where += " (a child machine's path is for machine_at)"
            raise UnknownInstance(instance_id, where)
        return machine

    def machine_at(self, path: str) -> Any:
        """The machine at ``path``: a registered instance id, or a running child machine's path
        below one, ``<instance id>/<invoke id>/...`` (:class:`UnknownInstance` naming the path
        when no machine runs there now). Typed ``Any``, as ``machine.children`` is: a child is a
        machine of its own spec's class (``isinstance`` narrows it)."""
        root, *invoke_ids = path.split(_SEPARATOR)
        with self._lock:
            machine: PersistentMachine[Any, Any, Any] | None = self._machines.get(root)
        for invoke_id in invoke_ids:
            if machine is None:
                break
            machine = machine.children.get(invoke_id)
        if machine is None:
            raise UnknownInstance(path, "the registry")
        return machine

    def children_of(self, path: str) -> dict[str, Any]:
        """The running child machines below the machine at ``path`` (see :meth:`machine_at`),
        theirs included, by path: each parent before its children, children in document order.
        What runs now: a child ends when its parent leaves the invoking state or it finishes."""
        return dict(_below(path, self.machine_at(path)))

    def get_or_none(self, instance_id: str) -> M | None:
        """The machine registered as ``instance_id``, or None."""
        with self._lock:
            return self._machines.get(instance_id)

    def __contains__(self, instance_id: object) -> bool:
        with self._lock:
            return instance_id in self._machines

    def __len__(self) -> int:
        with self._lock:
            return len(self._machines)

    def remove(self, instance_id: str, *, delete_stored: bool = False) -> M:
        """Unregister and return the machine (optionally deleting it from the backing store).
        Its child machines go with it (they are in its snapshot); a child's path is refused
        (:class:`ChildMachineError`: it ends when its parent leaves the invoking state)."""
        if _SEPARATOR in instance_id:
            child = self.machine_at(instance_id)
            raise _child_error(child, "removed")
        with self._lock:
            machine = self._machines.pop(instance_id, None)
            self._unfinished.pop(instance_id, None)
        if machine is None:
            raise UnknownInstance(instance_id, "the registry")
        if delete_stored and self.store is not None:
            self.store.delete(instance_id)
        return machine

    def list_all(self) -> list[M]:
        with self._lock:
            return list(self._machines.values())

    def list_active(self) -> list[M]:
        """Machines not in a final state."""
        return [m for m in self.list_all() if not m.is_final]

    def active_count(self) -> int:
        return len(self.list_active())

    def cleanup_terminal(self, *, delete_stored: bool = False) -> list[str]:
        """Unregister every machine in a final state; returns their ids."""
        with self._lock:
            done = [i for i, m in self._machines.items() if m.is_final]
            for instance_id in done:
                del self._machines[instance_id]
            self._recount()  # drops them from the unfinished too, and rearms the warning
        if delete_stored and self.store is not None:
            for instance_id in done:
                self.store.delete(instance_id)
        return done

    def save_all(self) -> dict[str, int]:
        """Save every registered machine; returns the new revisions.

        A machine with its own store (``options.store``) is saved there, like
        :meth:`Machine.save` does; the others go to the registry's ``store``. Every machine is
        tried: if some fail, :class:`RegistrySaveError` names each failure after the others were
        saved (a :class:`Conflict` marks that machine stale, as :meth:`Machine.save` does).
        """
        if self.store is None:
            raise ValueError("this registry has no store")
        machines: list[Machine[Any, Any, Any]] = []
        for registered in self.list_all():
            if not isinstance(registered, Machine):
                raise TypeError(
                    f"{type(registered).__name__} is async: await machine.save(store) for each one"
                )
            machines.append(registered)
        revisions: dict[str, int] = {}
        failures: dict[str, Exception] = {}
        for sync in machines:
            store = self.store if sync.options.store is None else None  # None: its own
            try:
                revisions[sync.instance_id] = sync.save(store)
            except StatewrightError as error:  # StoreError, SnapshotError, a stale machine
                failures[sync.instance_id] = error
        if failures:
            raise RegistrySaveError(revisions, failures)
        return revisions

    def load(
        self,
        machine_type: type[M],
        instance_id: str,
        handlers: object | None = None,
        **kwargs: Any,
    ) -> M:
        """Load ``instance_id`` from the registry's store with ``machine_type`` and register it."""
        if self.store is None:
            raise ValueError("this registry has no store")
        machine = machine_type.load(self.store, instance_id, handlers, **kwargs)
        self.register(machine)
        return machine


def _below(
    path: str, machine: PersistentMachine[Any, Any, Any]
) -> Iterator[tuple[str, PersistentMachine[Any, Any, Any]]]:
    """The running children of ``machine`` (at ``path``) and theirs, by path, depth first."""
    for invoke_id, child in machine.children.items():
        child_path = f"{path}{_SEPARATOR}{invoke_id}"
        yield child_path, child
        yield from _below(child_path, child)


def _path_of(machine: PersistentMachine[Any, Any, Any]) -> str | None:
    """The path of a child machine from the top of its tree (None once it no longer runs: its
    parent cancelled it, or it finished)."""
    invoke_ids: list[str] = []
    while machine._parent is not None:
        parent = machine._parent
        if parent.children.get(machine._invokeid) is not machine:
            return None
        invoke_ids.append(machine._invokeid or "")
        machine = parent
    return _SEPARATOR.join([machine.instance_id, *reversed(invoke_ids)])


def _child_error(child: PersistentMachine[Any, Any, Any], verb: str) -> ChildMachineError:
    """Why ``child`` cannot be ``verb`` (registered, removed) on its own."""
    path = _path_of(child)
    if path is None:
        parent = child._parent.instance_id
        return ChildMachineError(
            f"a child machine (invoke {child._invokeid!r} of {parent!r}, no longer running) "
            f"cannot be {verb} on its own: it was part of its parent's tree, and its snapshot "
            "would lack the context, which is its parent's"
        )
    return ChildMachineError(
        f"child machine {path!r} cannot be {verb} on its own: it is part of its parent's tree, "
        "saved in its parent's snapshot and ended by its parent's states (registry.machine_at "
        "reaches it by that path)"
    )

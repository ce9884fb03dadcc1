"""The stored instances a server serves, and the four things a tool does with them: list, read,
create, send. Synchronous and free of MCP: the server runs each call in a worker thread, and a
test or a benchmark can call it directly.

A send is the boundary of :meth:`~statewright.Machine.send_external`, whole: load the instance,
send the event by name with its arguments and an idempotency key, which checkpoints the
transition with the key in one compare-and-swap save (durable, then applied). An unknown or
internal event, a bad payload or an event the state does not take raises before anything is
saved; a lost race (:class:`~statewright.Conflict`: another writer saved first) loads the
instance again and sends again, where a key that was applied meanwhile answers
``applied: false`` with the event id it got. Every refusal is a :class:`ToolError`, which the
server returns as a tool error (the model reads it and can correct itself).

The server sees only ids that start with its instance prefix, and only instances of the machine
types it serves; any other id is unknown to it.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from statewright import (
    Conflict,
    InvalidPayload,
    InvalidTransition,
    Machine,
    MachineOptions,
    Snapshot,
    SnapshotError,
    StatewrightError,
    Store,
    UnknownEvent,
    UnknownInstance,
)

from statewright_compiler.mcp_server.hosting import MachineType
from statewright_compiler.mcp_server.views import detail, summary

__all__ = ["MAX_ATTEMPTS", "Instances", "ToolError"]

#: Sends (or creates) after a lost race before the call gives up.
MAX_ATTEMPTS: Final = 25
#: The first retry waits up to this long, each next one up to twice as long (capped at 0.1 s).
_FIRST_BACKOFF: Final = 0.001


class ToolError(Exception):
    """A refusal the model should read: ``kind`` says which, ``message`` says why (and what
    would be accepted), ``details`` holds the same as data."""

    def __init__(self, kind: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = details

    def as_dict(self) -> dict[str, Any]:
        return {"error": self.kind, "message": self.message, **self.details}


class Instances:
    """The served instances of one store (see the module docstring)."""

    def __init__(
        self, store: Store, types: Sequence[MachineType], *, prefix: str = "", history: int = 20
    ) -> None:
        self.store = store
        self.types = {machine_type.name: machine_type for machine_type in types}
        self.prefix = prefix
        self.history = history
        #: Each instance's type, learnt when it was first loaded (an id keeps its type).
        self._type_of: dict[str, MachineType] = {}

    # ----------------------------------------------------------------- reads

    def page(
        self, machine: str | None = None, limit: int = 50, after: str | None = None
    ) -> dict[str, Any]:
        """Up to ``limit`` instances, by id, after the id ``after``; ``next_after`` is where the
        next page starts (None: this was the last)."""
        if machine is not None:
            self._type_named(machine)
        rows: list[dict[str, Any]] = []
        ids = [i for i in self.store.list_ids() if i.startswith(self.prefix)]
        for instance_id in ids if after is None else [i for i in ids if i > after]:
            if len(rows) == limit:
                return {"instances": rows, "next_after": rows[-1]["instance_id"]}
            snapshot = self.store.load(instance_id)
            machine_type = None if snapshot is None else self._type_of_snapshot(snapshot)
            if snapshot is None or machine_type is None:
                continue  # deleted meanwhile, or of a type this server does not serve
            if machine is not None and machine_type.name != machine:
                continue
            try:
                rows.append(summary(machine_type, self._restored(machine_type, snapshot)))
            except SnapshotError as error:
                rows.append({"instance_id": instance_id, "machine": machine_type.name,
                             "error": str(error)})  # fmt: skip
        return {"instances": rows, "next_after": None}

    def read(self, instance_id: str) -> dict[str, Any]:
        """The instance: state, legal events with their schemas, timers, recent history, data."""
        machine_type, machine = self._read(instance_id)
        return detail(machine_type, machine, history=self.history, data=True)

    def history_of(self, instance_id: str) -> list[dict[str, Any]]:
        """Every retained history record of the instance, oldest first."""
        _, machine = self._read(instance_id)
        return [record.as_dict() for record in machine.history]

    # ----------------------------------------------------------------- writes

    def create(self, machine: str, instance_id: str | None = None) -> dict[str, Any]:
        """A new instance of ``machine``, saved; an ``instance_id`` that is stored already as
        the same machine answers ``created: false`` with that instance (a retried create)."""
        machine_type = self._type_named(machine)
        if instance_id is None:
            instance_id = f"{self.prefix}{os.urandom(8).hex()}"
        elif not instance_id.startswith(self.prefix):
            raise ToolError("invalid_instance_id", f"instance ids here start with {self.prefix!r}")
        try:
            options = MachineOptions(store=self.store, instance_id=instance_id)
        except ValueError as error:
            raise ToolError("invalid_instance_id", str(error)) from None
        try:
            created = machine_type.cls(
                machine_type.new_context(),
                machine_type.handlers,
                options=options,
                data=machine_type.new_data(),
            )
            created.save()
        except Conflict:
            stored = self.store.load(instance_id)
            if stored is None or stored.get("machine") != machine_type.name:
                raise ToolError("instance_exists", f"{instance_id!r} is taken") from None
            existing = self._restored(machine_type, stored)
            return {"created": False, "instance": detail(machine_type, existing, history=0)}
        except Exception as error:  # a factory or an entry action (user code) failed, or the
            # data factory's data is not the machine's (InvalidData): nothing was saved
            raise ToolError("create_failed", f"{type(error).__name__}: {error}") from None
        self._type_of[instance_id] = machine_type
        return {"created": True, "instance": detail(machine_type, created, history=0)}

    def send(
        self,
        instance_id: str,
        event: str,
        arguments: Mapping[str, Any] | str | None,
        key: str,
    ) -> dict[str, Any]:
        """Send ``event`` with ``arguments`` to the instance once per ``key`` (see the module
        docstring); ``applied`` says whether this call applied it, ``event_id`` which
        transition the key applied."""
        machine_type = self._type_for(instance_id)
        delay = _FIRST_BACKOFF
        for _ in range(MAX_ATTEMPTS):
            machine = self._loaded(machine_type, instance_id)
            try:
                result = machine.send_external(event, arguments, idempotency_key=key)
            except Conflict:
                time.sleep(random.uniform(0, delay))  # let the other writer finish
                delay = min(delay * 2, 0.1)
                continue
            except (UnknownEvent, InvalidPayload, InvalidTransition, ValueError) as error:
                raise _refusal(machine, error) from None
            except StatewrightError as error:  # an action or guard failed: nothing applied
                raise ToolError(
                    "failed", f"{error}; nothing changed", instance=summary(machine_type, machine)
                ) from None
            view = detail(machine_type, machine, history=1 if result.applied else 0)
            return {"applied": result.applied, "event_id": result.event_id, "instance": view}
        raise ToolError(
            "busy", f"{instance_id} changed under {MAX_ATTEMPTS} tries in a row; send it again"
        )

    # ----------------------------------------------------------------- loading

    def _type_named(self, name: str) -> MachineType:
        machine_type = self.types.get(name)
        if machine_type is None:
            raise ToolError("unknown_machine", f"no machine {name!r} here; machines: "
                            f"{', '.join(self.types)}", machines=list(self.types))  # fmt: skip
        return machine_type

    def _unknown(self, instance_id: str) -> ToolError:
        return ToolError(
            "unknown_instance",
            f"no instance {instance_id!r:.80} here; list_instances shows the instances",
        )

    def _read(self, instance_id: str) -> tuple[MachineType, Machine[Any, Any, Any]]:
        """The instance restored from its stored snapshot (not bound to the store: reads never
        save)."""
        if not instance_id.startswith(self.prefix):
            raise self._unknown(instance_id)
        snapshot = self._stored(instance_id)
        machine_type = self._type_of_snapshot(snapshot)
        if machine_type is None:
            raise self._unknown(instance_id)
        try:
            return machine_type, self._restored(machine_type, snapshot)
        except SnapshotError as error:
            raise ToolError("unreadable", f"{instance_id}: {error}") from None

    def _stored(self, instance_id: str) -> dict[str, Any]:
        try:
            snapshot = self.store.load(instance_id)
        except StatewrightError as error:  # an invalid id, or a store error
            raise ToolError("store_error", str(error)) from None
        if snapshot is None:
            raise self._unknown(instance_id)
        return snapshot

    def _type_of_snapshot(self, snapshot: dict[str, Any]) -> MachineType | None:
        name = snapshot.get("machine")
        return self.types.get(name) if isinstance(name, str) else None

    def _restored(
        self, machine_type: MachineType, snapshot: dict[str, Any]
    ) -> Machine[Any, Any, Any]:
        return machine_type.cls.restore(Snapshot(snapshot), machine_type.handlers)

    def _type_for(self, instance_id: str) -> MachineType:
        """The instance's type: the only one served, the one learnt before, or its snapshot's."""
        if not instance_id.startswith(self.prefix):
            raise self._unknown(instance_id)
        if len(self.types) == 1:
            return next(iter(self.types.values()))
        known = self._type_of.get(instance_id)
        if known is None:
            known = self._type_of_snapshot(self._stored(instance_id))
            if known is None:
                raise self._unknown(instance_id)
            self._type_of[instance_id] = known
        return known

    def _loaded(self, machine_type: MachineType, instance_id: str) -> Machine[Any, Any, Any]:
        """The instance loaded from the store, which its next save goes back to."""
        try:
            return machine_type.cls.load(self.store, instance_id, machine_type.handlers)
        except UnknownInstance:
            raise self._unknown(instance_id) from None
        except SnapshotError as error:
            if error.field == "machine":  # of a type this server does not serve
                raise self._unknown(instance_id) from None
            raise ToolError("unreadable", f"{instance_id}: {error}") from None
        except StatewrightError as error:
            raise ToolError("store_error", str(error)) from None


def _refusal(machine: Machine[Any, Any, Any], error: Exception) -> ToolError:
    """What a model reads when the boundary refused its event: why, and what it may send."""
    legal = [tool.for_mcp() for tool in machine.tools()]
    details: dict[str, Any] = {"state": str(machine.state), "legal_events": legal}
    if isinstance(error, InvalidPayload):
        kind = "invalid_payload"
        details["field"] = [str(part) for part in error.path]
    elif isinstance(error, UnknownEvent):  # no such event, or an internal one
        kind = "unknown_event"
    elif isinstance(error, InvalidTransition):
        kind = "illegal_event"
    else:  # check_key's ValueError
        kind = "invalid_idempotency_key"
    return ToolError(kind, f"{error}; nothing changed", **details)

"""What a client reads about an instance: JSON built from a loaded machine, nothing else.

A summary (what ``list_instances`` shows per instance) holds the state, whether it is final and
the names of the legal events; a detail (``read_instance``, ``send_event``, ``create_instance``)
adds each legal event's description and payload JSON Schema (the tool definition
:meth:`~statewright.Machine.tools` gives, in the MCP shape), the pending timers, recent history
and, when the snapshot has one, the machine's ``data``. The context is never shown: it is the
application's object, and may hold what a model should not read.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any, cast

from statewright import Machine

from statewright_compiler.mcp_server.hosting import MachineType

__all__ = ["detail", "summary"]


def summary(machine_type: MachineType, machine: Machine[Any, Any, Any]) -> dict[str, Any]:
    """The instance in a few fields: state, active states, final, legal event names."""
    states = cast("Iterable[Any]", machine_type.cls.spec.state_type)
    order: dict[Any, int] = {state: index for index, state in enumerate(states)}
    active = sorted(machine.active_states, key=order.__getitem__)
    return {
        "instance_id": machine.instance_id,
        "machine": machine_type.name,
        "state": str(machine.state),
        "active_states": [str(state) for state in active],
        "final": machine.is_final,
        "legal_events": [tool.name for tool in machine.tools()],
        "revision": machine.revision,
        "total_transitions": machine.total_transitions,
    }


def detail(
    machine_type: MachineType,
    machine: Machine[Any, Any, Any],
    *,
    history: int,
    data: bool = False,
) -> dict[str, Any]:
    """The summary, with each legal event's schema, pending timers, the last ``history``
    records and (``data``: from a snapshot, so only where it is worth one) the data."""
    view = summary(machine_type, machine)
    view["legal_events"] = [tool.for_mcp() for tool in machine.tools()]
    view["pending_timers"] = {
        name: _timestamp(due) for name, due in sorted(machine.pending_timers.items())
    }
    records = machine.history[-history:] if history else ()
    view["history"] = [record.as_dict() for record in records]
    if data:
        snapshot = machine.snapshot()
        if "data" in snapshot:  # a machine with a data model
            view["data"] = snapshot["data"]
    return view


def _timestamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="microseconds")

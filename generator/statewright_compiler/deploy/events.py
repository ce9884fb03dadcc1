"""Events compared: what callers of the machine send (names, payloads, which are external) and
the values stored history records name.

Timers' events (``after.<state>.<key>``) are left to :mod:`~statewright_compiler.deploy.timers`,
and an internal event's transitions to :mod:`~statewright_compiler.deploy.transitions`: nobody
outside sends it, so only what it does matters.
"""

from __future__ import annotations

from statewright_compiler.deploy.changes import Change, change
from statewright_compiler.deploy.types import widens
from statewright_compiler.model import Event, Machine

__all__ = ["compare_events", "timer_events"]


def timer_events(machine: Machine) -> frozenset[str]:
    """The names of the events the ``after`` timers send."""
    return frozenset(timer.event for state in machine.states for timer in state.timers)


def compare_events(old: Machine, new: Machine) -> list[Change]:
    skip = timer_events(old) | timer_events(new)
    old_events = {event.name: event for event in old.events if event.name not in skip}
    new_events = {event.name: event for event in new.events if event.name not in skip}
    found: list[Change] = []
    for name, event in old_events.items():
        if name not in new_events:
            if not event.internal:
                found.append(
                    change("event-removed", f"events.{name}", f"{name} is gone: callers send it")
                )
            continue
        found += _compare_event(event, new_events[name])
    for name in new_events:
        if name not in old_events:
            found.append(change("event-added", f"events.{name}", f"{name} is new"))
    return found


def _compare_event(old: Event, new: Event) -> list[Change]:
    path, name = f"events.{old.name}", old.name
    found: list[Change] = []
    if old.value != new.value:
        message = f"{name}'s value {old.value!r} is now {new.value!r}: stored history names it"
        found.append(change("event-value-changed", path, message))
    if new.internal and not old.internal:
        message = f"{name} is internal now: callers can no longer send it"
        found.append(change("event-made-internal", path, message))
    elif old.internal and not new.internal:
        found.append(change("event-made-external", path, f"{name} can be sent from outside now"))
    if old.description != new.description:
        found.append(change("description-changed", path, f"{name}'s description changed"))
    if old.label != new.label:
        found.append(change("label-changed", path, f"{name}'s label is now {new.label!r}"))
    if old.metadata != new.metadata:
        found.append(change("metadata-changed", path, f"{name}'s metadata changed"))
    old_fields = {field.name: field for field in old.payload}
    new_fields = {field.name: field for field in new.payload}
    for field_name, field in old_fields.items():
        where = f"{path}.payload.{field_name}"
        if field_name not in new_fields:
            message = f"{name}'s payload field {field_name} is gone: callers pass it"
            found.append(change("payload-field-removed", where, message))
            continue
        now = new_fields[field_name]
        if field.annotation == now.annotation:
            continue
        kind = "payload-field-widened" if widens(field.type, now.type) else "payload-field-retyped"
        message = f"{name}'s payload field {field_name}: {field.annotation} is now {now.annotation}"
        found.append(change(kind, where, message))
    for field_name, field in new_fields.items():
        if field_name in old_fields:
            continue
        where = f"{path}.payload.{field_name}"
        if field.optional:
            message = f"{name} has a new optional payload field {field_name}"
            found.append(change("payload-field-added", where, message))
        else:
            message = f"{name} requires a new payload field {field_name}: callers do not pass it"
            found.append(change("payload-field-required", where, message))
    return found

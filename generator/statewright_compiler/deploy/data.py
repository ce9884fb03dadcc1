"""Data fields compared: a stored instance holds a value for each field under its name, typed
by the spec it was saved under.

A new field with a literal initial value (or none: then ``None``) can be filled in for stored
instances; one computed by ``expr`` was computed at an initialization stored instances are past,
so a migration must say its value. A removed or retyped field holds a stored value the new spec
has no place for; a widened type (``int`` to ``int | None``) still admits every stored value.
"""

from __future__ import annotations

from statewright_compiler.deploy.changes import Change, change
from statewright_compiler.deploy.plain import plain
from statewright_compiler.deploy.types import widens
from statewright_compiler.model import DataField, Machine

__all__ = ["compare_data"]


def _path(field: DataField) -> str:
    return f"states.{field.state}.data.{field.name}" if field.state else f"data.{field.name}"


def compare_data(old: Machine, new: Machine) -> list[Change]:
    before = {field.name: field for field in old.data}
    after = {field.name: field for field in new.data}
    found: list[Change] = []
    for name, field in before.items():
        if name not in after:
            message = f"data field {name} is gone: stored instances hold a value for it"
            found.append(change("data-field-removed", _path(field), message))
            continue
        found += _compare_field(field, after[name], late=new.binding == "late")
    for name, field in after.items():
        if name in before:
            continue
        if field.expr is not None:
            message = f"new data field {name} is computed at initialization: a migration sets it"
            found.append(change("data-field-added-computed", _path(field), message))
        else:
            message = f"new data field {name}: stored instances get {field.initial!r}"
            found.append(change("data-field-added", _path(field), message))
    found += _states_given_data(old, new)
    state_fields = any(field.state for field in (*old.data, *new.data))
    if old.binding != new.binding and state_fields:
        message = f"binding {old.binding!r} is now {new.binding!r}: stored states' data differ"
        found.append(change("data-binding-changed", "machine.binding", message))
    return found


def _states_given_data(old: Machine, new: Machine) -> list[Change]:
    """With late binding, a snapshot lists the states whose own data was initialized, every
    active one among them: a state with data of its own now, where it had none, is active in
    stored instances that never initialized it."""
    if new.binding != "late" or old.binding != "late":
        return []  # a binding change is its own change
    had = {field.state for field in old.data if field.state}
    has = {field.state for field in new.data if field.state} & {state.name for state in old.states}
    return [
        change(
            "state-data-added",
            f"states.{state}.data",
            f"{state} has data of its own now: stored instances in it never initialized it",
        )
        for state in sorted(has - had)
    ]


def _compare_field(old: DataField, new: DataField, *, late: bool) -> list[Change]:
    path, name = _path(new), old.name
    found: list[Change] = []
    if old.annotation != new.annotation:
        kind = "data-field-widened" if widens(old.type, new.type) else "data-field-retyped"
        message = f"data field {name}: {old.annotation} is now {new.annotation}"
        found.append(change(kind, path, message))
    if (repr(old.initial), plain(old.expr)) != (repr(new.initial), plain(new.expr)):
        message = f"data field {name} starts otherwise (stored instances keep their values)"
        found.append(change("data-field-initial-changed", path, message))
    if old.state != new.state and late:
        message = f"data field {name} is initialized with {new.state or 'the machine'} now"
        found.append(change("data-field-moved", path, message))
    if old.description != new.description:
        found.append(
            change("description-changed", path, f"data field {name}'s description changed")
        )
    return found

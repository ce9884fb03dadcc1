"""The spec's fingerprint: what a stored instance was written under, so that a module loading it
can tell whether the spec still means what it meant (``MachineSpec.spec_hash``).

It is a hash of what the compiled model *means*, not of the spec's text: documentation (each
``description``, a state's or an event's display ``label``, ``metadata``), where things were
written (lines, key paths, the spec's path, the module's name) and comments or layout (gone
once the TOML is parsed) leave it as it was. Fixing a typo in a description, reordering keys or
reformatting a spec therefore never makes stored instances unloadable at the same version;
every change of states, events, transitions, timers, data or executable content gives a new
fingerprint, which at the same version the runtime refuses unless declared compatible
(``statewright diff`` says which changes are compatible and prints the declaration).
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Final

from statewright_compiler.model.events import Event
from statewright_compiler.model.expression import Expression
from statewright_compiler.model.machine import Machine
from statewright_compiler.model.states import State

__all__ = ["fingerprint"]

#: Model fields that document or locate, and so are not part of what a spec means (the module's
#: name is where the code goes, not what it does).
_NOT_MEANING: Final = frozenset(
    {"description", "metadata", "line", "path", "source_path", "source_sha256", "module_name"}
)
#: Classes whose ``label`` is how pages and diagrams show them (a log step's label is output).
_DISPLAY_LABELS: Final = (State, Event)


def fingerprint(machine: Machine) -> str:
    """The SHA-256 of what ``machine`` means (see the module docstring), 64 hex digits."""
    return hashlib.sha256(repr(_meaning(machine)).encode("utf-8")).hexdigest()


def _meaning(value: object) -> object:
    """``value`` as plain, ordered data: dataclasses as tuples of their meaningful fields, an
    expression as the Python it compiled to (its text where it has none), sets and mappings
    sorted (their repr is not ordered)."""
    if isinstance(value, Expression):
        return ("expression", value.python or value.shown, value.returns)
    if isinstance(value, tuple | list):
        return tuple(_meaning(item) for item in value)
    if isinstance(value, frozenset | set):
        return ("set", *sorted(repr(_meaning(item)) for item in value))
    if isinstance(value, dict):
        items = ((repr(_meaning(key)), _meaning(item)) for key, item in value.items())
        return ("dict", *sorted(items, key=lambda pair: pair[0]))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        skipped = _NOT_MEANING | ({"label"} if isinstance(value, _DISPLAY_LABELS) else set())
        return (
            type(value).__name__,
            *(
                (field.name, _meaning(getattr(value, field.name)))
                for field in dataclasses.fields(value)
                if field.name not in skipped
            ),
        )
    return value

"""A machine's events and their payloads, and the ``[imports]`` payload types may name."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from statewright_compiler.model.metadata import MetadataValue

__all__ = [
    "Event",
    "Import",
    "LiteralValue",
    "PayloadField",
    "PayloadType",
    "imported_names_used",
]


@dataclass(frozen=True)
class Import:
    """``from module import name``, declared in ``[imports]`` so payload types may use ``name``."""

    module: str
    name: str


#: A value a ``Literal[...]`` payload type allows.
LiteralValue = str | int | bool | None


@dataclass(frozen=True)
class PayloadType:
    """A payload field's type as a tree: what the annotation, the runtime's validator and the
    JSON Schema of the field are all derived from.

    ``kind`` is one of ``str int float bool none object any`` (no children), ``list`` and
    ``dict`` (one child: the items, the values), ``union`` (the alternatives), ``literal``
    (``values``) or ``named`` (``name``, a name from ``[imports]``; ``module`` its module).
    """

    kind: str
    children: tuple[PayloadType, ...] = ()
    values: tuple[LiteralValue, ...] = ()
    name: str = ""
    module: str = ""


@dataclass(frozen=True)
class PayloadField:
    name: str
    annotation: str
    """Python annotation text, rebuilt from the parsed type (never copied from the spec)."""
    optional: bool
    """True when ``None`` is one of the type's alternatives: the argument defaults to ``None``."""
    typing_names: tuple[str, ...] = ()
    """Names from ``typing`` the annotation uses, which the module must import."""
    imported_names: tuple[str, ...] = ()
    """Names from ``[imports]`` the annotation uses."""
    type: PayloadType = PayloadType("object")
    """The parsed type (the annotation is printed from it)."""


@dataclass(frozen=True)
class Event:
    name: str
    value: str
    label: str
    member: str
    """Enum member name, ``name.upper()``."""
    method: str
    """Machine method name, ``name.lower()``."""
    payload_type: str
    """Name of the generated ``TypedDict`` for this event's payload."""
    description: str
    payload: tuple[PayloadField, ...]
    metadata: tuple[tuple[str, MetadataValue], ...]
    line: int
    internal: bool = False
    """Sent only by the machine itself (a timer's event, ``done.state.*``, ``error.*``, or
    declared ``internal = true``): no method, no typed ``send`` signature, never a tool."""


def imported_names_used(events: Iterable[Event]) -> frozenset[str]:
    """The ``[imports]`` names the payload types of ``events`` use (what the module imports)."""
    return frozenset(
        name for event in events for field in event.payload for name in field.imported_names
    )

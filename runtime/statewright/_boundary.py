"""Where untrusted input meets a machine: events named by strings with JSON arguments (an LLM's
tool call, a webhook), checked against the spec's payload types, and the tool definitions that
tell a model which events a state accepts and what their payloads are.

Plain functions of the machine's table and options; :mod:`statewright._payloads` and
:mod:`statewright._tools` are imported on first use.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statewright._options import MachineOptions
    from statewright._payloads import PayloadCodec
    from statewright._table import Table
    from statewright._tools import ToolDefinition

__all__ = ["checked_payload", "external_member", "tool_definitions"]


def tool_definitions(
    table: Table, allowed: Collection[Any], options: MachineOptions
) -> list[ToolDefinition]:
    """The ``allowed`` events as tool definitions, in the spec's order: the event's name, its
    description from the spec and its payload's JSON Schema."""
    from statewright._payloads import payload_schema
    from statewright._tools import ToolDefinition

    spec = table.spec
    codecs = _payload_codecs(options)
    return [
        ToolDefinition(
            member.name,
            spec.event_descriptions.get(member, "").strip() or f"Send the {member.name} event.",
            payload_schema(spec.payloads.get(member, ()), codecs),
        )
        for member in spec.event_type
        if member in allowed
    ]


def external_member(table: Table, event: object) -> Any:
    """The event member ``event`` names (a member, its name or its value), or None."""
    spec = table.spec
    if isinstance(event, spec.event_type):
        return event
    if isinstance(event, str) and not isinstance(event, Enum):
        return spec.event_type.__members__.get(event) or table.events_by_value.get(event)
    return None


def checked_payload(
    table: Table,
    member: Any,
    arguments: Mapping[str, Any] | str | bytes | None,
    options: MachineOptions,
) -> dict[str, Any]:
    """``arguments`` (a mapping or JSON text) checked against ``member``'s payload types, or
    :class:`~statewright.InvalidPayload` naming the field."""
    from statewright._payloads import check_payload, parse_arguments

    name = member.name
    return check_payload(
        name,
        table.spec.payloads.get(member, ()),
        parse_arguments(name, arguments),
        _payload_codecs(options),
    )


def _payload_codecs(options: MachineOptions) -> Mapping[str, PayloadCodec]:
    from statewright._payloads import BUILTIN_CODECS

    extra = options.payload_codecs
    return {**BUILTIN_CODECS, **extra} if extra else BUILTIN_CODECS

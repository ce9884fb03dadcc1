"""Each state's events as tool definitions, from the compiled model, for ``statewright tools``.

The definitions are the ones a running machine's ``tools()`` returns in that state: the same
names, descriptions and payload schemas, because both come from the runtime's own code
(:mod:`statewright._payloads` and :mod:`statewright._tools`) applied to the same payload types.
"""

from __future__ import annotations

from typing import Any, Literal

from statewright._payloads import payload_schema
from statewright._tools import ToolDefinition

from statewright_compiler.model import Event, Machine
from statewright_compiler.spec.payload_types import runtime_shape

__all__ = ["tool_definitions"]

Format = Literal["openai", "anthropic", "mcp"]


def _tool(event: Event) -> ToolDefinition:
    fields = [
        (field.name, runtime_shape(field.type), not field.optional) for field in event.payload
    ]
    description = event.description.strip() or f"Send the {event.member} event."
    return ToolDefinition(event.member, description, payload_schema(fields))


def tool_definitions(machine: Machine, flavour: Format) -> dict[str, list[dict[str, Any]]]:
    """State name -> the definitions of the events it accepts from outside (guards not
    evaluated; internal events never). A chart's states are its leaves, which accept their own
    and their ancestors' events."""
    tools = {event.name: _tool(event) for event in machine.external_events}
    shape = {
        "openai": ToolDefinition.for_openai,
        "anthropic": ToolDefinition.for_anthropic,
        "mcp": ToolDefinition.for_mcp,
    }[flavour]
    return {
        state: [shape(tools[event]) for event in events]
        for state, events in machine.allowed_by_leaf.items()
    }

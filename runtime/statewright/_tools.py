"""Events as tools: what an agent hands a language model so that it can drive a machine.

For each event the current state accepts, a tool definition names the event, says what it does
(the spec's description) and gives the JSON Schema of its payload, so that the model's tool call
is exactly what :meth:`~statewright.Machine.send_external` validates and sends. The definition is
neutral; ``for_openai``, ``for_anthropic`` and ``for_mcp`` give the shapes those APIs take.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolDefinition"]


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """One event as a tool: ``name`` is the event's name, ``input_schema`` its payload's schema."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(repr=False)

    def for_openai(self) -> dict[str, Any]:
        """A function tool for OpenAI's Chat Completions and Responses APIs."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.input_schema),
            },
        }

    def for_anthropic(self) -> dict[str, Any]:
        """A tool for Anthropic's Messages API."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.input_schema),
        }

    def for_mcp(self) -> dict[str, Any]:
        """A tool as a Model Context Protocol server lists it."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": dict(self.input_schema),
        }

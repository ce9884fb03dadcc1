"""The server's tools: four fixed ones, whatever the instances' states.

``list_instances`` and ``read_instance`` read; ``create_instance`` (when creating is allowed) and
``send_event`` write, and a read-only server offers neither. The events legal in an instance's
current state are not tools of their own: ``read_instance`` and every ``send_event`` result list
them, each with its description and its payload's JSON Schema, and ``send_event`` takes one by
name. Why one send tool and not a tool list per state (docs/runtime.md, "statewright mcp"): the
list would be per instance and per moment, so it changes whenever any client moves any instance,
and a client holding the old list calls an event that is no longer legal anyway; the legality
that counts is the one checked when the event arrives, by the same boundary as
``send_external``. Fixed tools keep every client's list valid and its prompt cache warm.

Each tool's arguments are checked here (names, types, required ones) before anything is loaded;
the event's own arguments are checked by the runtime against the spec's payload types.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from statewright_compiler.mcp_server.hosting import MachineType
from statewright_compiler.mcp_server.instances import Instances, ToolError

__all__ = ["Tool", "call_tool", "request_key", "served_tools"]


@dataclass(frozen=True)
class Tool:
    """One tool as ``tools/list`` shows it; ``read_only`` becomes its ``readOnlyHint``."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool


_INSTANCE_ID: Final = {"type": "string", "description": "the instance's id"}
_KEY: Final = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "description": "makes a retried call safe: a key the instance has applied is not applied "
    "again (without one, the MCP request's id is the key, which holds within one connection)",
}


def _schema(properties: Mapping[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def served_tools(
    types: Sequence[MachineType], *, read_only: bool, allow_create: bool
) -> list[Tool]:
    """The tools this server offers, in the order a model best reads them."""
    names = [machine_type.name for machine_type in types]
    machine = {"type": "string", "enum": names, "description": "the machine type"}
    events = "; ".join(f"{t.name}: {', '.join(t.external_events)}" for t in types)
    tools = [
        Tool(
            "list_instances",
            "List the stored state machine instances: each one's state, whether it is final, "
            "and the events legal in its state. Pages of `limit` instances by id; pass the "
            "answer's next_after as `after` for the next page.",
            _schema(
                {
                    "machine": machine,
                    "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
                    "after": {"type": "string", "description": "list the ids after this one"},
                }
            ),
            read_only=True,
        ),
        Tool(
            "read_instance",
            "Read one instance: its state (and active states), whether it is final, the events "
            "legal in its state with the JSON Schema of each one's arguments, pending timers, "
            "recent history and its data.",
            _schema({"instance_id": _INSTANCE_ID}, ["instance_id"]),
            read_only=True,
        ),
    ]
    if read_only:
        return tools
    if allow_create:
        tools.append(
            Tool(
                "create_instance",
                "Create a new instance of a machine, in its initial state. An instance_id "
                "stored already as the same machine is returned as it is (created: false).",
                _schema({"machine": machine, "instance_id": _INSTANCE_ID}, ["machine"]),
                read_only=False,
            )
        )
    tools.append(
        Tool(
            "send_event",
            "Send an event to an instance. Only an event legal in the instance's current state "
            "is taken: read_instance and every result of this tool list them (legal_events), "
            "each with the JSON Schema of its arguments. An unknown or illegal event or bad "
            "arguments is an error that changes nothing and names the legal events. "
            f"Events by machine: {events}.",
            _schema(
                {
                    "instance_id": _INSTANCE_ID,
                    "event": {"type": "string", "description": "a legal event's name"},
                    "arguments": {
                        "type": "object",
                        "description": "the event's arguments, as its inputSchema says",
                    },
                    "idempotency_key": _KEY,
                },
                ["instance_id", "event"],
            ),
            read_only=False,
        )
    )
    return tools


def call_tool(
    instances: Instances,
    offered: Sequence[Tool],
    name: str,
    arguments: Mapping[str, Any] | None,
    request_key: str,
) -> Any:
    """Run the tool ``name`` (one of ``offered``) with ``arguments``; ``request_key`` is the
    idempotency key when the call brings none. A :class:`ToolError` when refused."""
    tool = next((tool for tool in offered if tool.name == name), None)
    if tool is None:
        raise ToolError(
            "unknown_tool",
            f"no tool {name!r:.80} here; tools: {', '.join(tool.name for tool in offered)}",
        )
    given = _checked(tool, arguments or {})
    run: Callable[[], Any] = {
        "list_instances": lambda: instances.page(
            given.get("machine"), given.get("limit", 50), given.get("after")
        ),
        "read_instance": lambda: instances.read(given["instance_id"]),
        "create_instance": lambda: instances.create(given["machine"], given.get("instance_id")),
        "send_event": lambda: instances.send(
            given["instance_id"],
            given["event"],
            given.get("arguments"),
            given.get("idempotency_key", request_key),
        ),
    }[name]
    return run()


#: A JSON Schema type -> the Python check of a value of it (booleans are no integers in JSON).
_IS: Final[Mapping[str, Callable[[Any], bool]]] = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: type(value) is int,
    "object": lambda value: isinstance(value, Mapping),
}


def _checked(tool: Tool, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """``arguments`` when they fit the tool's schema (names, types, enums, bounds)."""
    properties: Mapping[str, Any] = tool.input_schema["properties"]
    for name, value in arguments.items():
        rule = properties.get(name)
        if rule is None:
            _invalid(tool, f"unknown argument {name!r:.40} (arguments: {', '.join(properties)})")
        problem = _problem(rule, value)
        if problem is not None:
            _invalid(tool, f"{name} {problem}")
    missing = [name for name in tool.input_schema["required"] if name not in arguments]
    if missing:
        _invalid(tool, f"missing {', '.join(missing)}")
    return arguments


def _problem(rule: Mapping[str, Any], value: Any) -> str | None:
    """What is wrong with ``value`` under the property schema ``rule``, or None."""
    if not _IS[rule["type"]](value):
        return f"must be a JSON {rule['type']}"
    if "enum" in rule and value not in rule["enum"]:
        return f"must be one of {', '.join(rule['enum'])}"
    if isinstance(value, str) and not rule.get("minLength", 0) <= len(value) <= rule.get(
        "maxLength", len(value)
    ):
        return f"must be {rule['minLength']} to {rule['maxLength']} characters long"
    if type(value) is int and not rule.get("minimum", value) <= value <= rule.get("maximum", value):
        return f"must be from {rule['minimum']} to {rule['maximum']}"
    return None


def _invalid(tool: Tool, reason: str) -> NoReturn:
    raise ToolError("invalid_arguments", f"{tool.name}: {reason}")


def request_key(connection: str | None, request_id: object) -> str:
    """The idempotency key of request ``request_id`` on ``connection`` (None: unknown, so the
    call gets a key of its own)."""
    if connection is None or request_id is None:
        return f"mcp-{os.urandom(16).hex()}"
    digest = hashlib.sha256(f"{connection}\n{request_id!r}".encode()).hexdigest()
    return f"mcp-{digest[:40]}"

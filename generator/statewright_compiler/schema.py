"""The spec language as a JSON Schema: printed by ``statewright schema`` for editors, and the one
place the validator reads which keys each table may have (so the two cannot drift apart)."""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["SCHEMA", "allowed_keys", "schema_json"]

_NAME: Final = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}
_NAMES: Final = {"type": "array", "items": _NAME, "uniqueItems": True}
_TEXT: Final = {"type": "string"}
_METADATA: Final = {
    "type": "object",
    "description": "Free-form values shown in docs.",
    "additionalProperties": {
        "anyOf": [
            {"type": ["string", "number", "boolean"]},
            {"type": "array", "items": {"type": ["string", "number", "boolean"]}},
        ]
    },
}
_SELECTOR: Final = {
    "description": 'A state, a list of states, "*" (every non-final state) or "tag:<tag>".',
    "anyOf": [{"type": "string"}, {"type": "array", "items": _NAME, "minItems": 1}],
}
_TARGET: Final = {
    "type": "string",
    "description": 'A state name, or "<previous>" for the state before the source was entered.',
}
_ALTERNATIVE_PROPERTIES: Final = {
    "to": _TARGET,
    "guard": {"type": "string", "description": "Guard names with not/and/or/parentheses."},
    "actions": {"type": "array", "items": _NAME},
    "checkpoint": {"type": "boolean", "description": "Persist right after this transition."},
    "description": _TEXT,
    "metadata": _METADATA,
}
_ALTERNATIVE: Final = {
    "type": "object",
    "properties": _ALTERNATIVE_PROPERTIES,
    "required": ["to"],
    "additionalProperties": False,
}

SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://statewright.dev/schema/spec-v1.json",
    "title": "statewright state machine spec (v1)",
    "type": "object",
    "required": ["machine", "states"],
    "additionalProperties": False,
    "properties": {
        "machine": {"$ref": "#/$defs/machine"},
        "imports": {
            "type": "object",
            "description": "module -> names that payload types may use",
            "additionalProperties": _NAMES,
        },
        "states": {"type": "object", "additionalProperties": {"$ref": "#/$defs/state"}},
        "events": {"type": "object", "additionalProperties": {"$ref": "#/$defs/event"}},
        "transitions": {"type": "array", "items": {"$ref": "#/$defs/transition"}},
        "error_handlers": {"type": "array", "items": {"$ref": "#/$defs/error_handler"}},
    },
    "$defs": {
        "machine": {
            "type": "object",
            "required": ["name", "initial"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "pattern": "^[A-Z][A-Za-z0-9_]*$"},
                "initial": _NAME,
                "description": _TEXT,
                "version": {"type": "integer", "minimum": 1},
                "module": _NAME,
                "metadata": _METADATA,
            },
        },
        "state": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "description": _TEXT,
                "kind": {"enum": ["normal", "final", "error", "wait"]},
                "tags": _NAMES,
                "entry": {"type": "array", "items": _NAME},
                "exit": {"type": "array", "items": _NAME},
                "value": _TEXT,
                "label": _TEXT,
                "metadata": _METADATA,
                "on": {
                    "type": "object",
                    "description": "event -> target, alternative, or list of alternatives",
                    "additionalProperties": {
                        "anyOf": [
                            _TARGET,
                            {"$ref": "#/$defs/alternative"},
                            {"type": "array", "items": {"$ref": "#/$defs/alternative"}},
                        ]
                    },
                },
            },
        },
        "alternative": _ALTERNATIVE,
        "event": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "description": _TEXT,
                "payload": {"type": "object", "additionalProperties": {"type": "string"}},
                "value": _TEXT,
                "label": _TEXT,
                "metadata": _METADATA,
            },
        },
        "transition": {
            "type": "object",
            "required": ["from", "event", "to"],
            "additionalProperties": False,
            "properties": {
                "from": _SELECTOR,
                "except": _NAMES,
                "event": _NAME,
                **_ALTERNATIVE_PROPERTIES,
            },
        },
        "error_handler": {
            "type": "object",
            "required": ["from", "to"],
            "additionalProperties": False,
            "properties": {
                "from": _SELECTOR,
                "except": _NAMES,
                "to": _NAME,
                "actions": {"type": "array", "items": _NAME},
                "description": _TEXT,
            },
        },
    },
}


def allowed_keys(definition: str) -> tuple[str, ...]:
    """The keys a table of kind ``definition`` may have (``"spec"`` for the top level)."""
    schema = SCHEMA if definition == "spec" else SCHEMA["$defs"][definition]
    return tuple(schema["properties"])


def required_keys(definition: str) -> tuple[str, ...]:
    schema = SCHEMA if definition == "spec" else SCHEMA["$defs"][definition]
    return tuple(schema.get("required", ()))


def schema_json() -> str:
    return json.dumps(SCHEMA, indent=2, ensure_ascii=False) + "\n"

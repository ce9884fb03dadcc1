"""The spec language's executable content as JSON Schema: the forms a step may take (a
handler's name, raise, log, send, cancel, and the data model's assign, if and foreach).
:mod:`schema` puts it in the whole language's schema."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["EXPRESSION", "NAME", "NAMES", "STEPS", "TEXT"]

NAME: Final[dict[str, Any]] = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}
NAMES: Final[dict[str, Any]] = {"type": "array", "items": NAME, "uniqueItems": True}
TEXT: Final[dict[str, Any]] = {"type": "string"}

EXPRESSION: Final = {
    "type": "string",
    "description": "An expression (docs/spec-language.md#expressions): compiled to typed Python, "
    "never evaluated as text.",
}
_FIELD_NAME: Final = {**NAME, "description": "A data field."}
_SEND_PROPERTIES: Final = {
    "send": NAME,
    "eventexpr": {**EXPRESSION, "description": "The event's name, computed."},
    "id": NAME,
    "idlocation": {**_FIELD_NAME, "description": "The data field that receives the send id."},
    "delay": {"type": "string", "description": "e.g. 30s, 5m, 1h30m, PT1H"},
    "delay_handler": {
        **NAME,
        "description": "A handler method returning the delay in seconds.",
    },
    "delayexpr": {**EXPRESSION, "description": "The delay: seconds, or a duration string."},
    "on_restore": {"enum": ["fire", "resume", "restart"]},
    "data": {
        "type": "object",
        "description": "The event's data: payload field -> expression.",
        "additionalProperties": EXPRESSION,
    },
    "namelist": {**NAMES, "description": "Data fields sent under their own names."},
    "content": {**EXPRESSION, "description": "The event's whole data."},
    "target": {
        "type": "string",
        "description": '"#_internal", "#_scxml_<session>" (default: this machine\'s queue).',
    },
    "targetexpr": EXPRESSION,
    "type": {"type": "string", "description": "The SCXML event processor (its URI or scxml)."},
    "typeexpr": EXPRESSION,
}
_STEP: Final = {
    "description": "A handler action's name, or (statecharts) a raised event, a log line, a "
    "send, a cancel, or the data model's assign, if and foreach.",
    "anyOf": [
        NAME,
        {
            "type": "object",
            "required": ["raise"],
            "additionalProperties": False,
            "properties": {"raise": NAME},
        },
        {
            "type": "object",
            "required": ["log"],
            "additionalProperties": False,
            "properties": {"log": TEXT, "label": TEXT},
        },
        {
            "type": "object",
            "required": ["log", "expr"],
            "additionalProperties": False,
            "properties": {"log": {**TEXT, "description": "The label."}, "expr": EXPRESSION},
        },
        {
            "type": "object",
            "oneOf": [{"required": ["send"]}, {"required": ["eventexpr"]}],
            "additionalProperties": False,
            "properties": _SEND_PROPERTIES,
        },
        {
            "type": "object",
            "required": ["cancel"],
            "additionalProperties": False,
            "properties": {"cancel": NAME},
        },
        {
            "type": "object",
            "required": ["cancel_expr"],
            "additionalProperties": False,
            "properties": {"cancel_expr": EXPRESSION},
        },
        {
            "type": "object",
            "required": ["assign", "expr"],
            "additionalProperties": False,
            "properties": {
                "assign": {
                    **EXPRESSION,
                    "description": "A data field, or an item of one (items[0], table['k']).",
                },
                "expr": EXPRESSION,
            },
        },
        {
            "type": "object",
            "required": ["if"],
            "additionalProperties": False,
            "properties": {
                "if": EXPRESSION,
                "then": {"$ref": "#/$defs/steps"},
                "elif": {"type": "array", "items": {"$ref": "#/$defs/elif_branch"}},
                "else": {"$ref": "#/$defs/steps"},
            },
        },
        {
            "type": "object",
            "required": ["foreach", "item"],
            "additionalProperties": False,
            "properties": {
                "foreach": {**EXPRESSION, "description": "A list (or a dict: its keys)."},
                "item": _FIELD_NAME,
                "index": _FIELD_NAME,
                "do": {"$ref": "#/$defs/steps"},
            },
        },
    ],
}
STEPS: Final = {"type": "array", "items": _STEP}

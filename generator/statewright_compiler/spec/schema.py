"""The spec language as a JSON Schema: printed by ``statewright schema`` for editors, and the one
place the validator reads which keys each table may have (so the two cannot drift apart)."""

from __future__ import annotations

import json
from typing import Any, Final

from statewright_compiler.spec.schema_steps import EXPRESSION, NAME, NAMES, STEPS, TEXT

__all__ = ["SCHEMA", "allowed_keys", "schema_json"]

_NAME: Final = NAME
_NAMES: Final = NAMES
_TEXT: Final = TEXT
_EXPRESSION: Final = EXPRESSION
#: Executable content, defined once (``$defs/steps``) and referred to wherever steps go.
_STEPS: Final = {"$ref": "#/$defs/steps"}
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
    "anyOf": [
        {
            "type": "string",
            "description": 'A state name, or "<previous>" for the state before the source was '
            "entered (flat machines).",
        },
        {
            "type": "array",
            "items": _NAME,
            "uniqueItems": True,
            "description": "Statecharts: one state per parallel region, or [] (targetless).",
        },
    ]
}
_TARGETS: Final = {"anyOf": [_NAME, {"type": "array", "items": _NAME, "minItems": 1}]}
_DEFAULT_TRANSITION: Final = {
    "description": "Target state(s), or a table with targets and the actions taken with them.",
    "anyOf": [
        _TARGETS,
        {
            "type": "object",
            "required": ["to"],
            "additionalProperties": False,
            "properties": {"to": _TARGETS, "actions": _STEPS},
        },
    ],
}
_ALTERNATIVE_PROPERTIES: Final = {
    "to": _TARGET,
    "guard": {
        "type": "string",
        "description": "Guard names (and, in statecharts, in(state)) with not/and/or/parentheses.",
    },
    "cond": {
        **_EXPRESSION,
        "description": "Statecharts: a condition over the data; with a guard, both must hold.",
    },
    "actions": _STEPS,
    "then": {**_STEPS, "description": "Statecharts: actions run after the targets are entered."},
    "type": {
        "enum": ["external", "internal"],
        "description": "Statecharts: an internal transition does not leave its compound source.",
    },
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
_TIMER: Final = {
    "type": "object",
    "description": "Statecharts: a transition taken when the state has been active for a delay.",
    "properties": {
        "delay": {"type": "string", "description": "e.g. 30s, 5m, 1h30m, PT1H"},
        "delay_handler": {**_NAME, "description": "A handler method returning seconds."},
        "on_restore": {
            "enum": ["fire", "resume", "restart"],
            "description": "A restored machine's timer: fire when due (default), keep the "
            "remaining time, or start again.",
        },
        "id": {
            **_NAME,
            "description": "The timer's id in its state (default: its delay, or its delay "
            "handler): its event is after.<state>.<id>.",
        },
        **_ALTERNATIVE_PROPERTIES,
    },
    "required": ["to"],
    "additionalProperties": False,
}

_INVOKE: Final = {
    "type": "object",
    "description": "A child machine (SCXML's <invoke>): another spec's generated machine.",
    "required": ["machine"],
    "additionalProperties": False,
    "properties": {
        "machine": {
            "type": "string",
            "pattern": r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Z][A-Za-z0-9_]*$",
            "description": "The child's generated machine class, as module:<Name>Machine "
            "(the module imported like a payload type's).",
        },
        "id": {
            **_NAME,
            "description": "The invoke id: done.invoke.<id>, a send's target #_<id>, and "
            "machine.children.<id> (default: the machine makes one up).",
        },
        "id_location": {
            **_NAME,
            "description": "Instead of id: the data field (str) that receives the made-up id.",
        },
        "params": {
            "type": "object",
            "description": "The child's initial data: its field -> an expression over this "
            "machine's data, computed when the child starts.",
            "additionalProperties": _EXPRESSION,
        },
        "autoforward": {
            "type": "boolean",
            "description": "Send the child every external event this machine processes.",
        },
        "finalize": {
            **_STEPS,
            "description": "Steps run on every event from the child before it is processed.",
        },
        "description": _TEXT,
    },
}

SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://statewright.dev/schema/spec-v2.json",
    "title": "statewright state machine spec (v2: flat machines and statecharts)",
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
        "data": {"$ref": "#/$defs/data"},
    },
    "$defs": {
        "machine": {
            "type": "object",
            "required": ["name", "initial"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "pattern": "^[A-Z][A-Za-z0-9_]*$"},
                "initial": _TARGETS,
                "description": _TEXT,
                "version": {"type": "integer", "minimum": 1},
                "module": _NAME,
                "on_error": {
                    "enum": ["raise", "event"],
                    "description": "Statecharts: an error in a guard or action raises the "
                    "exception (the event is not applied) or the internal event error.execution.",
                },
                "statechart": {
                    "type": "boolean",
                    "description": "true: compile to a statechart even without statechart "
                    "features (nesting, data, timers, ...): what a spec another machine invokes "
                    "as a child machine must be.",
                },
                "binding": {
                    "enum": ["early", "late"],
                    "description": "Statecharts: a state's data fields get their initial values "
                    "at start (early) or when the state is first entered (late).",
                },
                "metadata": _METADATA,
            },
        },
        "state": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "description": _TEXT,
                "kind": {"enum": ["normal", "final", "error", "wait", "parallel", "history"]},
                "parent": {**_NAME, "description": "Statecharts: the enclosing state."},
                "initial": _DEFAULT_TRANSITION,
                "history": {"enum": ["shallow", "deep"]},
                "default": _DEFAULT_TRANSITION,
                "after": {
                    "description": "Statecharts: timers started on entry, cancelled on exit.",
                    "anyOf": [
                        {"$ref": "#/$defs/timer"},
                        {"type": "array", "items": {"$ref": "#/$defs/timer"}},
                    ],
                },
                "always": {
                    "description": "Statecharts: eventless transitions.",
                    "anyOf": [
                        {"$ref": "#/$defs/alternative"},
                        {"type": "array", "items": {"$ref": "#/$defs/alternative"}},
                    ],
                },
                "data": {"$ref": "#/$defs/data"},
                "invoke": {
                    "description": "Statecharts: child machines the state runs while it is "
                    "active (started after its entry actions, cancelled when it is left).",
                    "anyOf": [
                        {"$ref": "#/$defs/invoke"},
                        {"type": "array", "items": {"$ref": "#/$defs/invoke"}},
                    ],
                },
                "donedata": {
                    "description": "A final state's done data: what its parent's done.state "
                    "event carries (name -> expression, or one expression).",
                    "anyOf": [
                        _EXPRESSION,
                        {"type": "object", "additionalProperties": _EXPRESSION},
                    ],
                },
                "tags": _NAMES,
                "entry": _STEPS,
                "exit": _STEPS,
                "value": _TEXT,
                "label": _TEXT,
                "metadata": _METADATA,
                "on": {
                    "type": "object",
                    "description": "event (or, in statecharts, an event descriptor) -> target, "
                    "alternative, or list of alternatives",
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
        "steps": STEPS,
        "elif_branch": {
            "type": "object",
            "required": ["if"],
            "additionalProperties": False,
            "properties": {"if": _EXPRESSION, "then": {"$ref": "#/$defs/steps"}},
        },
        "data": {
            "type": "object",
            "description": "Data fields (statecharts), one per line: name -> its type and "
            "initial value.",
            "additionalProperties": {"$ref": "#/$defs/data_field"},
        },
        "data_field": {
            "type": "object",
            "required": ["type"],
            "additionalProperties": False,
            "properties": {
                "type": {"type": "string", "description": "A type, as for payloads."},
                "initial": {"description": "A TOML value of that type (default: None)."},
                "expr": {**_EXPRESSION, "description": "Instead of initial: computed at start."},
                "description": _TEXT,
            },
        },
        "timer": _TIMER,
        "invoke": _INVOKE,
        "default_transition": _DEFAULT_TRANSITION["anyOf"][1],
        "event": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "description": _TEXT,
                "payload": {"type": "object", "additionalProperties": {"type": "string"}},
                "value": _TEXT,
                "label": _TEXT,
                "metadata": _METADATA,
                "internal": {
                    "type": "boolean",
                    "description": "Only the machine sends it (a raise or send step): no method, "
                    "never a tool, refused by send_external. A chart's done.state.* and error.* "
                    "events and its timers' events always are.",
                },
            },
        },
        "transition": {
            "type": "object",
            "required": ["from", "to"],
            "additionalProperties": False,
            "properties": {
                "from": _SELECTOR,
                "except": _NAMES,
                "event": {"type": "string", "description": "An event, or an event descriptor."},
                "always": {"const": True, "description": "Statecharts: eventless (no event)."},
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

"""The shape pass over ``[events.<NAME>]``: names, methods, values and payload types."""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any, Final

from statewright_compiler.model import Event, PayloadField
from statewright_compiler.spec.fields import FieldReader
from statewright_compiler.spec.naming import camel_case
from statewright_compiler.spec.payload_types import PayloadTypeError, parse_payload_type
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import excerpt

__all__ = ["RESERVED_METHOD_NAMES", "EventReader"]

#: Attribute names of the runtime's ``Machine`` (and Python's object model) that an event's
#: method must not shadow. A test checks this covers every public name of ``statewright.Machine``.
RESERVED_METHOD_NAMES: Final = frozenset(
    {
        "add_listener", "allowed_events", "can_send", "context", "fsm_record", "handlers",
        "history", "in_tag", "instance_id", "is_final", "iteration_counts", "last_transition",
        "load", "options", "previous_state", "remove_listener", "restore", "revision", "save",
        "send", "snapshot", "spec", "state", "statistics", "total_transitions",
        "transition_counts", "transition_probabilities", "try_send", "mro", "self", "cls",
        "dynamic", "is_in", "send_external", "tools", "configuration", "active_states",
        "start_chart", "fire_due", "pending_timers", "next_due", "run_timers", "send_once",
        "data", "children", "spec_changes",
    }
)  # fmt: skip


class EventReader(FieldReader):
    """Events and their payloads."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Events whose table says ``internal = false`` (which a chart's ``done.state.*`` and
        #: ``error.*`` events cannot be: the semantic pass says so).
        self.said_external: list[str] = []

    def events(self, table: Mapping[str, Any], imported: Mapping[str, str]) -> list[Event]:
        events: list[Event] = []
        for key, body in table.items():
            path: KeyPath = ("events", key)
            name = self.name(key, path, "event name")
            if not self.typed(body, path, dict, f"event {key!r}") or name is None:
                continue
            self.check_keys(body, path, "event")
            method = name.lower()
            if (
                keyword.iskeyword(method)
                or method in RESERVED_METHOD_NAMES
                or method.startswith("_")
            ):
                self.reporter.report(
                    "invalid-name",
                    path,
                    f"event {name!r} would become the method {method!r}, "
                    "which is a Python keyword or a name the runtime's Machine already uses",
                    "rename the event",
                    key=True,
                )
                continue
            value = self.text(body, "value", path, name) or name
            internal = self.flag(body, "internal", path)
            if body.get("internal") is False:
                self.said_external.append(name)
            events.append(
                Event(
                    name=name,
                    value=value,
                    label=self.text(body, "label", path, value) or value,
                    member=name.upper(),
                    method=method,
                    payload_type=f"{camel_case(name)}Payload",
                    description=self.text(body, "description", path),
                    payload=self.payload(
                        self.table(body, "payload", path), (*path, "payload"), imported
                    ),
                    metadata=self.metadata(body, path),
                    line=self.reporter.line(path),
                    internal=internal,
                )
            )
        return events

    def payload(
        self, table: Mapping[str, Any], path: KeyPath, imported: Mapping[str, str]
    ) -> tuple[PayloadField, ...]:
        fields: list[PayloadField] = []
        for key, text in table.items():
            name = self.name(key, (*path, key), "payload field")
            if name is None or not self.typed(text, (*path, key), str, f"type of {key!r}"):
                continue
            if name in {"self", "event"}:
                self.reporter.report(
                    "invalid-name", (*path, key), f"payload field {name!r} is reserved", key=True
                )
                continue
            try:
                parsed = parse_payload_type(text, imported)
            except PayloadTypeError as error:
                self.reporter.report(
                    error.code,
                    (*path, key),
                    f"invalid payload type {excerpt(text)}: {error}",
                    offset=error.offset + 1,
                )
                continue
            fields.append(
                PayloadField(
                    name,
                    parsed.annotation,
                    parsed.optional,
                    parsed.typing_names,
                    parsed.names,
                    parsed.type,
                )
            )
        return tuple(fields)

"""Where untrusted input meets a machine: events named by strings with JSON arguments (an LLM's
tool call, a webhook), checked against the spec's payload types, and the tool definitions that
tell a model which events the current state accepts and what their payloads are.

:mod:`statewright._payloads` and :mod:`statewright._tools` are imported on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from statewright._compat import StrEnum
from statewright._errors import InvalidTransition, UnknownEvent

if TYPE_CHECKING:
    from statewright._options import MachineOptions
    from statewright._payloads import PayloadCodec
    from statewright._table import Table
    from statewright._tools import ToolDefinition

__all__ = ["Boundary"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)


class Boundary(Generic[S, E]):
    """``tools()`` and the checked resolution behind ``send_external`` of
    :class:`~statewright._core.MachineCore`."""

    if TYPE_CHECKING:  # set by MachineCore; not class annotations (get_type_hints reads those)
        _spec_table: Table
        _state: S
        _options: MachineOptions

        def allowed_events(self) -> frozenset[E]: ...

        def _logged(self, error: InvalidTransition) -> InvalidTransition: ...

    def tools(self, state: S | None = None, /) -> list[ToolDefinition]:
        """The events the current state (or ``state``) accepts, guards not evaluated, as tool
        definitions: the event's name, its description from the spec and its payload's JSON
        Schema. A model's call of one goes to :meth:`send_external` as it is."""
        from statewright._payloads import payload_schema
        from statewright._tools import ToolDefinition

        spec = self._spec_table.spec
        allowed = self._spec_table.allowed[self._state if state is None else state]
        codecs = self._payload_codecs()
        return [
            ToolDefinition(
                member.name,
                spec.event_descriptions.get(member, "").strip() or f"Send the {member.name} event.",
                payload_schema(spec.payloads.get(member, ()), codecs),
            )
            for member in spec.event_type
            if member in allowed
        ]

    def _payload_codecs(self) -> Mapping[str, PayloadCodec]:
        from statewright._payloads import BUILTIN_CODECS

        extra = self._options.payload_codecs
        return {**BUILTIN_CODECS, **extra} if extra else BUILTIN_CODECS

    def _external(
        self, event: str, arguments: Mapping[str, Any] | str | bytes | None
    ) -> tuple[E, dict[str, Any]]:
        """The member named ``event`` (its name or its value) and the checked payload, or
        :class:`UnknownEvent` / :class:`InvalidPayload`; nothing is sent here."""
        from statewright._payloads import check_payload, parse_arguments

        table = self._spec_table
        spec = table.spec
        member: Any = None
        if isinstance(event, spec.event_type):
            member = event
        elif isinstance(event, str) and not isinstance(event, Enum):
            member = spec.event_type.__members__.get(event) or table.events_by_value.get(event)
        if member is None:
            raise self._logged(
                UnknownEvent(
                    str(self._state),
                    event if isinstance(event, str) else repr(event),
                    self.allowed_events(),
                    f"{event!r} is not the name or value of an event of {spec.name}",
                )
            )
        name = member.name
        payload = check_payload(
            name,
            spec.payloads.get(member, ()),
            parse_arguments(name, arguments),
            self._payload_codecs(),
        )
        return member, payload

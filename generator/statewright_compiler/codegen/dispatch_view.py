"""The parts of the generated module that dispatch on states and events: the exhaustive
``match`` functions behind ``allowed_events`` and ``transition_targets``, the per-event typed
``send`` signatures and the event methods. A mixin of the module view (:mod:`render`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from statewright_compiler.model import Event, Machine, State
from statewright_compiler.spec.literals import dict_literal, docstring_literal, tuple_literal

__all__ = ["DispatchView", "EventMethod", "MatchCase"]

#: States per chunk of the two-level state ``match``.
MATCH_CHUNK: Final = 32
#: ``send``'s signature in a machine whose every event is internal: no event type-checks.
NOTHING_TO_SEND: Final = "self, event: NoReturn, /"


@dataclass(frozen=True)
class MatchCase:
    """One ``case`` of a dispatch ``match``: a pattern and either a result or a nested match
    on ``subject``."""

    pattern: str
    result: str | None = None
    nested: tuple[MatchCase, ...] = ()
    subject: str = ""


@dataclass(frozen=True)
class EventMethod:
    name: str
    member: str
    signature: str
    arguments: str
    docstring: str


class DispatchView:
    """Needs the module view's ``machine``, member maps, class names and ``target``."""

    machine: Machine
    match_dispatch: bool
    state_class: str
    event_class: str
    state_member: Mapping[str, str]
    event_member: Mapping[str, str]

    if TYPE_CHECKING:

        def target(self, name: str) -> str: ...

        def leaf_states(self) -> Sequence[State]: ...

    def _chunked(self, cases: list[MatchCase]) -> list[MatchCase]:
        """Split a long ``match`` on the state into chunks joined by or-patterns, each matching
        the state again (bounded narrowing cost)."""
        if len(cases) <= MATCH_CHUNK:
            return cases
        chunks = [cases[start : start + MATCH_CHUNK] for start in range(0, len(cases), MATCH_CHUNK)]
        return [
            MatchCase(
                " | ".join(case.pattern for case in chunk), nested=tuple(chunk), subject="state"
            )
            for chunk in chunks
        ]

    def event_set(self, names: Sequence[str]) -> str:
        members = ", ".join(self.event_member[name] for name in names)
        return f"frozenset({{{members}}})" if members else "frozenset()"

    def allowed_events_cases(self) -> list[MatchCase]:
        grouped: dict[str, list[str]] = defaultdict(list)
        for state, events in self.machine.allowed_by_leaf.items():
            grouped[self.event_set(events)].append(self.state_member[state])
        return self._chunked(
            [MatchCase(" | ".join(states), result) for result, states in grouped.items()]
        )

    def allowed_events_literal(self) -> str:
        """``_ALLOWED_EVENTS`` of a large chart: leaf -> its events."""
        return dict_literal(
            (self.state_member[state], self.event_set(events))
            for state, events in self.machine.allowed_by_leaf.items()
        )

    def targets_cases(self) -> list[MatchCase]:
        targets: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for transition in self.machine.transitions:
            targets[transition.source][transition.event].append(self.target(transition.target))
        no_transitions: list[str] = []
        cases: list[MatchCase] = []
        for state in self.machine.states:
            by_event = targets.get(state.name)
            if not by_event:
                no_transitions.append(self.state_member[state.name])
                continue
            inner = [
                MatchCase(self.event_member[event], tuple_literal(found))
                for event, found in by_event.items()
            ]
            others = [
                self.event_member[event.name]
                for event in self.machine.events
                if event.name not in by_event
            ]
            if others:
                inner.append(MatchCase(" | ".join(others), "()"))
            cases.append(
                MatchCase(self.state_member[state.name], nested=tuple(inner), subject="event")
            )
        if no_transitions:
            cases.append(MatchCase(" | ".join(no_transitions), "()"))
        return self._chunked(cases)

    def typed_send(self, asynchronous: bool) -> list[str]:
        """Per-event signatures of ``send``, ``try_send``, ``can_send`` and ``send_once`` (whose
        idempotency key comes first) (lines; "" = blank), for the events from outside.

        They narrow the runtime's generic methods (any member, any payload), which mypy calls an
        incompatible override: the ``type: ignore`` says so. A machine with one event has one
        signature (an overload needs two); at run time the runtime's methods run unchanged.
        """
        prefix = "async " if asynchronous else ""
        groups = self.send_groups()
        # Internal events have none: with only internal events, nothing may be sent at all.
        signatures = [self.send_signature(events) for events in groups] or [NOTHING_TO_SEND]
        # send_once's key is positional-only: any name works that no payload field takes.
        names = {field.name for events in groups for field in events[0].payload}
        key_name = next(
            f"key{'_' * n}" for n in range(len(names) + 1) if f"key{'_' * n}" not in names
        )
        lines: list[str] = []
        for name, returns, key in (
            ("send", self.state_class, ""),
            ("try_send", "bool", ""),
            ("can_send", "bool", ""),
            ("send_once", f"SendResult[{self.state_class}]", f"{key_name}: str, "),
        ):
            ignore = f"  # type: ignore[override]  # narrows the generic {name}"
            keyed = [signature.replace("self, ", f"self, {key}", 1) for signature in signatures]
            if len(keyed) == 1:
                lines += [f"{prefix}def {name}({keyed[0]}) -> {returns}: ...{ignore}", ""]
                continue
            for index, signature in enumerate(keyed):
                lines.append("@overload" + (ignore if index == 0 else ""))
                lines.append(f"{prefix}def {name}({signature}) -> {returns}: ...")
            arguments = f"{key_name + ', ' if key else ''}event, **payload"
            call = f"{'await ' if asynchronous else ''}super().{name}({arguments})"
            parameters = f"self, {key}event: {self.event_class}, /, **payload: Any"
            lines += [f"{prefix}def {name}({parameters}) -> {returns}:", f"    return {call}", ""]
        return lines[:-1]

    def send_groups(self) -> list[tuple[Event, ...]]:
        """The events that share one signature of ``send``: each event alone, except in a large
        machine, where events with the same payload fields share one (mypy checks every pair of
        overloads, so a signature per event costs it time quadratic in the number of events).
        Internal events have none: only the machine sends them."""
        if self.match_dispatch:
            return [(event,) for event in self.machine.external_events]
        groups: dict[tuple[str, ...], list[Event]] = {}
        for event in self.machine.external_events:
            groups.setdefault(tuple(self.payload_parameters(event)), []).append(event)
        return [tuple(events) for events in groups.values()]

    def send_signature(self, events: tuple[Event, ...]) -> str:
        """``self, event: Literal[<Member>, ...], /, *, field: type, ...`` for ``events`` (which
        have the same payload fields)."""
        members = ", ".join(f"{self.event_class}.{event.member}" for event in events)
        parameters = self.payload_parameters(events[0])
        keywords = f", *, {', '.join(parameters)}" if parameters else ""
        return f"self, event: Literal[{members}], /{keywords}"

    @staticmethod
    def payload_parameters(event: Event) -> list[str]:
        """Keyword parameters for the payload fields, optional ones (default None) last."""
        fields = sorted(event.payload, key=lambda field: field.optional)
        return [
            f"{field.name}: {field.annotation}{' = None' if field.optional else ''}"
            for field in fields
        ]

    def event_methods(self) -> list[EventMethod]:
        """One method per event from outside (internal events have none)."""
        return [self.event_method(event) for event in self.machine.external_events]

    def event_method(self, event: Event) -> EventMethod:
        parameters = self.payload_parameters(event)
        signature = f"self, *, {', '.join(parameters)}" if parameters else "self"
        arguments = "".join(f", {field.name}={field.name}" for field in event.payload)
        text = event.description or f"Send {event.name}."
        return EventMethod(
            event.method,
            f"_E_{event.member}",
            signature,
            arguments,
            docstring_literal(text),
        )

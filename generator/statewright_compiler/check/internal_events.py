"""Which events are internal: the ones only the machine sends itself.

A chart's timers' events and the ``done.state.<id>``, ``done.invoke.<id>`` and ``error.execution``
events the compiler declares are internal from the start (:mod:`chart_semantics`). Here the
declared events join them: in a statechart every event whose value is SCXML's ``done.state.*``,
``done.invoke.*`` or ``error.*`` (the machine's own), and in any machine an event the spec
declares ``internal = true``. An internal event gets no method and no typed ``send``
signature, is never offered as a tool and is refused by ``send_external``; the runtime sends it
when a timer fires or a step raises or sends it.

Misuse is an ``internal-event`` error: ``internal = false`` on an event that is internal anyway,
and ``internal = true`` on an event no ``raise`` or ``send`` step names in a machine that invokes
no child machine (it could never happen: nothing from outside may send it; a child may send its
parent any event, ``target = "#_parent"``, which the compiler cannot see from here).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from statewright_compiler.model import Event, RaiseStep, SendStep, Step
from statewright_compiler.spec.declarations import Declarations
from statewright_compiler.spec.reporter import Reporter

__all__ = ["is_reserved", "mark_internal"]


def is_reserved(value: str) -> bool:
    """SCXML's names for the events a chart sends itself: ``done.state.<id>``, ``error.*``, and
    ``done.invoke.<id>``, which its children's completion sends it."""
    return value == "error" or value.startswith(("error.", "done.state.", "done.invoke."))


def mark_internal(
    events: Sequence[Event],
    declarations: Declarations,
    chart: bool,
    steps: Iterable[Step],
    reporter: Reporter,
) -> list[Event]:
    """``events`` with :attr:`Event.internal` set where it holds; misuse is reported."""
    sent = {step.event for step in steps if isinstance(step, RaiseStep | SendStep)}
    has_children = any(state.invokes for state in declarations.states)
    declared = {event.name for event in declarations.events}
    marked: list[Event] = []
    for event in events:
        reserved = chart and is_reserved(event.value)
        if reserved and event.name in declarations.said_external:
            reporter.report(
                "internal-event",
                ("events", event.name, "internal"),
                f"event {event.name!r} has the value {event.value!r}: a statechart's "
                "done.state.*, done.invoke.* and error.* events are its own, so it is always "
                "internal",
                "remove 'internal = false', or give an event from outside another value",
            )
        elif (
            event.internal
            and event.name in declared
            and event.name not in sent
            and not has_children
        ):
            hint = (
                f'raise it from an action ({{ raise = "{event.name}" }}) or send it from a '
                "{ send = ... } step, or remove 'internal = true'"
                if chart
                else "a flat machine never sends itself events: remove 'internal = true'"
            )
            reporter.report(
                "internal-event",
                ("events", event.name, "internal"),
                f"internal event {event.name!r} is never sent: no raise or send step names it, "
                "and nothing from outside may",
                hint,
            )
        marked.append(dataclasses.replace(event, internal=True) if reserved else event)
    return marked

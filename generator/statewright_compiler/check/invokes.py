"""The checks a state's child machines need once every state is read: fixed invoke ids are the
machine's (one child per id: ``#_<id>``, ``done.invoke.<id>`` and ``machine.children.<id>`` name
it, so an id is no name the ``children`` mapping has already), and a ``finalize`` runs the data
model's steps only.

A ``finalize`` sees the events of a child, whose payloads only the child's spec types: a handler
action there would have no payload type to be checked against, so ``finalize`` names none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from statewright_compiler.check.step_paths import steps_with_paths
from statewright_compiler.model import Invoke, SendStep, Step
from statewright_compiler.spec.declarations import RawState
from statewright_compiler.spec.reporter import Reporter

__all__ = ["check_invokes", "child_targets", "passed_on"]

#: The targets of a ``send`` step that this machine's own queues receive.
_OWN_QUEUES: Final = frozenset({None, "#_internal"})

#: What a fixed id cannot be: it names a property of the generated ``<Name>Children`` mapping,
#: beside the mapping's own methods.
_MAPPING_NAMES: Final = frozenset({"get", "keys", "items", "values"})


def child_targets(states: Iterable[RawState]) -> Mapping[str, Invoke]:
    """Each child with a fixed id by the target a send to it names, ``#_<id>``."""
    return {f"#_{invoke.id}": invoke for state in states for invoke in state.invokes if invoke.id}


def passed_on(states: Iterable[RawState], steps: Iterable[Step], events: Iterable[str]) -> set[str]:
    """The events a machine sends on to other machines, so that no transition of its own need
    match them: each one a ``send`` step names with another session's target (its parent, a
    child), and, when a child machine is sent every event (``autoforward``), all of them."""
    if any(invoke.autoforward for state in states for invoke in state.invokes):
        return set(events)
    return {
        step.event
        for step in steps
        if isinstance(step, SendStep) and step.target not in _OWN_QUEUES
    }


def check_invokes(states: Iterable[RawState], reporter: Reporter) -> None:
    first: dict[str, Invoke] = {}
    for state in states:
        for invoke in state.invokes:
            if invoke.id in first:
                reporter.report(
                    "duplicate-name",
                    (*invoke.path, "id"),
                    f"invoke id {invoke.id!r} is used twice (first at line "
                    f"{first[invoke.id].line}): one child machine per id",
                    "give each invoke its own id",
                )
            elif invoke.id in _MAPPING_NAMES or invoke.id.startswith("_"):
                reporter.report(
                    "invalid-name",
                    (*invoke.path, "id"),
                    f"invoke id {invoke.id!r} would be a property of machine.children, where "
                    + ("names may not start with '_'" if invoke.id[0] == "_" else "it is taken"),
                    "choose another id",
                )
            elif invoke.id:
                first[invoke.id] = invoke
            for step, where in steps_with_paths(invoke.finalize, (*invoke.path, "finalize")):
                if isinstance(step, str):
                    reporter.report(
                        "wrong-type",
                        where,
                        f"finalize runs the data model's steps, not the action {step!r}: the "
                        "events of a child have payloads only its own spec types",
                        "assign what the action would compute: "
                        '{ assign = "field", expr = "_event.data..." }',
                    )

"""Executable content: what a transition, an entry or an exit runs, in order.

A step is a handler action's name (a method of the user's handlers object) or one of the
statechart steps SCXML defines: raise an event, log, send an event (after a delay, with data),
cancel a timer, and the data model's assign, if and foreach.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from statewright_compiler.model.expression import Expression

__all__ = [
    "AssignStep",
    "CancelStep",
    "ForeachStep",
    "IfStep",
    "LogStep",
    "RaiseStep",
    "SendStep",
    "Step",
    "action_names",
    "step_expressions",
    "walk_steps",
]


@dataclass(frozen=True)
class RaiseStep:
    """Executable content: put ``event`` (an event's name) on the internal queue (charts)."""

    event: str


@dataclass(frozen=True)
class LogStep:
    """Executable content: log ``text`` (or what ``expr`` computes) under ``label`` (SCXML's
    ``<log>``; charts)."""

    text: str
    label: str = ""
    expr: Expression | None = None


@dataclass(frozen=True)
class SendStep:
    """Executable content: send ``event`` to the machine (SCXML's ``<send>``), after ``delay``
    seconds, what the handler ``delay_handler`` returns, or what ``delay_expr`` computes
    (none of them: at once). ``id`` names the timer for :class:`CancelStep` ("" when the spec
    gives none: the machine makes one up); ``on_restore`` is what a restored machine does with
    it.

    The data model's forms: ``event_expr`` computes the event's name (``event`` is then "");
    ``params`` (``data = { name = EXPR }``), ``namelist`` (data fields sent under their names)
    and ``content`` (the whole data) make the event's data, compiled into the one expression
    ``data``; ``id_location`` is the data field that receives the send id; ``target``,
    ``type`` and their ``_expr`` forms say where it goes."""

    event: str
    id: str
    delay: float | None = None
    delay_handler: str | None = None
    on_restore: str = "fire"
    event_expr: Expression | None = None
    delay_expr: Expression | None = None
    id_location: str | None = None
    params: tuple[tuple[str, Expression], ...] = ()
    namelist: tuple[str, ...] = ()
    content: Expression | None = None
    target: str | None = None
    target_expr: Expression | None = None
    type: str | None = None
    type_expr: Expression | None = None
    data: Expression | None = None
    """The event's data, compiled from ``params``/``namelist``/``content`` by the check pass."""


@dataclass(frozen=True)
class CancelStep:
    """Executable content: cancel the pending timer ``id``, or the one whose id ``id_expr``
    computes (SCXML's ``<cancel>``)."""

    id: str
    id_expr: Expression | None = None


@dataclass(frozen=True)
class AssignStep:
    """Executable content: store ``value`` at ``location`` (a data field, or an item of one:
    ``items[0]``, ``table["key"]``). The check pass sets ``field`` (a whole field) or
    ``container`` and ``key`` (an item: the list or dict, and the index or key)."""

    location: Expression
    value: Expression
    field: str | None = None
    container: Expression | None = None
    key: Expression | None = None


@dataclass(frozen=True)
class IfStep:
    """Executable content: the steps of the first branch whose condition holds, else
    ``otherwise`` (SCXML's ``<if>``/``<elseif>``/``<else>``)."""

    branches: tuple[tuple[Expression, tuple[Step, ...]], ...]
    otherwise: tuple[Step, ...] = ()


@dataclass(frozen=True)
class ForeachStep:
    """Executable content: ``steps`` once per item of ``array`` (a list, or a dict's keys),
    each item stored in the data field ``item`` and its position in ``index``."""

    array: Expression
    item: str
    index: str | None
    steps: tuple[Step, ...]


#: One piece of executable content: a handler action's name, a raise, a log, a send, a cancel,
#: or the data model's assign, if and foreach.
Step = str | RaiseStep | LogStep | SendStep | CancelStep | AssignStep | IfStep | ForeachStep


def walk_steps(steps: Iterable[Step]) -> Iterator[Step]:
    """``steps`` and every step nested in them (an if's branches, a foreach's body), in order."""
    for step in steps:
        yield step
        if isinstance(step, IfStep):
            for _, branch in step.branches:
                yield from walk_steps(branch)
            yield from walk_steps(step.otherwise)
        elif isinstance(step, ForeachStep):
            yield from walk_steps(step.steps)


def step_expressions(step: Step) -> tuple[Expression, ...]:
    """The expressions of one step (not of the steps nested in it)."""
    found: list[Expression | None] = []
    if isinstance(step, LogStep):
        found = [step.expr]
    elif isinstance(step, SendStep):
        found = [step.event_expr, step.delay_expr, step.target_expr, step.type_expr, step.data]
        found += [expression for _, expression in step.params] + [step.content]
    elif isinstance(step, CancelStep):
        found = [step.id_expr]
    elif isinstance(step, AssignStep):
        found = [step.location, step.value, step.container, step.key]
    elif isinstance(step, IfStep):
        found = [condition for condition, _ in step.branches]
    elif isinstance(step, ForeachStep):
        found = [step.array]
    return tuple(expression for expression in found if expression is not None)


def action_names(steps: Iterable[Step]) -> tuple[str, ...]:
    """The handler actions among ``steps`` and the steps nested in them, in order: what the
    handlers object must define."""
    return tuple(dict.fromkeys(step for step in walk_steps(steps) if isinstance(step, str)))

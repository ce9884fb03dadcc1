"""The handler methods a machine calls, by role: guards, actions and delay handlers.

A name has one role: a guard returns a bool, an action returns nothing and a delay handler
returns seconds, so a method used in two roles cannot be typed, and is a ``handler-conflict``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from statewright_compiler.model import ErrorHandler, Rule, SendStep, State, Step, action_names
from statewright_compiler.spec.declarations import RawState
from statewright_compiler.spec.guards import guard_names
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import Reporter

__all__ = ["delay_handlers", "handler_names"]


def handler_names(
    rules: Sequence[Rule],
    handlers: Sequence[ErrorHandler],
    states: Sequence[State],
    reporter: Reporter,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every guard and every action name, sorted; a name used as both is reported."""
    guards = {name for rule in rules if rule.guard for name in guard_names(rule.guard)}
    actions = {name for rule in rules for name in rule.actions}
    for state in states:
        steps = (*state.entry, *state.exit, *state.initial_steps, *state.default_steps)
        actions |= set(action_names(steps))
    actions |= {name for handler in handlers for name in handler.actions}
    for name in sorted(guards & actions):
        rule = next(
            rule
            for rule in rules
            if name in rule.actions or (rule.guard is not None and name in guard_names(rule.guard))
        )
        reporter.report_at(
            "handler-conflict",
            rule.line,
            rule.column,
            f"{name!r} is used both as a guard and as an action",
            "a handler method is either a guard (returns bool) or an action; rename one",
        )
    return tuple(sorted(guards)), tuple(sorted(actions))


def delay_handlers(
    states: Sequence[State],
    declared: Mapping[str, RawState],
    steps: Iterable[Step],
    others: set[str],
    reporter: Reporter,
) -> tuple[str, ...]:
    """Handlers that compute a delay (they return seconds: neither guards nor actions), from the
    states' timers and the delayed sends among ``steps``; one also in ``others`` is reported."""
    found: dict[str, KeyPath] = {}
    for state in states:
        for timer in state.timers:
            if timer.delay_handler:
                found.setdefault(timer.delay_handler, (*declared[state.name].path, "after"))
    for step in steps:
        if isinstance(step, SendStep) and step.delay_handler:
            found.setdefault(step.delay_handler, ("machine",))
    for name in sorted(found.keys() & others):
        reporter.report(
            "handler-conflict",
            found[name],
            f"{name!r} computes a timer's delay and is also a guard or an action",
            "a delay handler returns seconds; give it its own name",
        )
    return tuple(sorted(found))

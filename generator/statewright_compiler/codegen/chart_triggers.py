"""Which payloads can reach each handler of a statechart: what types its protocol method.

The states' entry and exit triggers come from :mod:`statewright_compiler.model.triggers`; here
each handler collects the triggers of every place the spec uses it. ``""`` stands for "no
event's payload" (the start, eventless transitions, and events the chart raises itself).
"""

from __future__ import annotations

from collections import defaultdict

from statewright_compiler.model import Machine, SendStep, action_names
from statewright_compiler.model.triggers import (
    ChartTree,
    Triggers,
    all_steps,
    route_keys,
    self_sent,
    state_triggers,
)
from statewright_compiler.spec.guards import guard_names

__all__ = ["chart_triggers"]


def chart_triggers(machine: Machine) -> tuple[Triggers, dict[str, list[str]]]:
    """For each handler: the events whose payload it may see, and where the spec uses it."""
    tree = ChartTree(machine)
    sent = self_sent(machine)
    entered, exited = state_triggers(machine)
    triggers: Triggers = defaultdict(dict)
    for transition in machine.transitions:
        keys = dict.fromkeys([transition.event or ""])
        if transition.event in sent:
            keys[""] = None
        guards = guard_names(transition.guard) if transition.guard else ()
        for name in (*guards, *transition.actions):
            triggers[name].update(keys)
    for handler in machine.error_handlers:  # a route runs with the failed event's payload
        keys = route_keys(machine, tree, handler.sources, sent)
        for name in handler.actions:
            triggers[name].update(keys)
    uses: dict[str, list[str]] = defaultdict(list)
    for rule in machine.rules:
        guards = guard_names(rule.guard) if rule.guard else ()
        trigger = rule.event or "(eventless)"
        targets = ", ".join(rule.targets) or "(targetless)"
        for name in (*guards, *rule.actions):
            uses[name].append(f"{rule.source.describe()} --{trigger}--> {targets}")
    for state in machine.states:
        parent = state.parent or state.name
        for role, steps, seen in (
            ("entering", state.entry, entered[state.name]),
            ("leaving", state.exit, exited[state.name]),
            ("entering by default", state.initial_steps, entered[state.name]),
            ("restoring nothing into", state.default_steps, entered[parent]),
        ):
            for name in action_names(steps):
                triggers[name].update(seen or {"": None})
                uses[name].append(f"{role} {state.name}")
        for timer in state.timers:
            if timer.delay_handler:
                triggers[timer.delay_handler].update(entered[state.name] or {"": None})
                uses[timer.delay_handler].append(f"the timer of {state.name}")
    for step in all_steps(machine):
        if isinstance(step, SendStep) and step.delay_handler:
            triggers[step.delay_handler][""] = None  # over-approximated: any payload
            triggers[step.delay_handler].update(dict.fromkeys(e.name for e in machine.events))
            sent_as = f" as {step.id}" if step.id else ""
            uses[step.delay_handler].append(f"sending {step.event or 'an event'}{sent_as}")
    return triggers, uses

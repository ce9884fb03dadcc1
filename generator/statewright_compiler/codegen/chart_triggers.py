"""Which payloads can reach each handler of a statechart: what types its protocol method.

In a flat machine a state is entered by the transitions that target it. In a chart it is also
entered when a transition targets one of its ancestors (default entry), one of its descendants,
or a history state that may restore it, and at start; it is left whenever an enclosing state is.
The sets below over-approximate that (a handler then has to accept a wider union, never a
narrower one than it will be given). ``""`` stands for "no event's payload": the start,
eventless transitions, and events raised or sent by the chart itself when their payload has
fields (a raised event carries an empty payload).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from statewright_compiler.model import Machine, RaiseStep, SendStep, StateKind, Step
from statewright_compiler.spec.guards import guard_names

__all__ = ["chart_triggers"]

Triggers = dict[str, dict[str, None]]


class _Tree:
    def __init__(self, machine: Machine) -> None:
        self.parent = {state.name: state.parent for state in machine.states}
        self.children = {state.name: state.children for state in machine.states}
        self.kind = {state.name: state.kind for state in machine.states}

    def ancestors(self, name: str) -> list[str]:
        chain: list[str] = []
        node = self.parent[name]
        while node is not None:
            chain.append(node)
            node = self.parent[node]
        return chain

    def below(self, name: str) -> list[str]:
        """``name`` and every descendant."""
        return [name, *(n for child in self.children[name] for n in self.below(child))]

    def entered_by(self, target: str) -> list[str]:
        """What entering ``target`` may enter: it, what is below it (or, for a history state,
        below its parent), and its ancestors."""
        if self.kind[target] is StateKind.HISTORY:
            parent = self.parent[target]
            inside = self.below(parent) if parent is not None else []
            return [*inside, *self.ancestors(target)]
        return [*self.below(target), *self.ancestors(target)]

    def exited_by(self, source: str, targets: Iterable[str]) -> list[str]:
        """What leaving ``source`` for ``targets`` may exit: everything below the nearest
        common ancestor (the whole chart when there is none)."""
        common = set(self.ancestors(source))
        for target in targets:
            common &= set(self.ancestors(target))
        domain = next((n for n in self.ancestors(source) if n in common), None)
        if domain is None:
            return [name for name in self.parent]
        return [name for name in self.below(domain) if name != domain]


def chart_triggers(machine: Machine) -> tuple[Triggers, dict[str, list[str]]]:
    """For each handler: the events whose payload it may see, and where the spec uses it."""
    tree = _Tree(machine)
    with_fields = {event.name for event in machine.events if event.payload}
    self_sent = {
        step.event
        for step in _all_steps(machine)
        if isinstance(step, RaiseStep | SendStep) and step.event in with_fields
    }
    entered: Triggers = defaultdict(dict)
    exited: Triggers = defaultdict(dict)
    for name in (n for target in machine.initial_targets for n in tree.entered_by(target)):
        entered[name][""] = None
    triggers: Triggers = defaultdict(dict)
    for transition in machine.transitions:
        keys = dict.fromkeys([transition.event or ""])
        if transition.event in self_sent:
            keys[""] = None
        guards = guard_names(transition.guard) if transition.guard else ()
        for name in (*guards, *transition.actions):
            triggers[name].update(keys)
        if transition.targets:
            for name in tree.exited_by(transition.source, transition.targets):
                exited[name].update(keys)
            for name in (n for target in transition.targets for n in tree.entered_by(target)):
                entered[name].update(keys)
    for handler in machine.error_handlers:  # a route runs with the failed event's payload
        keys = {}
        for source in handler.sources:
            lineage = {source, *tree.ancestors(source)}
            for transition in machine.transitions:
                if transition.source in lineage:
                    keys[transition.event or ""] = None
                    if transition.event in self_sent:
                        keys[""] = None
        for name in handler.actions:
            triggers[name].update(keys)
        for source in handler.sources:
            for name in tree.exited_by(source, [handler.target]):
                exited[name].update(keys)
        for name in tree.entered_by(handler.target):
            entered[name].update(keys)
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
            for name in (step for step in steps if isinstance(step, str)):
                triggers[name].update(seen or {"": None})
                uses[name].append(f"{role} {state.name}")
        for timer in state.timers:
            if timer.delay_handler:
                triggers[timer.delay_handler].update(entered[state.name] or {"": None})
                uses[timer.delay_handler].append(f"the timer of {state.name}")
    for step in _all_steps(machine):
        if isinstance(step, SendStep) and step.delay_handler:
            triggers[step.delay_handler][""] = None  # over-approximated: any payload
            triggers[step.delay_handler].update(dict.fromkeys(e.name for e in machine.events))
            uses[step.delay_handler].append(f"sending {step.event} as {step.id}")
    return triggers, uses


def _all_steps(machine: Machine) -> list[Step]:
    steps: list[Step] = []
    for state in machine.states:
        steps += [*state.entry, *state.exit, *state.initial_steps, *state.default_steps]
    for rule in machine.rules:
        steps += [*rule.steps, *rule.then]
    return steps

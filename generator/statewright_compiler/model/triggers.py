"""Which events' payloads can reach each state's entry and exit in a statechart: what a
handler run there is typed by, and what ``_event.data`` is in an expression run there.

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

from statewright_compiler.model.machine import Machine
from statewright_compiler.model.states import StateKind
from statewright_compiler.model.steps import RaiseStep, SendStep, Step, walk_steps

__all__ = ["ChartTree", "Triggers", "all_steps", "self_sent", "state_triggers"]

#: For each state (or handler): the events whose payload it may see, ``""`` for none, in order.
Triggers = dict[str, dict[str, None]]


class ChartTree:
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
        common ancestor. Without one in the spec it is the chart's root, whose children are
        active one at a time: only the top-level state holding ``source`` is exited."""
        lineage = self.ancestors(source)
        common = set(lineage)
        for target in targets:
            common &= set(self.ancestors(target))
        domain = next((n for n in lineage if n in common), None)
        if domain is None:
            return self.below(lineage[-1] if lineage else source)
        return [name for name in self.below(domain) if name != domain]


def all_steps(machine: Machine) -> list[Step]:
    """Every step of the machine, the ones nested in an if or a foreach too."""
    steps: list[Step] = list(machine.initial_steps)
    for state in machine.states:
        steps += [*state.entry, *state.exit, *state.initial_steps, *state.default_steps]
    for rule in machine.rules:
        steps += [*rule.steps, *rule.then]
    return list(walk_steps(steps))


def self_sent(machine: Machine) -> set[str]:
    """Events with payload fields the chart raises or sends itself (``""`` joins their keys)."""
    with_fields = {event.name for event in machine.events if event.payload}
    return {
        step.event
        for step in all_steps(machine)
        if isinstance(step, RaiseStep | SendStep) and step.event in with_fields
    }


def state_triggers(machine: Machine) -> tuple[Triggers, Triggers]:
    """For each state: the events that can enter it, and those that can exit it."""
    tree = ChartTree(machine)
    sent = self_sent(machine)
    entered: Triggers = defaultdict(dict)
    exited: Triggers = defaultdict(dict)
    for name in (n for target in machine.initial_targets for n in tree.entered_by(target)):
        entered[name][""] = None
    for transition in machine.transitions:
        keys = dict.fromkeys([transition.event or ""])
        if transition.event in sent:
            keys[""] = None
        if transition.targets:
            for name in tree.exited_by(transition.source, transition.targets):
                exited[name].update(keys)
            for name in (n for target in transition.targets for n in tree.entered_by(target)):
                entered[name].update(keys)
    for handler in machine.error_handlers:  # a route runs with the failed event's payload
        keys = route_keys(machine, tree, handler.sources, sent)
        for source in handler.sources:
            for name in tree.exited_by(source, [handler.target]):
                exited[name].update(keys)
        for name in tree.entered_by(handler.target):
            entered[name].update(keys)
    return entered, exited


def route_keys(
    machine: Machine, tree: ChartTree, sources: Iterable[str], sent: set[str]
) -> dict[str, None]:
    """The events an error route leaving ``sources`` can be taken on: any event a transition
    of a source or of its ancestors is taken on."""
    keys: dict[str, None] = {}
    for source in sources:
        lineage = {source, *tree.ancestors(source)}
        for transition in machine.transitions:
            if transition.source in lineage:
                keys[transition.event or ""] = None
                if transition.event in sent:
                    keys[""] = None
    return keys

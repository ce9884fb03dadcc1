"""Pass 2 for statecharts: the checks only a chart needs (initial and history defaults, target
sets that can be entered together, what a chart may not use) and the events it declares itself
(``done.state.<id>``, ``done.invoke.<id>``, ``error.execution``).

Every finding goes to the shared reporter with the spec position of what is wrong.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from typing import Final

from statewright_compiler.check.chart_tree import ChartTree
from statewright_compiler.check.default_cycles import check_default_cycles
from statewright_compiler.check.invokes import check_invokes
from statewright_compiler.diagnostics import Severity, did_you_mean
from statewright_compiler.model import PREVIOUS_TARGET, Event, Rule, StateKind, done_invoke_value
from statewright_compiler.model.step_text import duration_text
from statewright_compiler.spec.declarations import Declarations, RawRule, RawState, RawTimer
from statewright_compiler.spec.descriptors import matches, parse_descriptor
from statewright_compiler.spec.naming import camel_case
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import Reporter

__all__ = ["CONFIGURATION_NAMES", "ChartChecker", "timer_key"]

#: Names a region cannot have: the configuration's field for leaves outside every region, and
#: the methods of the tuple the configuration is.
CONFIGURATION_NAMES: Final = frozenset({"root", "count", "index"})


def timer_key(timer: RawTimer) -> str:
    """What names an ``after`` timer within its state: its ``id``, else its delay in the spec's
    short syntax (``30s``, ``1h30m``, ``250ms``; a decimal point becomes ``_``), else its delay
    handler's name."""
    if timer.id is not None:
        return timer.id
    if timer.delay_handler is not None:
        return timer.delay_handler
    return duration_text(timer.delay or 0.0).replace(".", "_")


class ChartChecker:
    def __init__(self, declarations: Declarations, reporter: Reporter, tree: ChartTree) -> None:
        self.declarations = declarations
        self.reporter = reporter
        self.tree = tree

    def error(self, code: str, path: KeyPath, message: str, hint: str | None = None) -> None:
        self.reporter.report(code, path, message, hint)

    # -- states ----------------------------------------------------------------------------------
    def check_states(self) -> None:
        self.check_regions()
        for state in self.declarations.states:
            if state.kind is StateKind.HISTORY:
                self.check_history(state)
            if state.initial:
                self.check_initial(state)
        check_default_cycles(self.tree, self.reporter)
        check_invokes(self.declarations.states, self.reporter)

    def check_regions(self) -> None:
        """A parallel chart's configuration has one field per region, named after it."""
        tree = self.tree
        if not any(tree.is_parallel(name) for name in tree.order):
            return
        for name in tree.regions():
            if name.startswith("_") or name in CONFIGURATION_NAMES:
                self.reporter.report(
                    "name-collision",
                    tree.states[name].path,
                    f"region {name!r} would be a field of the configuration, where "
                    + (
                        "names may not start with '_'"
                        if name.startswith("_")
                        else f"{name!r} is taken"
                    ),
                    "rename the state",
                    key=True,
                )

    def check_history(self, state: RawState) -> None:
        parent = self.tree.parent[state.name]
        if parent is None:
            self.error(
                "invalid-history",
                (*state.path, "kind"),
                f"history state {state.name!r} has no parent: history belongs to a compound "
                "or parallel state",
                "give it a parent",
            )
            return
        for key in ("entry", "exit"):
            if getattr(state, key):
                self.error(
                    "invalid-history",
                    (*state.path, key),
                    f"history state {state.name!r} is never active: it has no {key} actions",
                    "put them on its parent, or in the default's actions",
                )
        path = (*state.path, "default")
        for target in state.default:
            if self.known(target, path, "history default") and not self.tree.is_descendant(
                target, parent
            ):
                self.error(
                    "invalid-history",
                    path,
                    f"history default {target!r} is not inside {parent!r}, the history "
                    "state's parent",
                )
        self.check_together(state.default, path, "history default")

    def check_initial(self, state: RawState) -> None:
        path = (*state.path, "initial")
        if self.tree.is_parallel(state.name):
            self.error(
                "invalid-initial",
                path,
                f"parallel state {state.name!r} enters every region: it has no initial state",
                "remove 'initial'",
            )
            return
        if not self.tree.child_states(state.name):
            self.error(
                "invalid-initial",
                path,
                f"state {state.name!r} has no children, so no initial child",
                "give other states parent = " + repr(state.name) + ", or remove 'initial'",
            )
            return
        for target in state.initial:
            if self.known(target, path, "initial state") and not self.tree.is_descendant(
                target, state.name
            ):
                self.error(
                    "invalid-initial",
                    path,
                    f"initial state {target!r} is not a child of {state.name!r}",
                    did_you_mean(target, self.tree.child_states(state.name)),
                )
        self.check_together(state.initial, path, "initial state")

    # -- targets ---------------------------------------------------------------------------------
    def known(self, name: str, path: KeyPath, what: str) -> bool:
        if name in self.tree.states:
            return True
        self.error(
            "unknown-state",
            path,
            f"{what} {name!r} is not a state",
            did_you_mean(name, self.tree.states),
        )
        return False

    def check_targets(self, targets: Sequence[str], path: KeyPath, what: str) -> bool:
        """Targets exist and can be entered together; ``<previous>`` is a flat machine's."""
        if PREVIOUS_TARGET in targets:
            self.error(
                "chart-feature",
                path,
                f"a statechart cannot use {PREVIOUS_TARGET!r}",
                'target a history state (kind = "history") of the state to return into',
            )
            return False
        ok = all([self.known(target, path, what) for target in targets])
        return ok and self.check_together(targets, path, what)

    def check_together(self, targets: Sequence[str], path: KeyPath, what: str) -> bool:
        known = [target for target in targets if target in self.tree.states]
        for position, first in enumerate(known):
            for second in known[position + 1 :]:
                if not self.tree.compatible(first, second):
                    self.error(
                        "invalid-target",
                        path,
                        f"{what}s {first!r} and {second!r} cannot be active together: "
                        "several targets must be in different regions of a parallel state",
                    )
                    return False
        return True

    def check_not_flat_only(self) -> None:
        """Error handlers route a failed action (``on_error = "raise"``); with ``on_error =
        "event"`` a failure is the ``error.execution`` event instead, so both cannot apply."""
        if self.declarations.on_error != "event":
            return
        for handler in self.declarations.error_handlers:
            self.reporter.report(
                "chart-feature",
                handler.path,
                '[[error_handlers]] route failed actions, which on_error = "event" turns into '
                "error.execution events",
                'add transitions on "error.execution" instead, or use on_error = "raise"',
                key=True,
            )

    # -- events the chart declares itself -------------------------------------------------------
    def implicit_events(self, triggers: Iterable[str]) -> list[Event]:
        """``done.state.<id>`` for each compound state with a final child and each parallel
        state, ``done.invoke.<id>`` for each child machine (``done.invoke.<state>`` for one
        whose id the machine makes up) and ``error.execution`` with ``on_error = "event"``:
        declared when a trigger matches them and no declared event has their value."""
        tree = self.tree
        candidates: list[tuple[str, str, str, RawState | None]] = []
        for name in tree.order:
            raw = tree.states[name]
            has_final = any(tree.kind(child) is StateKind.FINAL for child in tree.children[name])
            if (tree.is_compound(name) and has_final) or tree.is_parallel(name):
                description = f"Raised when {name} is done (a final state inside it was reached)."
                candidates.append(
                    (f"done_state_{name}", f"done.state.{raw.value}", description, raw)
                )
        for name in tree.order:
            raw = tree.states[name]
            for invoke in raw.invokes:
                value = done_invoke_value(invoke, name)
                child = f"the child {invoke.id!r}" if invoke.id else "a child"
                description = (
                    f"Sent when {child} of {name} ({invoke.machine.machine_class}) reaches a "
                    "final state."
                )
                key = value.removeprefix("done.invoke.")
                candidates.append((f"done_invoke_{key}", value, description, raw))
        if self.declarations.on_error == "event":
            description = "Raised when a guard or an action raised an exception."
            candidates.append(("error_execution", "error.execution", description, None))
        descriptors = [parse_descriptor(trigger) for trigger in dict.fromkeys(triggers) if trigger]
        declared_values = {event.value for event in self.declarations.events}
        events: list[Event] = []
        for name, value, description, state in candidates:
            if value in declared_values or not any(matches(d, value) for d in descriptors):
                continue
            declared_values.add(value)  # two invokes of one state share their done event
            events.append(
                Event(
                    name=name,
                    value=value,
                    label=value,
                    member=name.upper(),
                    method=name.lower(),
                    payload_type=f"{camel_case(name)}Payload",
                    description=description,
                    payload=(),
                    metadata=(),
                    line=self.reporter.line(state.path) if state else 1,
                    internal=True,
                )
            )
        return events

    def timer_events(self, rules: Sequence[RawRule]) -> tuple[list[RawRule], list[Event]]:
        """Each ``after`` alternative gets its own event, ``after.<state>.<key>`` (named
        ``after_<state>_<key>``): the timer sends it, its value is the timer's id, and history
        shows it like any event. The key is the spec's ``id`` for the timer, else its delay
        (``30s``, ``1h30m``) or its delay handler's name: what editing the spec's other timers
        does not shift, so a snapshot's pending timer keeps meaning the same one."""
        keys: dict[str, set[str]] = {}
        named: list[RawRule] = []
        events: list[Event] = []
        for raw in rules:
            if raw.timer is None:
                named.append(raw)
                continue
            state = raw.source.states[0]
            key = timer_key(raw.timer)
            if key in keys.setdefault(state, set()):
                self.error(
                    "invalid-timer",
                    raw.path,
                    f"two after timers of {state!r} would both be after.{state}.{key}",
                    'give each of them an id: { id = "reminder", delay = ..., to = ... }',
                )
                continue
            keys[state].add(key)
            name = f"after_{state}_{key}"
            delay = raw.timer.delay_handler or f"{raw.timer.delay:g} s"
            events.append(
                Event(
                    name=name,
                    value=f"after.{state}.{key}",
                    label=f"after {delay}",
                    member=name.upper(),
                    method=name.lower(),
                    payload_type=f"{camel_case(name)}Payload",
                    description=f"Sent when {state} has been active for {delay}.",
                    payload=(),
                    metadata=(),
                    line=self.reporter.line(raw.path),
                    internal=True,
                )
            )
            named.append(dataclasses.replace(raw, event=name))
        return named, events

    def check_deterministic(self, rules: Sequence[tuple[Rule, RawRule]]) -> None:
        """In a chart, a rule is dead when, in each of its sources, an earlier unguarded rule
        takes every event it matches (SCXML takes the first in document order)."""
        taken: dict[str, set[str]] = defaultdict(set)
        for rule, raw in rules:
            keys = set(rule.events) if rule.events else {""}
            if rule.sources and all(keys <= taken[source] for source in rule.sources):
                self.error(
                    "nondeterminism",
                    raw.path,
                    f"an earlier unguarded transition of {', '.join(rule.sources)} always "
                    f"takes {'its events' if rule.events else 'the eventless step'}, so this one "
                    "never applies",
                    "add a guard to the earlier transition or move this one before it",
                )
            if rule.guard is None and rule.cond is None and not raw.unknown_keys:
                for source in rule.sources:
                    taken[source] |= keys

    # -- the chart as a whole --------------------------------------------------------------------
    def check_graph(
        self, rules: Sequence[Rule], events: Sequence[str], passed_on: Collection[str]
    ) -> None:
        """Warnings: states no transition reaches, leaves with no way out, unused events (an
        event in ``passed_on``, sent on to another machine, is used even if no transition
        matches it)."""
        tree = self.tree
        reached: set[str] = set()
        frontier = [*self.initial_targets()]
        by_source: dict[str, list[str]] = {}
        for rule in rules:
            for source in rule.sources:
                by_source.setdefault(source, []).extend(rule.targets)
        while frontier:
            name = frontier.pop()
            if name in reached:
                continue
            reached.add(name)
            frontier += tree.ancestors(name)
            frontier += tree.children[name] if tree.is_parallel(name) else []
            frontier += tree.initial_of(name) if tree.is_compound(name) else []
            frontier += tree.history_default(name) if tree.kind(name) is StateKind.HISTORY else []
            frontier += by_source.get(name, [])
        for name in tree.order:
            state = tree.states[name]
            if name not in reached:
                self.warn(
                    "unreachable-state",
                    state.path,
                    f"state {name!r} is never entered from the initial configuration",
                    "add a transition into it or remove it",
                )
            elif (
                tree.is_leaf(name)
                and state.kind is not StateKind.FINAL
                and not any(node in by_source for node in (name, *tree.ancestors(name)))
            ):
                self.warn(
                    "dead-end-state",
                    state.path,
                    f"non-final state {name!r} has no transition out (nor its ancestors)",
                    'add a transition or make it kind = "final"',
                )
        used = {event for rule in rules for event in rule.events} | set(passed_on)
        for name in events:
            if name not in used and name in self.declarations.declared_events:
                self.warn(
                    "unused-event",
                    ("events", name),
                    f"event {name!r} is not matched by any transition",
                    None,
                )

    def warn(self, code: str, path: KeyPath, message: str, hint: str | None) -> None:
        self.reporter.report(code, path, message, hint, key=True, severity=Severity.WARNING)

    def initial_targets(self) -> tuple[str, ...]:
        return self.declarations.initial or tuple(self.tree.order[:1])

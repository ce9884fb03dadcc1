"""Pass 2 of validation: resolve names, expand selectors, check the machine as a whole.

Input is what the shape pass declared; output is the :class:`~model.Machine` (or None when an
error makes one impossible). All findings go to the shared :class:`~reporter.Reporter`. What only
statecharts need lives in :mod:`chart_tree` and :mod:`chart_semantics`; names that must stay
distinct in Python are checked by :mod:`collisions`, and each handler method's role by
:mod:`handlers`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from statewright_compiler.check.chart_semantics import ChartChecker
from statewright_compiler.check.chart_tree import ChartTree
from statewright_compiler.check.collisions import check_collisions, generated_names
from statewright_compiler.check.expressions import compile_expressions
from statewright_compiler.check.flat_semantics import FlatChecks
from statewright_compiler.check.handlers import delay_handlers, handler_names
from statewright_compiler.check.internal_events import mark_internal
from statewright_compiler.check.invokes import child_targets, passed_on
from statewright_compiler.check.step_paths import steps_with_paths
from statewright_compiler.diagnostics import did_you_mean
from statewright_compiler.model import (
    PREVIOUS_TARGET,
    CancelStep,
    Machine,
    RaiseStep,
    Rule,
    SendStep,
    SourceSelector,
    State,
    StateKind,
    Step,
    Transition,
    walk_steps,
)
from statewright_compiler.spec.declarations import Declarations, RawRule, RawState
from statewright_compiler.spec.descriptors import is_descriptor, matches, parse_descriptor
from statewright_compiler.spec.guards import guard_states, guard_text
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import Reporter

__all__ = ["build_machine", "generated_names"]


class _Builder(FlatChecks):
    def __init__(self, declarations: Declarations, reporter: Reporter) -> None:
        self.declarations = declarations
        self.reporter = reporter
        self.states = {state.name: state for state in declarations.states}
        self.is_chart = bool(declarations.chart_features)
        self.tree = ChartTree(self.states, reporter) if self.is_chart else None
        self.chart = ChartChecker(declarations, reporter, self.tree) if self.tree else None
        events = list(declarations.events)
        self.rules = list(declarations.rules)
        if self.chart is not None:
            events += self.chart.implicit_events(raw.event for raw in declarations.rules)
            self.rules, timer_events = self.chart.timer_events(self.rules)
            events += timer_events
        events = mark_internal(events, declarations, self.is_chart, self.all_steps(), reporter)
        self.events = {event.name: event for event in events}
        #: Every timer id a cancel step may name: ``after`` timers and delayed sends.
        self.timer_ids = {s.id for s in self.all_steps() if isinstance(s, SendStep) and s.id}
        self.timer_ids |= {self.events[raw.event].value for raw in self.rules if raw.timer}
        #: Each state's ``after`` timers in spec order (one pass over the rules, not one per state).
        self.timers_by_state: dict[str, list[RawRule]] = {}
        for raw in self.rules:
            if raw.timer is not None and len(raw.source.states) == 1:
                self.timers_by_state.setdefault(raw.source.states[0], []).append(raw)
        order = self.tree.order if self.tree else list(self.states)
        self.state_order = {name: index for index, name in enumerate(order)}
        self.child_targets = child_targets(declarations.states)

    def error(
        self, code: str, path: KeyPath, message: str, hint: str | None = None, *, key: bool = False
    ) -> None:
        self.reporter.report(code, path, message, hint, key=key)

    def all_steps(self) -> list[Step]:
        """Every step, the ones nested in an if or a foreach too."""
        steps: list[Step] = []
        for state in self.declarations.states:
            steps += [*state.entry, *state.exit, *state.initial_steps, *state.default_steps]
            steps += [step for invoke in state.invokes for step in invoke.finalize]
        for rule in self.rules:
            steps += [*rule.steps, *rule.then]
        return list(walk_steps(steps))

    def state_ref(self, name: str, path: KeyPath, what: str, *, key: bool = False) -> bool:
        if name in self.states:
            return True
        self.error(
            "unknown-state",
            path,
            f"{what} {name!r} is not a state",
            did_you_mean(name, self.states),
            key=key,
        )
        return False

    # -- selectors ---------------------------------------------------------------------------
    def expand(self, selector: SourceSelector, path: KeyPath, *, key: bool) -> tuple[str, ...]:
        """Concrete, non-final source states of a selector, in state order (a chart's ``*``:
        its non-final leaves)."""
        for name in selector.excluded:
            self.state_ref(name, (*path[:-1], "except"), "excluded state")
        if selector.any_state or selector.tag is not None:
            tagged = {name for name, state in self.states.items() if selector.tag in state.tags}
            if selector.tag is not None and not tagged:
                known = {tag for state in self.states.values() for tag in state.tags}
                self.error(
                    "unknown-tag",
                    path,
                    f"no state has the tag {selector.tag!r}",
                    did_you_mean(selector.tag, known),
                )
            return tuple(
                name
                for name in sorted(self.states, key=self.state_order.__getitem__)
                if (name in tagged or (selector.any_state and self.is_leaf(name)))
                and name not in selector.excluded
                and not self.is_final(self.states[name])
            )
        sources = []
        for name in selector.states:
            if not self.state_ref(name, path, "source state", key=key):
                continue
            state = self.states[name]
            if self.is_final(state) or state.kind is StateKind.HISTORY:
                what = "a final state" if self.is_final(state) else "a history pseudo-state"
                self.error(
                    "final-state-transition" if self.is_final(state) else "invalid-history",
                    path,
                    f"{name!r} is {what}: it accepts no events",
                    "remove the transition"
                    + (" or make the state non-final" if self.is_final(state) else ""),
                    key=key,
                )
                continue
            sources.append(name)
        return tuple(sorted(sources, key=self.state_order.__getitem__))

    def is_leaf(self, name: str) -> bool:
        return self.tree.is_leaf(name) if self.tree else True

    @staticmethod
    def is_final(state: RawState) -> bool:
        return state.kind is StateKind.FINAL

    # -- rules -------------------------------------------------------------------------------
    def trigger_events(self, raw: RawRule, *, key: bool) -> tuple[str, ...] | None:
        """The declared events a rule's trigger matches; None when it matches none (reported).

        A flat machine's trigger is an event's name. A chart's is an SCXML descriptor matched
        against event values, which also matches an event by its name.
        """
        if not raw.event:
            return ()
        if raw.event not in self.events and raw.event in self.declarations.declared_events:
            return None  # already reported where the event is declared
        found: tuple[str, ...] = (raw.event,) if raw.event in self.events else ()
        if self.is_chart:
            prefixes = parse_descriptor(raw.event)
            found += tuple(
                name
                for name, event in self.events.items()
                if name != raw.event and matches(prefixes, event.value)
            )
        if found:
            return tuple(sorted(found, key=list(self.events).index))
        if self.is_chart and is_descriptor(raw.event):
            shown = ", ".join(repr(prefix) for prefix in parse_descriptor(raw.event))
            message = f"event descriptor {raw.event!r} matches no declared event"
            hint = f"declare an event whose value is, or starts with, {shown} and a dot"
        else:
            message = f"event {raw.event!r} is not declared"
            hint = did_you_mean(raw.event, self.events) or f"declare it in [events.{raw.event}]"
        self.error("unknown-event", raw.event_path, message, hint, key=key)
        return None

    def rule(self, raw: RawRule) -> Rule | None:
        in_state_table = raw.source_path == raw.event_path[: len(raw.source_path)]
        sources = self.expand(raw.source, raw.source_path, key=in_state_table)
        events = self.trigger_events(raw, key=in_state_table)
        ok = events is not None
        if self.chart is not None:
            ok = self.chart.check_targets(raw.targets, raw.target_path, "target") and ok
        elif raw.target_path and raw.targets != (PREVIOUS_TARGET,):
            ok = self.state_ref(raw.targets[0], raw.target_path, "transition target") and ok
        ok = self.steps_ok(raw.steps, (*raw.path, "actions")) and ok
        ok = self.steps_ok(raw.then, (*raw.path, "then")) and ok
        for name in guard_states(raw.guard) if raw.guard else ():
            ok = self.state_ref(name, (*raw.path, "guard"), "in() state") and ok
        if not ok or events is None:
            return None
        position = self.reporter.source.locate(raw.path)
        return Rule(
            source=raw.source,
            sources=sources,
            event=raw.event,
            events=events,
            targets=raw.targets,
            guard=raw.guard,
            guard_text=guard_text(raw.guard) if raw.guard else None,
            steps=raw.steps,
            checkpoint=raw.checkpoint,
            description=raw.description,
            metadata=raw.metadata,
            line=position.line,
            column=position.column,
            then=raw.then,
            internal=raw.internal,
            cond=raw.cond,
        )

    def steps_ok(self, steps: Sequence[Step], path: KeyPath) -> bool:
        """Raised events must be declared; ``path`` is the list's (items are indexed)."""
        ok = True
        for step, where in steps_with_paths(steps, path):
            event = step.event if isinstance(step, RaiseStep | SendStep) else None
            if isinstance(step, SendStep) and step.target in self.child_targets:
                event = None  # the child's event: mypy checks it against the child's enum
            if event and event not in self.events:
                key = "raise" if isinstance(step, RaiseStep) else "send"
                self.error(
                    "unknown-event",
                    (*where, key),
                    f"{'raised' if key == 'raise' else 'sent'} event {event!r} is not declared",
                    did_you_mean(event, self.events) or f"declare it in [events.{event}]",
                )
                ok = False
            if isinstance(step, CancelStep) and step.id and step.id not in self.timer_ids:
                self.error(
                    "invalid-timer",
                    (*where, "cancel"),
                    f"no timer has the id {step.id!r}",
                    did_you_mean(step.id, self.timer_ids)
                    or "cancel the id of a { send = ... } step or an after timer",
                )
                ok = False
        return ok

    def transitions(self, rules: Sequence[tuple[Rule, RawRule]]) -> tuple[Transition, ...]:
        """Every alternative, grouped by (source, event), checking each group is deterministic."""
        groups: dict[tuple[str, str], list[tuple[Transition, RawRule]]] = defaultdict(list)
        for index, (rule, raw) in enumerate(rules):
            for source in rule.sources:
                for event in rule.events or ("",):
                    transition = Transition(
                        source=source,
                        event=event,
                        targets=rule.targets,
                        guard=rule.guard,
                        guard_text=rule.guard_text,
                        steps=rule.steps,
                        checkpoint=rule.checkpoint,
                        rule_index=index,
                        then=rule.then,
                        internal=rule.internal,
                        cond=rule.cond,
                    )
                    groups[(source, event)].append((transition, raw))
        event_order = {"": -1} | {name: index for index, name in enumerate(self.events)}
        ordered: list[Transition] = []
        for (source, event), alternatives in sorted(
            groups.items(), key=lambda item: (self.state_order[item[0][0]], event_order[item[0][1]])
        ):
            if not self.is_chart:
                self.check_deterministic(source, event, alternatives)
            ordered += [transition for transition, _ in alternatives]
        if self.chart is not None:
            self.chart.check_deterministic(rules)
        return tuple(ordered)

    # -- the machine as a whole -------------------------------------------------------------
    def initial_targets(self) -> tuple[str, ...]:
        initial = self.declarations.initial
        path = self.declarations.initial_path
        if self.chart is not None:
            return (
                initial
                if initial and self.chart.check_targets(initial, path, "initial state")
                else ()
            )
        if len(initial) == 1 and self.state_ref(initial[0], path, "initial state"):
            return initial
        return ()

    def build(self) -> Machine | None:
        declarations = self.declarations
        state_sets = [n for n in self.tree.order if not self.tree.is_leaf(n)] if self.tree else []
        check_collisions(declarations, list(self.events.values()), state_sets, self.reporter)
        if self.chart is not None:
            self.chart.check_states()
            self.chart.check_not_flat_only()
        # A missing initial state was reported by the shape pass; an unknown one is reported here.
        initial = self.initial_targets()
        pairs = [(rule, raw) for raw in self.rules if (rule := self.rule(raw)) is not None]
        transitions = self.transitions(pairs)
        handlers = self.error_handlers()
        rules = tuple(rule for rule, _ in pairs)
        for raw in declarations.states:
            for key, steps in (("entry", raw.entry), ("exit", raw.exit)):
                self.steps_ok(steps, (*raw.path, key))
            self.steps_ok(raw.initial_steps, (*raw.path, "initial", "actions"))
            self.steps_ok(raw.default_steps, (*raw.path, "default", "actions"))
            for invoke in raw.invokes:
                self.steps_ok(invoke.finalize, (*invoke.path, "finalize"))
        states = tuple(self.model_state(self.states[name]) for name in self.state_order)
        guards, actions = handler_names(rules, handlers, states, self.reporter)
        delays = delay_handlers(
            states, self.states, self.all_steps(), {*guards, *actions}, self.reporter
        )
        if not initial:
            return None
        if not self.reporter.has_errors:  # a broken reference would only cascade here
            if self.chart is not None:
                passed = passed_on(declarations.states, self.all_steps(), self.events)
                self.chart.check_graph(rules, list(self.events), passed)
            else:
                self.check_graph(initial[0], transitions, handlers)
        tags: dict[str, list[str]] = {}
        for state in states:
            for tag in state.tags:
                tags.setdefault(tag, []).append(state.name)
        source = self.reporter.source
        machine = Machine(
            name=declarations.name,
            module_name=declarations.module_name,
            description=declarations.description,
            version=declarations.version,
            initial=initial[0],
            states=states,
            events=tuple(self.events.values()),
            rules=rules,
            transitions=transitions,
            error_handlers=handlers,
            tags=tuple((tag, tuple(names)) for tag, names in tags.items()),
            guards=guards,
            actions=actions,
            imports=declarations.imports,
            source_path=source.path,
            source_sha256=source.sha256,
            metadata=declarations.metadata,
            chart=self.is_chart,
            initial_targets=initial,
            on_error=declarations.on_error,
            delays=delays,
            data=tuple(field for field, _ in declarations.data),
            binding=declarations.binding,
        )
        if self.reporter.has_errors or not self.is_chart:
            return machine  # a flat machine has no expressions; broken references cascade
        rule_paths = [raw.path for _, raw in pairs]
        return compile_expressions(machine, declarations, rule_paths, self.reporter)

    def model_state(self, raw: RawState) -> State:
        tree = self.tree
        compound = tree is not None and tree.is_compound(raw.name)
        return State(
            name=raw.name,
            value=raw.value,
            label=raw.label,
            member=raw.name.upper(),
            description=raw.description,
            kind=raw.kind,
            tags=raw.tags,
            entry=raw.entry,
            exit=raw.exit,
            metadata=raw.metadata,
            line=self.reporter.line(raw.path),
            parent=tree.parent[raw.name] if tree else None,
            children=tuple(tree.children[raw.name]) if tree else (),
            initial=tree.initial_of(raw.name) if compound and tree else (),
            initial_steps=raw.initial_steps,
            history=raw.history,
            default=tree.history_default(raw.name) if tree and raw.history else (),
            default_steps=raw.default_steps,
            timers=tuple(
                SendStep(
                    rule.event,
                    self.events[rule.event].value,
                    rule.timer.delay,
                    rule.timer.delay_handler,
                    rule.timer.on_restore,
                )
                for rule in self.timers_by_state.get(raw.name, ())
                if rule.timer is not None  # for mypy: the index holds timer rules only
            ),
            donedata_params=raw.donedata_params,
            donedata=raw.donedata,
            invokes=raw.invokes,
        )


def build_machine(declarations: Declarations, reporter: Reporter) -> Machine | None:
    """Resolve and check ``declarations``; None when an error prevents building the machine."""
    return _Builder(declarations, reporter).build()

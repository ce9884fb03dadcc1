"""Pass 2 of validation: resolve names, expand selectors, check the machine as a whole.

Input is what the shape pass declared; output is the :class:`~model.Machine` (or None when an
error makes one impossible). All findings go to the shared :class:`~reporter.Reporter`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from statewright_compiler.declarations import Declarations, RawRule, RawState
from statewright_compiler.diagnostics import Severity, did_you_mean
from statewright_compiler.guards import guard_names, guard_text
from statewright_compiler.model import (
    PREVIOUS_TARGET,
    ErrorHandler,
    Machine,
    Rule,
    SourceSelector,
    State,
    StateKind,
    Transition,
    imported_names_used,
)
from statewright_compiler.naming import MODULE_NAMES, constant_case, tag_constant
from statewright_compiler.positions import KeyPath
from statewright_compiler.reporter import Reporter

__all__ = ["build_machine", "generated_names"]


def generated_names(prefix: str, tags: Iterable[str] = ()) -> frozenset[str]:
    """Top-level names a generated module defines, which imports and payloads must not reuse."""
    suffixes = ("State", "Event", "Handlers", "Machine", "AsyncHandlers", "AsyncMachine")
    classes = {f"{prefix}{suffix}" for suffix in suffixes}
    return MODULE_NAMES | classes | {tag_constant(tag) for tag in tags}


class _Builder:
    def __init__(self, declarations: Declarations, reporter: Reporter) -> None:
        self.declarations = declarations
        self.reporter = reporter
        self.states = {state.name: state for state in declarations.states}
        self.events = {event.name: event for event in declarations.events}
        self.state_order = {name: index for index, name in enumerate(self.states)}

    def error(
        self, code: str, path: KeyPath, message: str, hint: str | None = None, *, key: bool = False
    ) -> None:
        self.reporter.report(code, path, message, hint, key=key)

    # -- names -------------------------------------------------------------------------------
    def check_collisions(self) -> None:
        """Distinct spec names must stay distinct as Python names and as values."""
        declarations = self.declarations
        self.unique(
            ((state.name.upper(), ("states", state.name)) for state in declarations.states),
            "state",
            "enum member",
        )
        self.unique(((state.value, state.path) for state in declarations.states), "state", "value")
        self.unique(
            ((event.member, ("events", event.name)) for event in declarations.events),
            "event",
            "enum member",
        )
        self.unique(
            ((event.value, ("events", event.name)) for event in declarations.events),
            "event",
            "value",
        )
        tags = {tag: state.path for state in declarations.states for tag in state.tags}
        self.unique(((constant_case(tag), path) for tag, path in tags.items()), "tag", "constant")
        reserved = generated_names(declarations.name, tags)
        payload_names = [
            (event.payload_type, ("events", event.name)) for event in declarations.events
        ]
        imported = [(item.name, ("imports", item.module)) for item in declarations.imports]
        self.unique(
            [*((name, path) for name, path in payload_names), *imported], "name", "Python name"
        )
        used = imported_names_used(declarations.events)
        for item in declarations.imports:
            if item.name not in used and item.name not in reserved:
                self.reporter.report(
                    "unused-import",
                    ("imports", item.module),
                    f"{item.module}.{item.name} is imported but no payload type uses it",
                    "remove it from [imports]",
                    key=True,
                    severity=Severity.WARNING,
                )
        imported_names = {item.name for item in declarations.imports}
        for event in declarations.events:
            for field in event.payload:
                if field.name in imported_names:
                    self.error(
                        "name-collision",
                        ("events", event.name, "payload", field.name),
                        f"payload field {field.name!r} has the name of an imported type",
                        "rename the field",
                        key=True,
                    )
        for name, path in [*payload_names, *imported]:
            if name in reserved:
                builtin = name in {"Any", "Literal"} and path[0] == "imports"
                self.error(
                    "name-collision",
                    path,
                    f"{name!r} is a name the generated module defines",
                    f"payload types may use {name!r} without importing it"
                    if builtin
                    else "rename it",
                    key=True,
                )

    def unique(self, items: Iterable[tuple[str, KeyPath]], what: str, form: str) -> None:
        seen: dict[str, KeyPath] = {}
        for derived, path in items:
            if derived in seen:
                first = seen[derived]
                self.error(
                    "name-collision",
                    path,
                    f"{what} {path[-1]!r} has the same {form} {derived!r} "
                    f"as {first[-1]!r} (line {self.reporter.line(first)})",
                    "rename one of them",
                    key=True,
                )
            else:
                seen[derived] = path

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
        """Concrete, non-final source states of a selector, in state order."""
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
                for name, state in self.states.items()
                if (selector.any_state or name in tagged)
                and name not in selector.excluded
                and not self.is_final(state)
            )
        sources = []
        for name in selector.states:
            if not self.state_ref(name, path, "source state", key=key):
                continue
            if self.is_final(self.states[name]):
                self.error(
                    "final-state-transition",
                    path,
                    f"{name!r} is a final state: it accepts no events",
                    "remove the transition or make the state non-final",
                    key=key,
                )
                continue
            sources.append(name)
        return tuple(sorted(sources, key=self.state_order.__getitem__))

    @staticmethod
    def is_final(state: RawState) -> bool:
        return state.kind is StateKind.FINAL

    # -- rules -------------------------------------------------------------------------------
    def rule(self, raw: RawRule) -> Rule | None:
        in_state_table = raw.source_path == raw.event_path[:2]
        sources = self.expand(raw.source, raw.source_path, key=in_state_table)
        ok = True
        if raw.event not in self.events and raw.event in self.declarations.declared_events:
            ok = False  # already reported where the event is declared
        elif raw.event not in self.events:
            self.error(
                "unknown-event",
                raw.event_path,
                f"event {raw.event!r} is not declared",
                did_you_mean(raw.event, self.events) or f"declare it in [events.{raw.event}]",
                key=in_state_table,
            )
            ok = False
        if raw.target != PREVIOUS_TARGET:
            ok = self.state_ref(raw.target, raw.target_path, "transition target") and ok
        if not ok:
            return None
        position = self.reporter.source.locate(raw.path)
        return Rule(
            source=raw.source,
            sources=sources,
            event=raw.event,
            target=raw.target,
            guard=raw.guard,
            guard_text=guard_text(raw.guard) if raw.guard else None,
            actions=raw.actions,
            checkpoint=raw.checkpoint,
            description=raw.description,
            metadata=raw.metadata,
            line=position.line,
            column=position.column,
        )

    def transitions(self, rules: Sequence[tuple[Rule, RawRule]]) -> tuple[Transition, ...]:
        """Every alternative, grouped by (source, event), checking each group is deterministic."""
        groups: dict[tuple[str, str], list[tuple[Transition, RawRule]]] = defaultdict(list)
        for index, (rule, raw) in enumerate(rules):
            for source in rule.sources:
                transition = Transition(
                    source=source,
                    event=rule.event,
                    target=rule.target,
                    guard=rule.guard,
                    guard_text=rule.guard_text,
                    actions=rule.actions,
                    checkpoint=rule.checkpoint,
                    rule_index=index,
                )
                groups[(source, rule.event)].append((transition, raw))
        event_order = {name: index for index, name in enumerate(self.events)}
        ordered: list[Transition] = []
        for (source, event), alternatives in sorted(
            groups.items(), key=lambda item: (self.state_order[item[0][0]], event_order[item[0][1]])
        ):
            self.check_deterministic(source, event, alternatives)
            ordered += [transition for transition, _ in alternatives]
        return tuple(ordered)

    def check_deterministic(
        self, source: str, event: str, alternatives: list[tuple[Transition, RawRule]]
    ) -> None:
        for position, (transition, raw) in enumerate(alternatives[:-1]):
            if transition.guard is None:
                later_raw = alternatives[position + 1][1]
                self.error(
                    "nondeterminism",
                    later_raw.path,
                    f"{source!r} --{event}--> has an unguarded "
                    f"alternative at line {self.reporter.line(raw.path)} that is always taken, so "
                    "this alternative can never apply",
                    "add a guard to the earlier alternative, move the unguarded one last, or "
                    "exclude the state from a wildcard with 'except'",
                )
                return

    def error_handlers(self) -> tuple[ErrorHandler, ...]:
        handlers: list[ErrorHandler] = []
        covered: dict[str, KeyPath] = {}
        for raw in self.declarations.error_handlers:
            sources = self.expand(raw.source, (*raw.path, "from"), key=False)
            if not self.state_ref(raw.target, (*raw.path, "to"), "error handler target"):
                continue
            for source in sources:
                if source in covered:
                    self.error(
                        "nondeterminism",
                        raw.path,
                        f"state {source!r} already has an error "
                        f"handler (line {self.reporter.line(covered[source])})",
                        "exclude it with 'except'",
                        key=True,
                    )
                covered.setdefault(source, raw.path)
            handlers.append(
                ErrorHandler(
                    source=raw.source,
                    sources=sources,
                    target=raw.target,
                    actions=raw.actions,
                    description=raw.description,
                    line=self.reporter.line(raw.path),
                )
            )
        return tuple(handlers)

    # -- the machine as a whole -------------------------------------------------------------
    def handler_names(
        self, rules: Sequence[Rule], handlers: Sequence[ErrorHandler]
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        guards = {name for rule in rules if rule.guard for name in guard_names(rule.guard)}
        actions = {name for rule in rules for name in rule.actions}
        actions |= {
            name
            for state in self.states.values()
            for name in (*state.entry_actions, *state.exit_actions)
        }
        actions |= {name for handler in handlers for name in handler.actions}
        for name in sorted(guards & actions):
            rule = next(
                rule
                for rule in rules
                if name in rule.actions
                or (rule.guard is not None and name in guard_names(rule.guard))
            )
            self.reporter.report_at(
                "handler-conflict",
                rule.line,
                rule.column,
                f"{name!r} is used both as a guard and as an action",
                "a handler method is either a guard (returns bool) or an action; rename one",
            )
        return tuple(sorted(guards)), tuple(sorted(actions))

    def check_graph(
        self, initial: str, transitions: Sequence[Transition], handlers: Sequence[ErrorHandler]
    ) -> None:
        edges: dict[str, set[str]] = defaultdict(set)
        for transition in transitions:
            if not transition.returns_to_previous:
                edges[transition.source].add(transition.target)
        for handler in handlers:
            for source in handler.sources:
                edges[source].add(handler.target)
        reached, frontier = {initial}, [initial]
        while frontier:
            for target in edges[frontier.pop()] - reached:
                reached.add(target)
                frontier.append(target)
        has_way_out = {transition.source for transition in transitions}
        for name, state in self.states.items():
            if name not in reached:
                self.error(
                    "unreachable-state",
                    state.path,
                    f"state {name!r} cannot be reached from the initial state {initial!r}",
                    "add a transition into it or remove it",
                    key=True,
                )
            elif not self.is_final(state) and name not in has_way_out:
                self.reporter.report(
                    "dead-end-state",
                    state.path,
                    f"non-final state {name!r} has no transition out",
                    'add a transition or make it kind = "final"',
                    key=True,
                    severity=Severity.WARNING,
                )
        used = {transition.event for transition in transitions}
        for name in self.events:
            if name not in used:
                self.reporter.report(
                    "unused-event",
                    ("events", name),
                    f"event {name!r} is not used by any transition",
                    key=True,
                    severity=Severity.WARNING,
                )

    def build(self) -> Machine | None:
        declarations = self.declarations
        self.check_collisions()
        initial = declarations.initial
        # A missing initial state was reported by the shape pass; an unknown one is reported here.
        if initial is not None and not self.state_ref(
            initial, ("machine", "initial"), "initial state"
        ):
            initial = None
        pairs = [(rule, raw) for raw in declarations.rules if (rule := self.rule(raw)) is not None]
        transitions = self.transitions(pairs)
        handlers = self.error_handlers()
        rules = tuple(rule for rule, _ in pairs)
        guards, actions = self.handler_names(rules, handlers)
        if initial is None:
            return None
        if not self.reporter.has_errors:  # a broken reference would only cascade here
            self.check_graph(initial, transitions, handlers)
        states = tuple(self.model_state(state) for state in declarations.states)
        tags: dict[str, list[str]] = {}
        for state in states:
            for tag in state.tags:
                tags.setdefault(tag, []).append(state.name)
        source = self.reporter.source
        return Machine(
            name=declarations.name,
            module_name=declarations.module_name,
            description=declarations.description,
            version=declarations.version,
            initial=initial,
            states=states,
            events=declarations.events,
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
        )

    def model_state(self, raw: RawState) -> State:
        return State(
            name=raw.name,
            value=raw.value,
            label=raw.label,
            member=raw.name.upper(),
            description=raw.description,
            kind=raw.kind,
            tags=raw.tags,
            entry_actions=raw.entry_actions,
            exit_actions=raw.exit_actions,
            metadata=raw.metadata,
            line=self.reporter.line(raw.path),
        )


def build_machine(declarations: Declarations, reporter: Reporter) -> Machine | None:
    """Resolve and check ``declarations``; None when an error prevents building the machine."""
    return _Builder(declarations, reporter).build()

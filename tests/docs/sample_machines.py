"""Hand-built :class:`Machine` models for the docs and diagram tests (no compiler involved).

``door()`` is the small example of ``docs/spec-language.md``. ``nasty()`` carries every name and
label that breaks naive Mermaid, DOT or Markdown output: diagram keywords as state names, labels
with quotes, colons, semicolons, braces, angle brackets, hashes, backslashes, pipes, newlines and
Chinese text, plus wildcard and tag rules, ``<previous>`` targets, guards and error handlers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import string
from collections.abc import Sequence
from dataclasses import dataclass, field

from statewright_compiler.model import (
    PREVIOUS_TARGET,
    And,
    ErrorHandler,
    Event,
    GuardCall,
    GuardExpression,
    InState,
    Machine,
    MetadataValue,
    Not,
    Or,
    PayloadField,
    Rule,
    SourceSelector,
    State,
    StateKind,
    Transition,
)

__all__ = ["ALL_MACHINES", "door", "nasty", "selector"]

Metadata = tuple[tuple[str, MetadataValue], ...]


def state(
    name: str,
    *,
    kind: StateKind = StateKind.NORMAL,
    label: str | None = None,
    value: str | None = None,
    description: str = "",
    tags: Sequence[str] = (),
    entry: Sequence[str] = (),
    exit: Sequence[str] = (),
    metadata: Metadata = (),
) -> State:
    value = value if value is not None else name
    return State(
        name=name,
        value=value,
        label=label if label is not None else value,
        member=name.upper(),
        description=description,
        kind=kind,
        tags=tuple(tags),
        entry=tuple(entry),
        exit=tuple(exit),
        metadata=metadata,
        line=0,
    )


def event(
    name: str,
    *,
    label: str | None = None,
    description: str = "",
    payload: Sequence[tuple[str, str]] = (),
    metadata: Metadata = (),
) -> Event:
    return Event(
        name=name,
        value=name,
        label=label if label is not None else name,
        member=name.upper(),
        method=name.lower(),
        payload_type=f"{name.title().replace('_', '')}Payload",
        description=description,
        payload=tuple(
            PayloadField(field_name, annotation, "None" in annotation.split(" | "))
            for field_name, annotation in payload
        ),
        metadata=metadata,
        line=0,
    )


def selector(text: str | Sequence[str], *, excluded: Sequence[str] = ()) -> SourceSelector:
    """A ``from`` value as a spec writes it: ``"*"``, ``"tag:x"``, a name, or a list of names."""
    if text == "*":
        return SourceSelector(any_state=True, excluded=tuple(excluded))
    if isinstance(text, str) and text.startswith("tag:"):
        return SourceSelector(tag=text.removeprefix("tag:"), excluded=tuple(excluded))
    return SourceSelector(states=(text,) if isinstance(text, str) else tuple(text))


def _guard_text(guard: GuardExpression, parent: int = 0) -> str:
    if isinstance(guard, GuardCall):
        return guard.name
    if isinstance(guard, Not):
        return "not " + _guard_text(guard.operand, 3)
    assert not isinstance(guard, InState), "flat sample machines have no in() guards"
    level, word = (2, " and ") if isinstance(guard, And) else (1, " or ")
    text = word.join(_guard_text(operand, level) for operand in guard.operands)
    return f"({text})" if level < parent else text


def _guard_names(guard: GuardExpression | None) -> set[str]:
    if guard is None:
        return set()
    if isinstance(guard, GuardCall):
        return {guard.name}
    if isinstance(guard, Not):
        return _guard_names(guard.operand)
    assert not isinstance(guard, InState), "flat sample machines have no in() guards"
    return set().union(*(_guard_names(operand) for operand in guard.operands))


@dataclass
class _Builder:
    """Builds a :class:`Machine` the way the compiler would: expands selectors, orders
    transitions by source state, then event, then spec order."""

    name: str
    initial: str
    states: Sequence[State]
    events: Sequence[Event]
    description: str = ""
    metadata: Metadata = ()
    rules: list[Rule] = field(default_factory=list)
    handlers: list[ErrorHandler] = field(default_factory=list)

    def _sources(self, source: SourceSelector) -> tuple[str, ...]:
        if not source.is_wildcard:
            return source.states
        return tuple(
            candidate.name
            for candidate in self.states
            if not candidate.is_final
            and candidate.name not in source.excluded
            and (source.any_state or source.tag in candidate.tags)
        )

    def rule(
        self,
        source: str | Sequence[str],
        event_name: str,
        target: str,
        *,
        excluded: Sequence[str] = (),
        guard: GuardExpression | None = None,
        actions: Sequence[str] = (),
        checkpoint: bool = False,
        description: str = "",
        metadata: Metadata = (),
    ) -> None:
        chosen = selector(source, excluded=excluded)
        self.rules.append(
            Rule(
                source=chosen,
                sources=self._sources(chosen),
                event=event_name,
                events=(event_name,),
                targets=(target,),
                guard=guard,
                guard_text=None if guard is None else _guard_text(guard),
                steps=tuple(actions),
                checkpoint=checkpoint,
                description=description,
                metadata=metadata,
                line=10 + len(self.rules),
                column=1,
            )
        )

    def handler(
        self,
        source: str | Sequence[str],
        target: str,
        *,
        excluded: Sequence[str] = (),
        actions: Sequence[str] = (),
        description: str = "",
    ) -> None:
        chosen = selector(source, excluded=excluded)
        self.handlers.append(
            ErrorHandler(chosen, self._sources(chosen), target, tuple(actions), description, 100)
        )

    def build(self) -> Machine:
        state_order = {candidate.name: index for index, candidate in enumerate(self.states)}
        event_order = {candidate.name: index for index, candidate in enumerate(self.events)}
        alternatives = [
            (state_order[source], event_order[rule.event], rule_index, source, rule)
            for rule_index, rule in enumerate(self.rules)
            for source in rule.sources
        ]
        transitions = tuple(
            Transition(
                source,
                rule.event,
                rule.targets,
                rule.guard,
                rule.guard_text,
                rule.steps,
                rule.checkpoint,
                rule_index,
            )
            for _, _, rule_index, source, rule in sorted(alternatives, key=lambda a: a[:3])
        )
        tags: dict[str, list[str]] = {}
        for candidate in self.states:
            for tag in candidate.tags:
                tags.setdefault(tag, []).append(candidate.name)
        actions = {
            action
            for candidate in self.states
            for action in (*candidate.entry_actions, *candidate.exit_actions)
        }
        actions.update(action for rule in self.rules for action in rule.actions)
        actions.update(action for handler in self.handlers for action in handler.actions)
        guards = set().union(*(_guard_names(rule.guard) for rule in self.rules))
        source_text = f"{self.name}\n{self.rules!r}\n{self.handlers!r}"
        return Machine(
            name=self.name,
            module_name=self.name.lower(),
            description=self.description,
            version=1,
            initial=self.initial,
            states=tuple(self.states),
            events=tuple(self.events),
            rules=tuple(self.rules),
            transitions=transitions,
            error_handlers=tuple(self.handlers),
            tags=tuple((tag, tuple(members)) for tag, members in tags.items()),
            guards=tuple(sorted(guards)),
            actions=tuple(sorted(actions)),
            imports=(),
            source_path=f"tests/docs/{self.name.lower()}.toml",
            source_sha256=hashlib.sha256(source_text.encode()).hexdigest(),
            metadata=self.metadata,
        )


def door() -> Machine:
    """The example of ``docs/spec-language.md``."""
    builder = _Builder(
        name="Door",
        initial="closed",
        description="A door with a lock.",
        states=[
            state("closed", description="Shut, not locked.", tags=["shut"]),
            state("open"),
            state(
                "locked",
                kind=StateKind.WAIT,
                tags=["shut"],
                entry=["arm_alarm"],
                exit=["disarm_alarm"],
            ),
            state("broken", kind=StateKind.FINAL),
        ],
        events=[
            event("OPEN"),
            event("CLOSE"),
            event("LOCK", payload=[("code", "str")]),
            event(
                "UNLOCK",
                payload=[("code", "str"), ("attempt", "int | None")],
                metadata=(("fired_by", "keypad"),),
            ),
            event("SMASH"),
        ],
    )
    builder.rule("closed", "OPEN", "open")
    builder.rule("closed", "LOCK", "locked", actions=["remember_code"])
    builder.rule("open", "CLOSE", "closed")
    builder.rule(
        "locked",
        "UNLOCK",
        "closed",
        guard=And((GuardCall("code_matches"), Not(GuardCall("alarm_tripped")))),
    )
    builder.rule("locked", "UNLOCK", "broken", guard=GuardCall("alarm_tripped"))
    builder.rule("*", "SMASH", "broken", excluded=["open"], checkpoint=True)
    return builder.build()


#: Labels no renderer may pass through unescaped.
NASTY_LABEL = 'a: "quoted" <tag> #hash; {brace} \\back\\slash | pipe & amp %% `tick` [*] --> x'


def nasty() -> Machine:
    """Every hard name and label at once."""
    builder = _Builder(
        name="Nasty",
        initial="end",
        description=(
            "Line one of the description.\nLine two | with a pipe <b>not bold</b>.\n"
            "# not a heading\n```\n- not a list\n"
        ),
        metadata=(("owner", "team | ops"), ("tier", 2), ("public", False)),
        states=[
            state("end", description="Called end, the Mermaid keyword."),
            state(
                "state",
                label="step-running",
                value="step-running",
                tags=["active"],
                metadata=(("responsible party", "Planning | Client"), ("api", "/planning")),
            ),
            state("note", label="v1.2.3 (dotted)", tags=["active"], entry=["on_note"]),
            state("class", label="3rd attempt", tags=["active"], exit=["leave_class"]),
            state(
                "default", label="审批中\uff1a等待人工确认", kind=StateKind.WAIT, tags=["active"]
            ),
            state("subgraph", label=NASTY_LABEL, description="desc with | pipe\nand newline"),
            state("node", label="two\nlines\\n not a break \\N \\G \\l", tags=["active"]),
            state("edge", label="{record|shape} <port> \\\\ ;;", metadata=(("api", 7),)),
            state("graph", label="; %% comment? ; --> end", kind=StateKind.ERROR),
            state("strict", label="done 完成", kind=StateKind.FINAL),
            state("suspended", label='suspended: "paused"', kind=StateKind.WAIT),
        ],
        events=[
            event("GO", label='go: now; "quoted" <fast>', description="Fires | often"),
            event(
                "NOTE",
                payload=[
                    ("code", "str"),
                    ("attempt", "int | None"),
                    ("kind", "Literal['a|b', 'c']"),
                ],
                metadata=(("fired by", "Client | Planning"),),
            ),
            event(
                "CLASS",
                metadata=(("fired by", "Planning"), ("api call", "/planning")),
            ),
            event("END"),
            event("SUSPEND"),
            event("RESUME"),
            event("FAIL"),
            event("CANCEL"),
            event("RESET"),
        ],
    )
    builder.rule(
        "end",
        "GO",
        "state",
        guard=Or((And((GuardCall("ready"), Not(GuardCall("blocked")))), GuardCall("force"))),
        actions=["start_run", "log_it"],
        description="Start | go\nsecond line",
        metadata=(("responsible party", "Planning"), ("api call", "/planning | POST")),
    )
    builder.rule("end", "GO", "graph", description="fallback <when> not ready")
    builder.rule("state", "NOTE", "note", checkpoint=True)
    builder.rule("note", "CLASS", "class", actions=["a1"])
    builder.rule("class", "END", "default")
    builder.rule("default", "GO", "subgraph", guard=GuardCall("approved"))
    builder.rule("default", "GO", "default", guard=Not(GuardCall("approved")))
    builder.rule("subgraph", "NOTE", "node")
    builder.rule(["node", "subgraph"], "CLASS", "edge")
    builder.rule("edge", "END", "strict", checkpoint=True)
    builder.rule("graph", "RESET", "end", actions=["clear"])
    builder.rule("*", "SUSPEND", "suspended", excluded=["suspended", "graph"])
    builder.rule("suspended", "RESUME", PREVIOUS_TARGET, actions=["restore"])
    builder.rule("suspended", "CANCEL", "strict")
    builder.rule("tag:active", "FAIL", "graph", actions=["record_failure"])
    builder.rule(
        "tag:active", "CANCEL", "strict", excluded=["default"], guard=GuardCall("cancellable")
    )
    builder.rule("*", "RESET", "end", excluded=["graph"], description="reset | all")
    builder.handler("*", "graph", excluded=["graph"], actions=["log_error"], description="any")
    builder.handler("edge", "suspended", description="edge | case")
    return builder.build()


def empty_ish() -> Machine:
    """One state, one event, no rules: tables and diagrams must still be well formed."""
    return _Builder(
        name="Lonely",
        initial="only",
        states=[state("only", kind=StateKind.NORMAL)],
        events=[event("PING")],
    ).build()


def random_labels_machine() -> Machine:
    """A machine whose 60 state labels are seeded random strings over a hostile alphabet."""
    alphabet = string.printable.replace("\x0b", "").replace("\x0c", "") + "中文審批\uff1a、…é€😀—"
    generator = random.Random(20260101)
    base = nasty()
    labels = ["".join(generator.choices(alphabet, k=generator.randint(1, 30))) for _ in range(60)]
    extra = tuple(
        state(f"r{index}", label=label.strip() or "blank") for index, label in enumerate(labels)
    )
    return dataclasses.replace(
        base,
        name="RandomLabels",
        states=(*base.states, *extra),
        events=(*base.events, event("EXTRA")),
    )


ALL_MACHINES = {
    "door": door,
    "nasty": nasty,
    "lonely": empty_ish,
    "random": random_labels_machine,
}

"""The reference interpreter's own reading of a chart spec (TOML text to a tree of states).

Written from docs/spec-language.md ("Statecharts"), not from the compiler: states and their
parents, document order (a parent before its children, siblings in file order), the kinds SCXML
knows, default transitions, executable content, transitions in document order per state
(a state's ``on``/``always`` entries in file order, then ``[[transitions]]`` rules), SCXML event
descriptors and guard expressions with ``in(state)``; and the tree questions SCXML's pseudo-code
asks (getProperAncestors, isDescendant, findLCCA). It assumes a valid spec: the compiler is what
checks them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from statewright_compiler.spec.toml_compat import tomllib  # tomllib, or tomli on Python 3.10

__all__ = [
    "Event",
    "Guard",
    "Spec",
    "State",
    "Step",
    "Transition",
    "document_order",
    "evaluate_guard",
    "find_lcca",
    "is_descendant",
    "name_match",
    "parse_guard",
    "parse_spec",
    "proper_ancestors",
]

#: A parsed guard: ``("name", g)``, ``("in", state)``, ``("not", x)``, ``("and"|"or", x, y)``.
Guard = tuple[Any, ...]


@dataclass(frozen=True)
class Event:
    name: str
    value: str
    #: Declared ``internal = true``: only the chart itself sends it.
    declared_internal: bool = False

    @property
    def internal(self) -> bool:
        """Only the chart sends it: declared so, or one of SCXML's ``done.state.*`` and
        ``error.*`` events."""
        value = self.value
        return (
            self.declared_internal
            or value == "error"
            or value.startswith(("error.", "done.state."))
        )


@dataclass(frozen=True)
class Step:
    """Executable content: ``kind`` is ``"action"`` (a handler's name), ``"raise"`` (an event's
    name) or ``"log"`` (the text)."""

    kind: str
    text: str


@dataclass(eq=False)
class State:
    name: str
    kind: str = "atomic"  # atomic, compound, parallel, final or history
    parent: State | None = None
    order: int = 0
    children: list[State] = field(default_factory=list)
    tags: tuple[str, ...] = ()
    entry: tuple[Step, ...] = ()
    exit: tuple[Step, ...] = ()
    initial: list[State] = field(default_factory=list)
    initial_actions: tuple[Step, ...] = ()
    history: str = "shallow"
    default: list[State] = field(default_factory=list)
    default_actions: tuple[Step, ...] = ()
    transitions: list[Transition] = field(default_factory=list)

    @property
    def is_atomic(self) -> bool:
        return self.kind in ("atomic", "final")

    @property
    def child_states(self) -> list[State]:
        return [child for child in self.children if child.kind != "history"]

    @property
    def history_states(self) -> list[State]:
        return [child for child in self.children if child.kind == "history"]

    def __repr__(self) -> str:
        return self.name


@dataclass(eq=False)
class Transition:
    source: State | None  # None: the initial transition of <scxml>
    trigger: str | None  # the ``on`` key or ``event``; None: eventless
    guard: Guard | None = None
    targets: list[State] = field(default_factory=list)
    internal: bool = False
    actions: tuple[Step, ...] = ()
    then: tuple[Step, ...] = ()
    guard_text: str = ""


@dataclass
class Spec:
    states: dict[str, State]
    events: dict[str, Event]
    initial: list[State]
    on_error: str

    def done_event(self, state: State) -> Event:
        return Event(f"done_state_{state.name}", f"done.state.{state.name}")

    @property
    def error_event(self) -> Event:
        return Event("error_execution", "error.execution")

    #: Every trigger the document writes, even one whose selector leaves it no source state.
    triggers: list[str] = field(default_factory=list)

    def chart_events(self) -> list[Event]:
        """The events the chart may declare itself: ``done.state.<id>`` of each compound state
        with a final child and of each parallel state, ``error.execution`` with
        ``on_error = "event"``."""
        found = [
            self.done_event(state)
            for state in self.states.values()
            if state.kind == "parallel"
            or (state.kind == "compound" and any(c.kind == "final" for c in state.children))
        ]
        return found + ([self.error_event] if self.on_error == "event" else [])

    def is_declared(self, event: Event) -> bool:
        """Whether an event the chart raises itself exists: declared, or matched by a trigger
        (``done.state.<id>`` and ``error.execution`` are declared only then)."""
        return event.name in self.events or any(
            name_match(trigger, event, self) for trigger in self.triggers
        )


def parse_spec(text: str) -> Spec:
    document = tomllib.loads(text)
    bodies: dict[str, dict[str, Any]] = document["states"]
    states = {name: State(name) for name in bodies}
    for name, body in bodies.items():
        if "parent" in body:
            states[name].parent = states[body["parent"]]
            states[body["parent"]].children.append(states[name])
    _number(states)
    for name, body in bodies.items():
        state = states[name]
        state.tags = tuple(body.get("tags", ()))
        state.entry = _steps(body.get("entry", []))
        state.exit = _steps(body.get("exit", []))
        if body.get("kind") in ("history", "final", "parallel"):
            state.kind = body["kind"]
    for state in states.values():
        if state.kind == "atomic" and state.child_states:
            state.kind = "compound"
    for name, body in bodies.items():
        state = states[name]
        if state.kind == "compound":
            targets, actions = _default_transition(body.get("initial"), states)
            state.initial = targets or state.child_states[:1]
            state.initial_actions = actions
    for name, body in bodies.items():  # after every initial: a default may be its parent's
        state = states[name]
        if state.kind == "history":
            state.history = body.get("history", "shallow")
            targets, actions = _default_transition(body.get("default"), states)
            state.default = targets or _default_entry(state.parent)
            state.default_actions = actions
    machine = document["machine"]
    events = {
        name: Event(name, body.get("value", name), body.get("internal", False))
        for name, body in document["events"].items()
    }
    spec = Spec(
        states, events, _names(machine["initial"], states), machine.get("on_error", "raise")
    )
    for name, body in bodies.items():
        for key, value in body.items():
            if key == "on":
                for trigger, alternatives in value.items():
                    spec.triggers.append(trigger)
                    _add(states[name], trigger, alternatives, states)
            elif key == "always":
                _add(states[name], None, value, states)
    for rule in document.get("transitions", []):
        trigger = None if rule.get("always") else rule["event"]
        spec.triggers += [trigger] if trigger is not None else []
        for source in _sources(rule, states):
            _add(source, trigger, rule, states)
    return spec


def _number(states: Mapping[str, State]) -> None:
    """Document order: a preorder walk, top-level states and siblings in file order."""
    order = 0

    def visit(state: State) -> None:
        nonlocal order
        state.order = order
        order += 1
        for child in state.children:
            visit(child)

    for state in states.values():
        if state.parent is None:
            visit(state)


def _steps(items: list[Any]) -> tuple[Step, ...]:
    steps = []
    for item in items:
        if isinstance(item, str):
            steps.append(Step("action", item))
        elif "raise" in item:
            steps.append(Step("raise", item["raise"]))
        else:
            steps.append(Step("log", item["log"]))
    return tuple(steps)


def _names(value: str | list[str], states: Mapping[str, State]) -> list[State]:
    return [states[value]] if isinstance(value, str) else [states[name] for name in value]


def _default_transition(
    value: Any, states: Mapping[str, State]
) -> tuple[list[State], tuple[Step, ...]]:
    if value is None:
        return [], ()
    if isinstance(value, dict):
        return _names(value["to"], states), _steps(value.get("actions", []))
    return _names(value, states), ()


def _default_entry(parent: State | None) -> list[State]:
    """A history state's default without one: its parent's default entry."""
    assert parent is not None
    return list(parent.child_states) if parent.kind == "parallel" else list(parent.initial)


def _sources(rule: Mapping[str, Any], states: Mapping[str, State]) -> list[State]:
    selector = rule["from"]
    excluded = set(rule.get("except", ()))
    if isinstance(selector, list):
        return [states[name] for name in selector]
    if selector == "*":
        chosen = [s for s in states.values() if s.kind == "atomic"]
    elif selector.startswith("tag:"):
        tag = selector.removeprefix("tag:")
        chosen = [s for s in states.values() if tag in s.tags and s.kind != "final"]
    else:
        chosen = [states[selector]]
    return [state for state in chosen if state.name not in excluded]


def _add(source: State, trigger: str | None, value: Any, states: Mapping[str, State]) -> None:
    alternatives = value if isinstance(value, list) else [value]
    for alternative in alternatives:
        if isinstance(alternative, str):
            alternative = {"to": alternative}
        guard_text = alternative.get("guard", "")
        source.transitions.append(
            Transition(
                source=source,
                trigger=trigger,
                guard=parse_guard(guard_text) if guard_text else None,
                targets=_names(alternative["to"], states),
                internal=alternative.get("type") == "internal",
                actions=_steps(alternative.get("actions", [])),
                then=_steps(alternative.get("then", [])),
                guard_text=guard_text,
            )
        )


# -- the tree: SCXML's document order and ancestry ---------------------------------------------
def document_order(state: State) -> int:
    return state.order


def is_descendant(state: State | None, ancestor: State | None) -> bool:
    """Whether ``state`` is a proper descendant of ``ancestor`` (None is <scxml>)."""
    if state is None:
        return False
    if ancestor is None:
        return True
    parent = state.parent
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False


def proper_ancestors(state: State, ancestor: State | None) -> list[State]:
    """getProperAncestors: from the parent up to (not including) ``ancestor``; all of them when
    ``ancestor`` is None (<scxml> itself is not a State here). Empty when ``ancestor`` is the
    state, or below it."""
    if ancestor is state or is_descendant(ancestor, state):
        return []
    found: list[State] = []
    parent = state.parent
    while parent is not None and parent is not ancestor:
        found.append(parent)
        parent = parent.parent
    return found


def find_lcca(states: list[State]) -> State | None:
    """The least common compound ancestor of ``states``: ancestors of the first that are
    compound (or <scxml>, None) and hold every other one."""
    head, tail = states[0], states[1:]
    for anc in proper_ancestors(head, None):
        if anc.kind == "compound" and all(is_descendant(s, anc) for s in tail):
            return anc
    return None


# -- events ------------------------------------------------------------------------------------
def name_match(trigger: str, event: Event, spec: Spec) -> bool:
    """SCXML 3.12.1 over event values (``"*"``, prefixes, several separated by spaces), and a
    declared event's name meaning that event."""
    if trigger in spec.events and event.name == trigger:
        return True
    for token in trigger.split():
        prefix = token if token == "*" else token.removesuffix("*").removesuffix(".")
        if prefix == "*" or event.value == prefix or event.value.startswith(prefix + "."):
            return True
    return False


# -- guards ------------------------------------------------------------------------------------
def parse_guard(text: str) -> Guard:
    """``or`` of ``and`` of ``not``-prefixed atoms: names, ``in(state)``, parentheses."""
    tokens: list[str] = re.findall(r"[()]|[A-Za-z_][A-Za-z0-9_]*", text)
    position = 0

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def disjunction() -> Guard:
        left = conjunction()
        while peek() == "or":
            take()
            left = ("or", left, conjunction())
        return left

    def conjunction() -> Guard:
        left = negation()
        while peek() == "and":
            take()
            left = ("and", left, negation())
        return left

    def negation() -> Guard:
        if peek() == "not":
            take()
            return ("not", negation())
        token = take()
        if token == "(":
            inner = disjunction()
            take()  # ")"
            return inner
        if token == "in" and peek() == "(":
            take()
            state = take()
            take()  # ")"
            return ("in", state)
        return ("name", token)

    return disjunction()


def evaluate_guard(guard: Guard, call: Callable[[str], bool], is_in: Callable[[str], bool]) -> bool:
    """Left to right, stopping as soon as the answer is known (as Python's operators do)."""
    kind = guard[0]
    if kind == "name":
        return bool(call(guard[1]))
    if kind == "in":
        return is_in(guard[1])
    if kind == "not":
        return not evaluate_guard(guard[1], call, is_in)
    if kind == "and":
        return evaluate_guard(guard[1], call, is_in) and evaluate_guard(guard[2], call, is_in)
    return evaluate_guard(guard[1], call, is_in) or evaluate_guard(guard[2], call, is_in)

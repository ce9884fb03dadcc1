"""Drawn charts written as spec TOML: the tree of :class:`Node` and the :class:`Rule` list the
strategies build, minus the rules the compiler would call dead.

A state's rules share one key per trigger (``on."<trigger>"`` or ``always``, an array of
alternatives, in the order the triggers were first drawn); ``[[transitions]]`` rules come after
every state. That is also the document order of transitions, which the reference interpreter
reads back from the text.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Node", "Rule", "render_spec"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(eq=False)
class Node:
    name: str
    kind: str  # atomic, compound, parallel, final or history
    parent: Node | None
    children: list[Node] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    entry: list[Any] = field(default_factory=list)
    exit: list[Any] = field(default_factory=list)
    initial: list[str] = field(default_factory=list)
    initial_actions: list[Any] = field(default_factory=list)
    history: str = "shallow"
    default: list[str] = field(default_factory=list)
    default_actions: list[Any] = field(default_factory=list)


@dataclass
class Rule:
    """One alternative: in a state's table (``selector`` is ``[state]``) or a ``[[transitions]]``
    rule (``selector``: ``"*"``, ``"tag:<t>"`` or a list). ``trigger`` None: eventless."""

    selector: str | list[str]
    trigger: str | None
    alternative: dict[str, Any]
    excluded: list[str] = field(default_factory=list)
    in_state: bool = True


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # ASCII names and descriptors: a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    items = ", ".join(f"{toml_key(key)} = {toml_value(item)}" for key, item in value.items())
    return "{ " + items + " }"


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key)


def _targets(names: list[str]) -> str | list[str]:
    return names[0] if len(names) == 1 else names


def _in_file_order(order: list[Node], rules: list[Rule]) -> list[Rule]:
    """Rules in the order the file will list them: by state, by trigger, then the global ones."""
    ordered: list[Rule] = []
    for node in order:
        groups: dict[str | None, list[Rule]] = {}
        for rule in rules:
            if rule.in_state and rule.selector == [node.name]:
                groups.setdefault(rule.trigger, []).append(rule)
        ordered += [rule for group in groups.values() for rule in group]
    return ordered + [rule for rule in rules if not rule.in_state]


def _events(events: list[str], order: list[Node], on_error: str) -> dict[str, str]:
    """Every event a trigger may name, by name: the declared ones, ``done.state.<id>`` and
    ``error.execution`` (which the compiler declares when a trigger matches them)."""
    values = {name: name.replace("_", ".") if name.startswith("job_") else name for name in events}
    for node in order:
        finals = any(child.kind == "final" for child in node.children)
        if node.kind == "parallel" or (node.kind == "compound" and finals):
            values[f"done_state_{node.name}"] = f"done.state.{node.name}"
    if on_error == "event":
        values["error_execution"] = "error.execution"
    return values


def _matches(trigger: str, name: str, value: str, declared: list[str]) -> bool:
    if trigger == name and name in declared:
        return True
    prefixes = [t if t == "*" else t.removesuffix("*").removesuffix(".") for t in trigger.split()]
    return any(p == "*" or value == p or value.startswith(p + ".") for p in prefixes)


def _sources(rule: Rule, order: list[Node]) -> list[str]:
    if isinstance(rule.selector, list):
        return rule.selector
    if rule.selector == "*":
        chosen = [node.name for node in order if node.kind == "atomic"]
    else:
        tag = rule.selector.removeprefix("tag:")
        chosen = [n.name for n in order if tag in n.tags and n.kind not in ("final", "history")]
    return [name for name in chosen if name not in rule.excluded]


def _live(rules: list[Rule], order: list[Node], events: list[str], on_error: str) -> list[Rule]:
    """Without the rules an earlier unguarded rule of each of their sources makes dead (the
    compiler's ``nondeterminism``), until none is left."""
    values = _events(events, order, on_error)
    while True:
        triggers = [rule.trigger for rule in rules if rule.trigger is not None]
        declared = [
            name
            for name, value in values.items()
            if name in events or any(_matches(t, name, value, events) for t in triggers)
        ]
        taken: dict[str, set[str]] = defaultdict(set)
        live: list[Rule] = []
        for rule in rules:
            if rule.trigger is None:
                keys = {""}
            else:
                keys = {n for n in declared if _matches(rule.trigger, n, values[n], events)}
            sources = _sources(rule, order)
            if sources and all(keys <= taken[source] for source in sources):
                continue
            live.append(rule)
            if "guard" not in rule.alternative:
                for source in sources:
                    taken[source] |= keys
        if len(live) == len(rules):
            return live
        rules = live


def render_spec(
    order: list[Node], rules: list[Rule], events: list[str], initial: list[str], on_error: str
) -> str:
    """The spec's TOML, states in ``order`` (the file's order, not necessarily the document's)."""
    rules = _live(_in_file_order(order, rules), order, events, on_error)
    lines = ["[machine]", 'name = "Random"', f"initial = {toml_value(_targets(initial))}"]
    lines += [f"on_error = {toml_value(on_error)}", ""]
    for name in events:
        lines.append(f"[events.{name}]")
        if name.startswith("job_"):
            lines.append(f"value = {toml_value(name.replace('_', '.'))}")
    for node in order:
        lines += ["", f"[states.{node.name}]", *_state_lines(node)]
        groups: dict[str | None, list[dict[str, Any]]] = {}
        for rule in rules:
            if rule.in_state and rule.selector == [node.name]:
                groups.setdefault(rule.trigger, []).append(rule.alternative)
        for trigger, alternatives in groups.items():
            key = "always" if trigger is None else f"on.{toml_key(trigger)}"
            lines.append(f"{key} = {toml_value(alternatives)}")
    for rule in rules:
        if rule.in_state:
            continue
        lines += ["", "[[transitions]]", f"from = {toml_value(rule.selector)}"]
        if rule.excluded:
            lines.append(f"except = {toml_value(rule.excluded)}")
        if rule.trigger is None:
            lines.append("always = true")
        else:
            lines.append(f"event = {toml_value(rule.trigger)}")
        lines += [f"{key} = {toml_value(value)}" for key, value in rule.alternative.items()]
    return "\n".join(lines) + "\n"


def _state_lines(node: Node) -> list[str]:
    lines = []
    if node.parent is not None:
        lines.append(f"parent = {toml_value(node.parent.name)}")
    if node.kind in ("parallel", "final", "history"):
        lines.append(f"kind = {toml_value(node.kind)}")
    if node.kind == "history":
        lines.append(f"history = {toml_value(node.history)}")
    if node.tags:
        lines.append(f"tags = {toml_value(node.tags)}")
    for key, targets, actions in (
        ("initial", node.initial, node.initial_actions),
        ("default", node.default, node.default_actions),
    ):
        if targets and actions:
            lines.append(f"{key} = {toml_value({'to': _targets(targets), 'actions': actions})}")
        elif targets:
            lines.append(f"{key} = {toml_value(_targets(targets))}")
    if node.entry:
        lines.append(f"entry = {toml_value(node.entry)}")
    if node.exit:
        lines.append(f"exit = {toml_value(node.exit)}")
    return lines

"""A statechart's :class:`~model.Diagram`: states nested in their parents, one initial
pseudo-state per compound state, history states, and one edge per rule, source and target.

A flat machine's diagram draws one edge per concrete (source, event) transition. A chart's rule
can match many events at once (an SCXML descriptor such as ``"error.*"``), so its edges follow the
rules instead: one per source and target, labelled with the trigger as the spec wrote it, which is
both shorter and what the reader looks for in the spec. The edges are:

* initial edges: ``[*]`` to the machine's initial states, and each compound state's own ``[*]``
  to its initial children (labelled with the initial transition's steps, if any);
* each history state's default, to where it goes while it remembers nothing;
* each rule: ``always`` when eventless, ``after 5m`` for a timer's, one edge per target
  (several for parallel regions), a loop on the source when targetless, marked ``(internal)``
  / ``(targetless)``.

A state that invokes child machines says so under its label: ``invokes Research``.
"""

from __future__ import annotations

from collections.abc import Sequence

from statewright_compiler.diagrams.model import (
    DEFAULT_EVENT,
    INITIAL_KEY,
    STATE_STYLES,
    Diagram,
    DiagramEdge,
    DiagramNode,
    EdgeStyle,
    NodeFactory,
    NodeStyle,
    error_handler_edges,
    transition_style,
)
from statewright_compiler.model import Machine, Rule, State, StateKind, Step
from statewright_compiler.model.step_text import delay_text, step_text, timer_of

__all__ = ["build_chart_diagram", "rule_label"]


def _steps_suffix(steps: Sequence[Step], prefix: str = "/ ") -> str:
    return prefix + ", ".join(step_text(step) for step in steps) if steps else ""


def _joined(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def rule_label(machine: Machine, rule: Rule) -> str:
    """``TRIGGER [guard] / steps / then steps (internal)``: the trigger is ``always`` for an
    eventless rule, ``after 5m`` for a timer's, an event's label, or the descriptor as written
    when it matches several."""
    timer = timer_of(machine, rule)
    if rule.eventless:
        trigger = "always"
    elif timer is not None:
        trigger = f"after {delay_text(timer)}"
    elif rule.events == (rule.event,):
        trigger = machine.event(rule.event).label or rule.event
    else:
        trigger = rule.event
    return _joined(
        trigger,
        f"[{rule.condition_text}]" if rule.condition_text else "",
        _steps_suffix(rule.steps),
        _steps_suffix(rule.then, "/ then "),
        "(internal)" if rule.internal else "",
        "(targetless)" if not rule.targets else "",
    )


def _history_label(machine: Machine, state: State) -> str:
    """``H`` or ``H*``; followed by the state's label when its parent has several."""
    symbol = "H*" if state.history == "deep" else "H"
    siblings = [
        other
        for other in machine.states
        if other.kind is StateKind.HISTORY and other.parent == state.parent
    ]
    return f"{symbol} {state.label or state.name}" if len(siblings) > 1 else symbol


def _style(state: State) -> NodeStyle:
    if state.is_compound:
        return NodeStyle.COMPOUND
    return STATE_STYLES[state.kind]


def build_chart_diagram(machine: Machine, *, expand_wildcards: bool = False) -> Diagram:
    """Nodes (parents before children, in document order) and edges of a chart's diagram."""
    root_initial = DiagramNode(INITIAL_KEY, "start", "", NodeStyle.INITIAL)
    nodes = [root_initial]
    states: dict[str, DiagramNode] = {}
    initials: dict[str, DiagramNode] = {}
    for index, state in enumerate(machine.states):
        label = (
            _history_label(machine, state)
            if state.kind is StateKind.HISTORY
            else state.label or state.name
        )
        if state.invokes:  # the child machines it runs, under its name
            children = ", ".join(invoke.machine.name for invoke in state.invokes)
            label += f"\ninvokes {children}"
        parent = states[state.parent] if state.parent is not None else None
        node = DiagramNode(state.name, f"s{index}", label, _style(state), parent)
        states[state.name] = node
        nodes.append(node)
        if node.style is NodeStyle.COMPOUND and state.initial:
            key = INITIAL_KEY + state.name
            initials[state.name] = DiagramNode(key, f"i{index}", "", NodeStyle.INITIAL, node)
            nodes.append(initials[state.name])
    initial_label = _steps_suffix(machine.initial_steps)
    edges = [
        DiagramEdge(root_initial, states[target], "", initial_label, EdgeStyle.INITIAL)
        for target in machine.initial_targets or (machine.initial,)
    ]
    for state in machine.states:
        if state.name in initials:
            label = _steps_suffix(state.initial_steps)
            edges += [
                DiagramEdge(initials[state.name], states[target], "", label, EdgeStyle.INITIAL)
                for target in state.initial
            ]
        if state.kind is StateKind.HISTORY:
            label = _joined("default", _steps_suffix(state.default_steps))
            edges += [
                DiagramEdge(
                    states[state.name],
                    states[target],
                    DEFAULT_EVENT,
                    label,
                    EdgeStyle.HISTORY_DEFAULT,
                )
                for target in state.default
            ]
    factory = NodeFactory(states)
    for rule in machine.rules:
        if rule.source.is_wildcard and not expand_wildcards:
            sources = [factory.wildcard(rule.source)]
        else:
            sources = [states[name] for name in rule.sources]
        label = rule_label(machine, rule)
        for source in sources:
            targets = [states[target] for target in rule.targets] or [source]
            edges += [
                DiagramEdge(
                    source,
                    target,
                    rule.event,
                    label,
                    transition_style(rule.checkpoint),
                    internal=rule.internal,
                    targetless=not rule.targets,
                )
                for target in targets
            ]
    edges += error_handler_edges(machine, factory, expand_wildcards=expand_wildcards)
    return Diagram(machine.name, (*nodes, *factory.pseudo_nodes), tuple(edges), chart=True)

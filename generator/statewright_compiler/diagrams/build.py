"""Step from the model to the :class:`~model.Diagram`: a flat machine's graph here, a
statechart's in :mod:`build_chart`; both renderers start from :func:`build_diagram`."""

from __future__ import annotations

from statewright_compiler.diagrams.build_chart import build_chart_diagram
from statewright_compiler.diagrams.model import (
    INITIAL_KEY,
    STATE_STYLES,
    Diagram,
    DiagramEdge,
    DiagramGraph,
    DiagramNode,
    EdgeStyle,
    NodeFactory,
    NodeStyle,
    edge_label,
    error_handler_edges,
    transition_style,
)
from statewright_compiler.model import Machine

__all__ = ["build_diagram", "diagram_graph"]


def build_diagram(machine: Machine, *, expand_wildcards: bool = False) -> Diagram:
    """Nodes and edges of ``machine``'s diagram, in a stable order (states in spec order)."""
    if machine.chart:
        return build_chart_diagram(machine, expand_wildcards=expand_wildcards)
    initial = DiagramNode(INITIAL_KEY, "start", "", NodeStyle.INITIAL)
    states = {
        state.name: DiagramNode(
            state.name, f"s{index}", state.label or state.name, STATE_STYLES[state.kind]
        )
        for index, state in enumerate(machine.states)
    }
    factory = NodeFactory(states)
    edges = [DiagramEdge(initial, states[machine.initial], "", "", EdgeStyle.INITIAL)]
    for transition in machine.transitions:
        if not expand_wildcards and machine.rules[transition.rule_index].source.is_wildcard:
            continue
        event_label = machine.event(transition.event).label or transition.event
        edges.append(
            DiagramEdge(
                states[transition.source],
                factory.target(transition.target),
                transition.event,
                edge_label(event_label, transition.guard_text, transition.actions),
                transition_style(transition.checkpoint),
            )
        )
    if not expand_wildcards:
        for rule in machine.rules:
            if rule.source.is_wildcard:
                event_label = machine.event(rule.event).label or rule.event
                edges.append(
                    DiagramEdge(
                        factory.wildcard(rule.source),
                        factory.target(rule.target),
                        rule.event,
                        edge_label(event_label, rule.guard_text, rule.actions),
                        transition_style(rule.checkpoint),
                    )
                )
    edges += error_handler_edges(machine, factory, expand_wildcards=expand_wildcards)
    nodes = (initial, *states.values(), *factory.pseudo_nodes)
    return Diagram(machine.name, nodes, tuple(edges))


def diagram_graph(machine: Machine, *, expand_wildcards: bool = False) -> DiagramGraph:
    """The diagram's node keys, ``(source, event, target, label)`` edges and nesting, as sets."""
    diagram = build_diagram(machine, expand_wildcards=expand_wildcards)
    return DiagramGraph(
        frozenset(node.key for node in diagram.nodes),
        frozenset(
            (edge.source.key, edge.event, edge.target.key, edge.label) for edge in diagram.edges
        ),
        frozenset((node.key, node.parent.key) for node in diagram.nodes if node.parent),
    )

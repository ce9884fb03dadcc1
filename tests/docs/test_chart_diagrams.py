"""Statechart diagrams: the graph equals the model, nesting included; Mermaid lays out every
state in the right box (a region of a parallel state in its own), and Graphviz draws every
cluster, node and edge, clipped at the right borders, without a warning."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from statewright_compiler.diagrams import (
    DEFAULT_EVENT,
    INITIAL_KEY,
    Diagram,
    DiagramEdge,
    DiagramNode,
    NodeStyle,
    build_diagram,
    diagram_graph,
    render_dot,
    render_mermaid,
    selector_key,
)
from statewright_compiler.diagrams.graphviz import anchor_id
from statewright_compiler.model import Machine, StateKind

from tests.docs.chart_machines import CHART_MACHINES, NASTY_TEXTS
from tests.docs.tools import MermaidResult, run_dot

MODES = {"collapsed": False, "expanded": True}
CASES = [(name, mode) for name in CHART_MACHINES for mode in MODES]

Edges = Counter[tuple[str, str, str]]


def expected_graph(machine: Machine, expand: bool) -> tuple[set[str], set[tuple[str, str]], Edges]:
    """Nodes, ``(node, parent)`` pairs and edges a chart's diagram must show, from the model."""
    nodes = {INITIAL_KEY, *(state.name for state in machine.states)}
    parents = {(state.name, state.parent) for state in machine.states if state.parent}
    edges: Edges = Counter((INITIAL_KEY, "", target) for target in machine.initial_targets)
    for state in machine.states:
        if state.children and state.kind is not StateKind.PARALLEL and state.initial:
            key = INITIAL_KEY + state.name
            nodes.add(key)
            parents.add((key, state.name))
            edges.update((key, "", target) for target in state.initial)
        if state.kind is StateKind.HISTORY:
            edges.update((state.name, DEFAULT_EVENT, target) for target in state.default)
    for rule in machine.rules:
        sources = rule.sources
        if rule.source.is_wildcard and not expand:
            sources = (selector_key(rule.source),)
            nodes.add(sources[0])
        for source in sources:
            edges.update((source, rule.event, target) for target in rule.targets or (source,))
    return nodes, parents, edges


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_graph_equals_the_model(name: str, mode: str) -> None:
    machine = CHART_MACHINES[name]()
    assert machine.chart
    nodes, parents, edges = expected_graph(machine, MODES[mode])
    graph = diagram_graph(machine, expand_wildcards=MODES[mode])
    diagram = build_diagram(machine, expand_wildcards=MODES[mode])
    assert graph.nodes == nodes
    assert graph.parents == parents
    assert Counter((e.source.key, e.event, e.target.key) for e in diagram.edges) == edges
    ids = [node.node_id for node in diagram.nodes]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"start|[siw]\d+", node_id) for node_id in ids)
    # Parents come before their children, so each renderer can nest in one pass.
    seen: set[str] = set()
    for node in diagram.nodes:
        assert node.parent is None or node.parent.node_id in seen
        seen.add(node.node_id)


@pytest.mark.parametrize("name", list(CHART_MACHINES))
def test_every_concrete_transition_is_drawn(name: str) -> None:
    """Against the compiler's transition table too: each (source, event) alternative is an edge
    from its source to each target (to itself when targetless), with the rule's trigger."""
    machine = CHART_MACHINES[name]()
    drawn = {
        (edge.source.key, edge.event, edge.target.key)
        for edge in build_diagram(machine, expand_wildcards=True).edges
    }
    for transition in machine.transitions:
        rule = machine.rules[transition.rule_index]
        assert transition.event in rule.events or (not rule.events and not transition.event)
        for target in transition.targets or (transition.source,):
            assert (transition.source, rule.event, target) in drawn


@pytest.mark.parametrize("name", list(CHART_MACHINES))
def test_labels_say_trigger_guard_steps_and_kind(name: str) -> None:
    machine = CHART_MACHINES[name]()
    edges = [
        e for e in build_diagram(machine).edges if e.style.value in ("transition", "checkpoint")
    ]
    rules = [rule for rule in machine.rules for _ in range(_edge_count(rule))]
    assert len(edges) == len(rules)
    for edge, rule in zip(edges, rules, strict=True):
        timers = [t for s in rule.sources for t in machine.state(s).timers if t.event == rule.event]
        if rule.eventless:
            trigger = "always"
        elif timers:
            delay = timers[0].delay
            trigger = f"after {timers[0].delay_handler}()" if delay is None else "after "
        elif rule.events == (rule.event,):
            trigger = machine.event(rule.event).label
        else:
            trigger = rule.event  # a descriptor, as the spec wrote it
        assert edge.event == rule.event
        assert edge.label.startswith(trigger)
        if rule.guard_text:
            assert f"[{rule.guard_text}]" in edge.label
        assert edge.label.endswith("(targetless)") == (not rule.targets) == edge.targetless
        assert ("(internal)" in edge.label) == rule.internal == edge.internal
        if rule.then:
            assert " / then " in edge.label


def _edge_count(rule: Any) -> int:
    sources = 1 if rule.source.is_wildcard else len(rule.sources)
    return sources * max(len(rule.targets), 1)


def test_history_labels_and_steps() -> None:
    task = build_diagram(CHART_MACHINES["chart_task"]())
    labels = {node.key: node.label for node in task.nodes}
    assert labels["resume_point"] == "H* resume_point"  # two history states in one parent
    assert labels["last_child"] == "H last_child"
    assert labels["active"] == "Active <working>"
    edges = {(e.source.key, e.target.key): e.label for e in task.edges}
    assert edges[("[*]active", "perceiving")] == "/ warm_up"
    assert edges[("resume_point", "perceiving")] == "default / restore_defaults"
    assert edges[("active", "active")] == "NOTE / write_note (targetless)"
    assert edges[("active", "perceiving")] == "RETRY / raise PERCEIVED (internal)"
    assert edges[("thinking", "finished")] == "always [enough and not in(reviewing)]"
    assert edges[("drafting", "reviewing")] == "PERCEIVED / then summarise"
    assert edges[("active", "done")] == "done.state.active"
    agent = {
        (e.source.key, e.target.key): e.label
        for e in build_diagram(CHART_MACHINES["chart_parallel"]()).edges
    }
    assert agent[("idle", "working")] == 'START / log agent: "starting"'
    assert agent[("working", "failed")] == "error.* / record_error"
    assert agent[("paused", "paused")] == '* / log "ignored while paused" (targetless)'


# --- Mermaid -------------------------------------------------------------------------------------


def _mermaid_label(label: str) -> str:
    return "<br>".join(label.splitlines()).strip()


def _mermaid_id(node: DiagramNode) -> str:
    if node.style is not NodeStyle.INITIAL:
        return node.node_id
    return f"{node.parent.node_id}_start" if node.parent else "root_start"


_CLASSES = {
    NodeStyle.FINAL: ["finalState"],
    NodeStyle.ERROR: ["errorState"],
    NodeStyle.WAIT: ["waitState"],
    NodeStyle.WILDCARD: ["anyState"],
    NodeStyle.HISTORY: ["historyState"],
}


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_mermaid_lays_out_every_state_in_its_box(
    name: str, mode: str, mermaid_results: dict[str, MermaidResult]
) -> None:
    result = mermaid_results[f"chart-{name}-{mode}.mmd"]
    assert result.ok, result.error
    diagram = build_diagram(CHART_MACHINES[name](), expand_wildcards=MODES[mode])
    layout = {node["id"]: node for node in result.layout_nodes}
    dividers = {key for key, node in layout.items() if node["shape"] == "divider"}
    assert set(layout) - dividers == {_mermaid_id(node) for node in diagram.nodes}
    for node in diagram.nodes:
        shown = layout[_mermaid_id(node)]
        box = shown["parentId"]
        if node.parent is not None and node.parent.style is NodeStyle.PARALLEL:
            assert box in dividers, node  # a region (or the parallel state's history) segment
            box = layout[box]["parentId"]
        assert box == (node.parent.node_id if node.parent else None), node
        assert shown["isGroup"] == node.is_container
        if node.style is not NodeStyle.INITIAL:
            assert shown["label"] == _mermaid_label(node.label)
            assert shown["classes"] == _CLASSES.get(node.style, [])
    for parallel in (node for node in diagram.nodes if node.style is NodeStyle.PARALLEL):
        children = diagram.children(parallel)
        regions = [child for child in children if child.style is not NodeStyle.HISTORY]
        segments = {layout[_mermaid_id(child)]["parentId"] for child in regions}
        assert len(segments) == len(regions)  # one divider per region
    assert Counter(result.layout_edges) == Counter(
        (_mermaid_id(e.source), _mermaid_id(e.target), _mermaid_label(e.label))
        for e in diagram.edges
    )


def test_mermaid_lines_follow_a_strict_grammar() -> None:
    """Whatever the labels, every line is one of the few statement shapes the renderer emits,
    and blocks open and close in pairs."""
    label = r'"([^"\n#;:{}]|#\d+;)+"'
    statement = re.compile(
        r"stateDiagram-v2"
        r"|    %% [A-Za-z][A-Za-z0-9]*: generated by statewright from its spec; do not edit\."
        r"|    classDef [a-zA-Z]+ [a-z-]+:[^;\n]+"
        r"|    class [sw]\d+(,[sw]\d+)* [a-zA-Z]+"
        r"|(?P<indent>(    )+)("
        rf"state {label} as [sw]\d+"
        r"|state s\d+ \{|\}|--"
        r"|(\[\*\]|[sw]\d+) --> [sw]\d+( : ([^\n#;:{}]|#\d+;)+)?"
        r")"
    )
    for build in CHART_MACHINES.values():
        for expand in MODES.values():
            depth = 1
            for line in render_mermaid(build(), expand_wildcards=expand).splitlines():
                match = statement.fullmatch(line)
                assert match, line
                if match.group("indent") is None:
                    continue
                depth -= line.strip() == "}"
                assert len(match.group("indent")) == 4 * depth, line
                depth += line.endswith("{")
            assert depth == 1


# --- Graphviz ------------------------------------------------------------------------------------

_SVG = "{http://www.w3.org/2000/svg}"


def _svg_groups(svg: str, kind: str) -> Iterator[tuple[str, str]]:
    """``(title, label)`` of each node, edge or cluster group, label lines joined by newlines."""
    root = ElementTree.fromstring(svg)
    for group in root.iter(f"{_SVG}g"):
        if group.get("class") == kind:
            title = group.findtext(f"{_SVG}title") or ""
            yield title, "\n".join(text.text or "" for text in group.iter(f"{_SVG}text"))


def _lines(label: str) -> str:
    return "\n".join(label.splitlines())


def _dot_end(node: DiagramNode) -> str:
    return anchor_id(node) if node.is_container else node.node_id


def _inside(node: DiagramNode, box: DiagramNode) -> bool:
    while node is not box:
        if node.parent is None:
            return False
        node = node.parent
    return True


def _clusters_of(diagram: Diagram) -> dict[str, str]:
    """Each drawn node's innermost cluster, as Graphviz must place it."""
    expected: dict[str, str] = {}
    for node in diagram.nodes:
        if node.is_container:
            expected[anchor_id(node)] = f"cluster_{node.node_id}"
        region = node.parent is not None and node.parent.style is NodeStyle.PARALLEL
        if not node.is_container and region and node.style is not NodeStyle.HISTORY:
            expected[node.node_id] = f"cluster_{node.node_id}"  # a one-state region
        elif not node.is_container:
            expected[node.node_id] = f"cluster_{node.parent.node_id}" if node.parent else ""
    return expected


def _expected_edge(edge: DiagramEdge) -> tuple[str, str, str, str]:
    source, target = edge.source, edge.target
    ltail = source.is_container and not _inside(target, source)
    lhead = target.is_container and not _inside(source, target)
    return (
        _dot_end(source),
        _dot_end(target),
        f"cluster_{source.node_id}" if ltail else "",
        f"cluster_{target.node_id}" if lhead else "",
    )


@pytest.mark.slow
@pytest.mark.parametrize(("name", "mode"), CASES)
def test_dot_draws_clusters_nodes_and_clipped_edges(name: str, mode: str) -> None:
    machine = CHART_MACHINES[name]()
    diagram = build_diagram(machine, expand_wildcards=MODES[mode])
    source = render_dot(machine, expand_wildcards=MODES[mode])
    layout: dict[str, Any] = json.loads(run_dot(source, "json"))
    objects = layout["objects"]
    clusters = [item for item in objects if item["name"].startswith("cluster_")]
    placed: dict[str, str] = {}
    for item in objects:
        if "nodes" in item:
            continue
        holding = [c for c in clusters if item["_gvid"] in c.get("nodes", [])]
        innermost = min(holding, key=lambda c: len(c["nodes"]), default=None)
        placed[item["name"]] = innermost["name"] if innermost else ""
    assert placed == _clusters_of(diagram)
    names = {item["_gvid"]: item["name"] for item in objects}
    assert Counter(
        (names[e["tail"]], names[e["head"]], e.get("ltail", ""), e.get("lhead", ""))
        for e in layout.get("edges", [])
    ) == Counter(_expected_edge(edge) for edge in diagram.edges)
    # What a reader sees: every label exactly, clusters titled by their states.
    svg = run_dot(source)
    shown_nodes = dict(_svg_groups(svg, "node"))
    for node in diagram.nodes:
        if not node.is_container:
            assert shown_nodes[node.node_id] == _lines(node.label)
    shown_clusters = dict(_svg_groups(svg, "cluster"))
    for node in diagram.nodes:
        if node.is_container:
            assert shown_clusters[f"cluster_{node.node_id}"] == _lines(node.label)
    assert Counter(label for _, label in _svg_groups(svg, "edge")) == Counter(
        _lines(edge.label) for edge in diagram.edges
    )


def test_nasty_labels_read_back_exactly() -> None:
    machine = CHART_MACHINES["nasty_chart"]()
    svg = run_dot(render_dot(machine))
    texts = "\n".join(
        label for kind in ("node", "cluster", "edge") for _, label in _svg_groups(svg, kind)
    )
    for key in ("outer", "inner", "leaf", "event"):
        for line in NASTY_TEXTS[key].splitlines():
            assert line in texts, (key, line)

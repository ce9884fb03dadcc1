"""Mermaid and DOT diagrams: the real tools accept them and show exactly the spec's graph."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statewright_compiler.diagrams import (
    ERROR_EVENT,
    INITIAL_KEY,
    Diagram,
    DiagramNode,
    NodeStyle,
    build_diagram,
    diagram_graph,
    dot_text,
    mermaid_text,
    render_dot,
    render_mermaid,
)
from statewright_compiler.model import PREVIOUS_TARGET, Machine, SourceSelector, StateKind

from tests.docs.sample_machines import ALL_MACHINES, nasty
from tests.docs.tools import MermaidResult, run_dot
from tests.fuzz import main_only_examples

MODES = {"collapsed": False, "expanded": True}


MACHINES: dict[str, Callable[[], Machine]] = ALL_MACHINES
CASES = [(name, mode) for name in MACHINES for mode in MODES]


def _key(selector: SourceSelector) -> str:
    text = "*" if selector.any_state else f"tag:{selector.tag}"
    return text + (" except " + ", ".join(selector.excluded) if selector.excluded else "")


def expected_graph(
    machine: Machine, expand: bool
) -> tuple[set[str], Counter[tuple[str, str, str]]]:
    """The graph a diagram must show, computed from the model independently of the renderer."""
    edges: Counter[tuple[str, str, str]] = Counter({(INITIAL_KEY, "", machine.initial): 1})
    nodes = {INITIAL_KEY, *(s.name for s in machine.states)}
    for transition in machine.transitions:
        if expand or not machine.rules[transition.rule_index].source.is_wildcard:
            edges[(transition.source, transition.event, transition.target)] += 1
    if not expand:
        for rule in machine.rules:
            if rule.source.is_wildcard:
                edges[(_key(rule.source), rule.event, rule.target)] += 1
                nodes.add(_key(rule.source))
    for handler in machine.error_handlers:
        if handler.source.is_wildcard and not expand:
            edges[(_key(handler.source), ERROR_EVENT, handler.target)] += 1
            nodes.add(_key(handler.source))
        else:
            for source in handler.sources:
                edges[(source, ERROR_EVENT, handler.target)] += 1
    if any(target == PREVIOUS_TARGET for _, _, target in edges):
        nodes.add(PREVIOUS_TARGET)
    return nodes, edges


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_graph_equals_the_model(name: str, mode: str) -> None:
    machine = MACHINES[name]()
    nodes, edges = expected_graph(machine, MODES[mode])
    graph = diagram_graph(machine, expand_wildcards=MODES[mode])
    diagram = build_diagram(machine, expand_wildcards=MODES[mode])
    assert graph.nodes == nodes
    assert {(source, event, target) for source, event, target, _ in graph.edges} == set(edges)
    assert Counter((e.source.key, e.event, e.target.key) for e in diagram.edges) == edges
    ids = [node.node_id for node in diagram.nodes]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"start|[swh]\d+", node_id) for node_id in ids)


def test_wildcard_rules_are_drawn_once() -> None:
    machine = nasty()
    collapsed = build_diagram(machine)
    expanded = build_diagram(machine, expand_wildcards=True)
    suspend_collapsed = [edge for edge in collapsed.edges if edge.event == "SUSPEND"]
    suspend_expanded = [edge for edge in expanded.edges if edge.event == "SUSPEND"]
    assert len(suspend_collapsed) == 1
    assert suspend_collapsed[0].source.style is NodeStyle.WILDCARD
    assert suspend_collapsed[0].source.label == "any non-final state except suspended, graph"
    assert len(suspend_expanded) == len(machine.rules[11].sources) == 8
    assert not any(node.style is NodeStyle.WILDCARD for node in expanded.nodes)


# --- Graphviz ------------------------------------------------------------------------------------

_SVG = "{http://www.w3.org/2000/svg}"


def _svg_groups(svg: str, kind: str) -> Iterator[tuple[str, str]]:
    """``(title, label)`` of each node or edge group, label lines joined by newlines."""
    root = ElementTree.fromstring(svg)
    for group in root.iter(f"{_SVG}g"):
        if group.get("class") == kind:
            title = group.findtext(f"{_SVG}title") or ""
            lines = [text.text or "" for text in group.iter(f"{_SVG}text")]
            yield title, "\n".join(lines)


def _lines(label: str) -> str:
    return "\n".join(label.splitlines())


@pytest.mark.slow
@pytest.mark.parametrize(("name", "mode"), CASES)
def test_dot_renders_without_warnings_and_shows_the_model(name: str, mode: str) -> None:
    machine = MACHINES[name]()
    diagram = build_diagram(machine, expand_wildcards=MODES[mode])
    svg = run_dot(render_dot(machine, expand_wildcards=MODES[mode]))
    rendered_nodes = dict(_svg_groups(svg, "node"))
    assert rendered_nodes == {node.node_id: _lines(node.label) for node in diagram.nodes}
    # Graphviz may emit edges in another order (loops first), so compare as multisets.
    rendered_edges = Counter(_svg_groups(svg, "edge"))
    assert rendered_edges == Counter(
        (f"{edge.source.node_id}->{edge.target.node_id}", _lines(edge.label))
        for edge in diagram.edges
    )
    for spec_state in machine.states:
        assert rendered_nodes[_node(diagram, spec_state.name).node_id] == _lines(spec_state.label)


def _node(diagram: Diagram, key: str) -> DiagramNode:
    return next(node for node in diagram.nodes if node.key == key)


def test_dot_styles_kinds_distinctly() -> None:
    machine = nasty()
    source = render_dot(machine)
    diagram = build_diagram(machine)
    lines = {
        line.strip().split(" ", 1)[0]: line for line in source.splitlines() if " -> " not in line
    }
    expected = {
        StateKind.FINAL: "peripheries=2",
        StateKind.ERROR: 'fillcolor="#f8d7da"',
        StateKind.WAIT: "dashed",
    }
    for spec_state in machine.states:
        line = lines[_node(diagram, spec_state.name).node_id]
        for kind, marker in expected.items():
            assert (marker in line) == (spec_state.kind is kind), line
    assert "    start [shape=point" in source
    assert "    start -> s0;" in source


# --- Mermaid -------------------------------------------------------------------------------------


def _mermaid_label(label: str) -> str:
    return "<br>".join(label.splitlines()).strip()


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_mermaid_parses_and_shows_the_model(
    name: str, mode: str, mermaid_results: dict[str, MermaidResult]
) -> None:
    result = mermaid_results[f"diagram-{name}-{mode}.mmd"]
    assert result.ok, result.error
    machine = MACHINES[name]()
    diagram = build_diagram(machine, expand_wildcards=MODES[mode])
    expected_states = {
        node.node_id: [_mermaid_label(node.label)]
        for node in diagram.nodes
        if node.style is not NodeStyle.INITIAL
    }
    assert {key: value for key, value in result.states.items() if key != "root_start"} == (
        expected_states
    )
    assert result.relations == [
        (
            "root_start" if edge.source.style is NodeStyle.INITIAL else edge.source.node_id,
            edge.target.node_id,
            _mermaid_label(edge.label),
        )
        for edge in diagram.edges
    ]
    class_of = {
        StateKind.FINAL: ["finalState"],
        StateKind.ERROR: ["errorState"],
        StateKind.WAIT: ["waitState"],
        StateKind.NORMAL: [],
    }
    for spec_state in machine.states:
        assert result.classes[_node(diagram, spec_state.name).node_id] == class_of[spec_state.kind]


def test_mermaid_lines_follow_a_strict_grammar() -> None:
    """Whatever the labels, every line is one of the few statement shapes the renderer emits."""
    statement = re.compile(
        r"stateDiagram-v2"
        r"|    %% [A-Za-z][A-Za-z0-9]*: generated by statewright from its spec; do not edit\."
        r"|    classDef [a-zA-Z]+ [a-z-]+:[^;\n]+"
        r'|    state "([^"\n#;:]|#\d+;)+" as [swh]\d+'
        r"|    (\[\*\]|[swh]\d+) --> [swh]\d+( : ([^\n#;:]|#\d+;)+)?"
        r"|    class [swh]\d+(,[swh]\d+)* [a-zA-Z]+"
    )
    for build in MACHINES.values():
        for expand in MODES.values():
            for line in render_mermaid(build(), expand_wildcards=expand).splitlines():
                assert statement.fullmatch(line), line


# --- Escaping ------------------------------------------------------------------------------------


def _decode_mermaid(text: str) -> str:
    return re.sub(r"#(\d+);", lambda match: chr(int(match.group(1))), text.replace("<br>", "\n"))


def _decode_dot(text: str) -> str:
    assert text.startswith('"') and text.endswith('"')
    body = re.sub(
        r"\\(.)", lambda match: "\n" if match.group(1) == "n" else match.group(1), text[1:-1]
    )
    return re.sub(r"&#(\d+);", lambda m: chr(int(m.group(1))), body).replace("&amp;", "&")


_lines_text = st.lists(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=20).map(
        lambda line: "".join(line.splitlines())
    ),
    min_size=1,
    max_size=4,
).map("\n".join)


@settings(max_examples=main_only_examples(100))
@given(_lines_text)
def test_mermaid_text_is_inert_and_reversible(text: str) -> None:
    escaped = mermaid_text(text)
    assert not set(re.sub(r"#\d+;|<br>", "", escaped)) & set('#":;%{}\\|\n\r`&<>'), escaped
    assert _decode_mermaid(escaped) == "\n".join(text.splitlines())


@settings(max_examples=main_only_examples(100))
@given(_lines_text)
def test_dot_text_is_one_quoted_string_and_reversible(text: str) -> None:
    escaped = dot_text(text)
    assert "\n" not in escaped and "\r" not in escaped
    assert re.fullmatch(r'"([^"\\]|\\.)*"', escaped, flags=re.DOTALL), escaped
    assert _decode_dot(escaped) == "\n".join(text.splitlines())


# --- Determinism ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(MACHINES))
def test_output_is_deterministic(name: str) -> None:
    for expand in MODES.values():
        first, second = MACHINES[name](), MACHINES[name]()
        assert first is not second
        assert render_mermaid(first, expand_wildcards=expand) == render_mermaid(
            second, expand_wildcards=expand
        )
        assert render_dot(first, expand_wildcards=expand) == render_dot(
            second, expand_wildcards=expand
        )

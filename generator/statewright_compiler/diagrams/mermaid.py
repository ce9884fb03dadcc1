"""Mermaid (``stateDiagram-v2``) text of a :class:`~model.Diagram`.

Labels go through :func:`mermaid_text` and nothing else, so no spec text can add syntax. A flat
machine is a list of states and edges. A statechart nests: each compound state is a
``state sN { ... }`` block holding its children, its own ``[*] -->`` initial edge and the edges
between states inside it; a parallel state's regions are separated by ``--``. Every state is
declared (with its label) before any edge names it, so Mermaid puts it in the right box however
the edges cross boxes; an edge is written in the innermost box that holds both its ends.
"""

from __future__ import annotations

import string
from collections import defaultdict

from statewright_compiler.codegen.jinja_env import template_environment
from statewright_compiler.diagrams.build import build_diagram
from statewright_compiler.diagrams.model import Diagram, DiagramEdge, DiagramNode, NodeStyle
from statewright_compiler.model import Machine

__all__ = ["mermaid_text", "render_mermaid"]

# ASCII characters Mermaid reads literally inside a quoted state label and after ``:`` on an edge;
# every other ASCII character (``: ; # " < > { } \ | % &`` ...) becomes a ``#<code>;`` entity,
# which Mermaid decodes when it renders. Printable non-ASCII text (e.g. Chinese) stays as is.
_MERMAID_LITERAL = frozenset(string.ascii_letters + string.digits + " _-.,()/[]'!?+*=")

_MERMAID_CLASSES: tuple[tuple[NodeStyle, str, str], ...] = (
    (NodeStyle.FINAL, "finalState", "fill:#e9ecef,stroke:#212529,stroke-width:3px"),
    (NodeStyle.ERROR, "errorState", "fill:#f8d7da,stroke:#b02a37,color:#58151c"),
    (NodeStyle.WAIT, "waitState", "fill:#fff3cd,stroke:#997404,stroke-dasharray:5 3"),
    (NodeStyle.WILDCARD, "anyState", "fill:#ffffff,stroke:#6c757d,stroke-dasharray:4 4"),
    (NodeStyle.PREVIOUS, "previousState", "fill:#ffffff,stroke:#0a58ca,stroke-dasharray:2 2"),
    (NodeStyle.HISTORY, "historyState", "fill:#e7f1ff,stroke:#0a58ca,color:#0a58ca"),
)
_INDENT = "    "


def _mermaid_line(line: str) -> str:
    return "".join(
        char
        if char in _MERMAID_LITERAL or (ord(char) > 127 and char.isprintable())
        else f"#{ord(char)};"
        for char in line
    )


def mermaid_text(text: str) -> str:
    """``text`` escaped for a Mermaid label; line breaks become ``<br>``."""
    return "<br>".join(_mermaid_line(line) for line in text.splitlines())


def _state_line(node: DiagramNode) -> str:
    return f'state "{mermaid_text(node.label)}" as {node.node_id}'


def _edge_line(edge: DiagramEdge) -> str:
    source = "[*]" if edge.source.style is NodeStyle.INITIAL else edge.source.node_id
    label = f" : {mermaid_text(edge.label)}" if edge.label else ""
    return f"{source} --> {edge.target.node_id}{label}"


def _ancestors(node: DiagramNode) -> list[DiagramNode]:
    """The boxes around ``node``, innermost first."""
    chain = []
    parent = node.parent
    while parent is not None:
        chain.append(parent)
        parent = parent.parent
    return chain


def _edge_box(edge: DiagramEdge) -> DiagramNode | None:
    """The block an edge is written in: an initial edge in its ``[*]``'s box, any other in the
    innermost box holding both ends (not a parallel state's: its body is only regions)."""
    if edge.source.style is NodeStyle.INITIAL:
        return edge.source.parent
    around_target = set(_ancestors(edge.target))
    box = next((node for node in _ancestors(edge.source) if node in around_target), None)
    while box is not None and box.style is NodeStyle.PARALLEL:
        box = box.parent
    return box


def _chart_lines(diagram: Diagram) -> list[str]:
    edges_in: dict[DiagramNode | None, list[DiagramEdge]] = defaultdict(list)
    for edge in diagram.edges:
        edges_in[_edge_box(edge)].append(edge)

    def declaration(node: DiagramNode) -> list[str]:
        if not node.is_container:
            return [_state_line(node)]
        inner = [_INDENT + line for line in body(node)]
        return [_state_line(node), f"state {node.node_id} {{", *inner, "}"]

    def body(box: DiagramNode | None) -> list[str]:
        children = [node for node in diagram.children(box) if node.style is not NodeStyle.INITIAL]
        if box is not None and box.style is NodeStyle.PARALLEL:
            # One segment per region; a history state of the parallel state gets its own.
            history = [node for node in children if node.style is NodeStyle.HISTORY]
            segments = [history] if history else []
            segments += [[node] for node in children if node.style is not NodeStyle.HISTORY]
        else:
            segments = [children]
        lines: list[str] = []
        for index, segment in enumerate(segments):
            lines += ["--"] if index else []
            for node in segment:
                lines += declaration(node)
        return lines + [_edge_line(edge) for edge in edges_in[box]]

    return body(None)


def render_mermaid(machine: Machine, *, expand_wildcards: bool = False) -> str:
    """A Mermaid ``stateDiagram-v2`` of ``machine``."""
    diagram = build_diagram(machine, expand_wildcards=expand_wildcards)
    used_styles = {node.style for node in diagram.nodes}
    class_defs = [(name, style) for kind, name, style in _MERMAID_CLASSES if kind in used_styles]
    class_members = [
        (name, ",".join(node.node_id for node in diagram.nodes if node.style is kind))
        for kind, name, _ in _MERMAID_CLASSES
        if kind in used_styles
    ]
    if diagram.chart:
        lines = _chart_lines(diagram)
    else:
        lines = [_state_line(node) for node in diagram.nodes if node.style is not NodeStyle.INITIAL]
        lines += [_edge_line(edge) for edge in diagram.edges]
    return (
        template_environment()
        .get_template("diagram.mmd.jinja")
        .render(
            machine_name=machine.name,
            class_defs=class_defs,
            lines=lines,
            class_members=class_members,
        )
    )

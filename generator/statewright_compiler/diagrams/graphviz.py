"""Graphviz (DOT) text of a :class:`~model.Diagram`, and images laid out by ``dot``.

Labels go through :func:`dot_text` and nothing else. A statechart's compound and parallel states
are clusters (``subgraph cluster_sN``) drawn around their children; each region of a parallel
state is a dashed cluster of its own. Graphviz draws edges between nodes, not clusters, so each
cluster holds an invisible anchor node: an edge to or from a compound state starts or ends at its
anchor and is clipped at the cluster's border (``lhead``/``ltail``, with ``compound=true``),
except where the other end is inside that cluster, where there is no border to clip at.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

from statewright_compiler.codegen.jinja_env import template_environment
from statewright_compiler.diagrams.build import build_diagram
from statewright_compiler.diagrams.model import (
    Diagram,
    DiagramEdge,
    DiagramNode,
    EdgeStyle,
    NodeStyle,
)
from statewright_compiler.model import Machine

__all__ = [
    "IMAGE_FORMATS",
    "DiagramError",
    "DiagramRenderError",
    "DiagramToolMissing",
    "anchor_id",
    "dot_text",
    "render_dot",
    "render_image",
]

#: Output formats :func:`render_image` hands to ``dot -T``.
IMAGE_FORMATS = frozenset({"svg", "png", "pdf"})

_DOT_NODE_ATTRIBUTES: dict[NodeStyle, str] = {
    NodeStyle.INITIAL: 'shape=point, width=0.2, label=""',
    NodeStyle.NORMAL: "",
    NodeStyle.FINAL: 'peripheries=2, style="rounded,filled", fillcolor="#e9ecef", penwidth=1.5',
    NodeStyle.ERROR: 'style="rounded,filled", fillcolor="#f8d7da", color="#b02a37"',
    NodeStyle.WAIT: 'style="rounded,filled,dashed", fillcolor="#fff3cd", color="#997404"',
    NodeStyle.WILDCARD: 'shape=box, style="dashed", color="#6c757d", fontcolor="#495057"',
    NodeStyle.PREVIOUS: 'shape=ellipse, style="dashed", color="#0a58ca", fontcolor="#0a58ca"',
    NodeStyle.HISTORY: (
        # An ellipse rather than a circle: a label naming the state ("H* resume_point") widens
        # it without making it tall.
        'shape=ellipse, style="filled", fillcolor="#e7f1ff", color="#0a58ca", '
        'fontcolor="#0a58ca", fontsize=10, width=0.3, height=0.3, margin=0.02'
    ),
}
#: A cluster's invisible anchor: where edges to and from its state start and end.
_ANCHOR_ATTRIBUTES = 'shape=point, style=invis, width=0.01, height=0.01, label=""'
#: The style of a compound state's cluster, a parallel state's, and a region's.
_CLUSTER_STYLES: dict[NodeStyle, str] = {
    NodeStyle.COMPOUND: "rounded",
    NodeStyle.PARALLEL: '"rounded,bold"',
}
_REGION_STYLE = '"rounded,dashed"'

_DOT_EDGE_ATTRIBUTES: dict[EdgeStyle, str] = {
    EdgeStyle.INITIAL: "",
    EdgeStyle.TRANSITION: "",
    EdgeStyle.CHECKPOINT: "penwidth=2",
    EdgeStyle.ERROR_HANDLER: 'style=dashed, color="#b02a37", fontcolor="#b02a37"',
    EdgeStyle.HISTORY_DEFAULT: 'style=dashed, color="#0a58ca", fontcolor="#0a58ca"',
}
#: Internal and targetless transitions, which leave their source state as it is.
_STAYING_EDGE = "style=dotted"
_INDENT = "    "


class DiagramError(Exception):
    """A diagram could not be produced; the message is meant for the user, not a traceback."""


class DiagramToolMissing(DiagramError):
    """An external program (Graphviz ``dot``) is not installed."""


class DiagramRenderError(DiagramError):
    """The external program ran and failed."""


def _dot_characters(line: str) -> Iterator[str]:
    for char in line:
        if char == "\\":
            yield "\\\\"
        elif char == '"':
            yield '\\"'
        elif char == "&":
            # Graphviz decodes HTML entities in every label, so a literal "&" must be one too.
            yield "&amp;"
        elif char.isprintable():
            yield char
        else:
            yield f"&#{ord(char)};"


def dot_text(text: str) -> str:
    """``text`` as a double-quoted DOT string; line breaks become centred ``\\n`` breaks."""
    return '"' + "\\n".join("".join(_dot_characters(line)) for line in text.splitlines()) + '"'


def _dot_attributes(label: str | None, *extra: str) -> str:
    parts = [f"label={dot_text(label)}"] if label is not None else []
    parts += [part for part in extra if part]
    return f" [{', '.join(parts)}]" if parts else ""


def _node_line(node: DiagramNode) -> str:
    label = None if node.style is NodeStyle.INITIAL else node.label
    return f"{node.node_id}{_dot_attributes(label, _DOT_NODE_ATTRIBUTES[node.style])};"


def anchor_id(node: DiagramNode) -> str:
    """The invisible node inside a compound or parallel state's cluster."""
    return f"{node.node_id}_anchor"


def _is_region(node: DiagramNode) -> bool:
    return node.parent is not None and node.parent.style is NodeStyle.PARALLEL


def _cluster(node: DiagramNode, style: str, label: str, inner: list[str]) -> list[str]:
    head = [f"label={dot_text(label)};", f"style={style};"]
    return [
        f"subgraph cluster_{node.node_id} {{",
        *(_INDENT + line for line in (*head, *inner)),
        "}",
    ]


def _chart_lines(diagram: Diagram) -> list[str]:
    def declaration(node: DiagramNode) -> list[str]:
        if node.is_container:
            style = _REGION_STYLE if _is_region(node) else _CLUSTER_STYLES[node.style]
            inner = [f"{anchor_id(node)} [{_ANCHOR_ATTRIBUTES}];"]
            for child in diagram.children(node):
                inner += declaration(child)
            return _cluster(node, style, node.label, inner)
        if _is_region(node) and node.style is not NodeStyle.HISTORY:
            return _cluster(node, _REGION_STYLE, "", [_node_line(node)])  # a one-state region
        return [_node_line(node)]

    return [line for node in diagram.children(None) for line in declaration(node)]


def _inside(node: DiagramNode, box: DiagramNode) -> bool:
    while node is not box:
        if node.parent is None:
            return False
        node = node.parent
    return True


def _edge(edge: DiagramEdge) -> tuple[str, str, str]:
    source, target = edge.source, edge.target
    clip_tail = source.is_container and not _inside(target, source)
    clip_head = target.is_container and not _inside(source, target)
    attributes = _dot_attributes(
        edge.label or None,
        _DOT_EDGE_ATTRIBUTES[edge.style],
        _STAYING_EDGE if edge.internal or edge.targetless else "",
        f"ltail=cluster_{source.node_id}" if clip_tail else "",
        f"lhead=cluster_{target.node_id}" if clip_head else "",
    )
    return (
        anchor_id(source) if source.is_container else source.node_id,
        anchor_id(target) if target.is_container else target.node_id,
        attributes,
    )


def render_dot(machine: Machine, *, expand_wildcards: bool = False) -> str:
    """A Graphviz ``digraph`` of ``machine``."""
    diagram = build_diagram(machine, expand_wildcards=expand_wildcards)
    lines = _chart_lines(diagram) if diagram.chart else list(map(_node_line, diagram.nodes))
    return (
        template_environment()
        .get_template("diagram.dot.jinja")
        .render(
            machine_name=machine.name,
            graph_name=dot_text(machine.name),
            compound=diagram.chart,
            lines=lines,
            edges=[_edge(edge) for edge in diagram.edges],
        )
    )


def render_image(dot_source: str, image_format: str) -> bytes:
    """Lay out ``dot_source`` with Graphviz's ``dot`` and return the ``svg``/``png``/``pdf``."""
    if image_format not in IMAGE_FORMATS:
        known = ", ".join(sorted(IMAGE_FORMATS))
        raise DiagramError(f"unknown image format {image_format!r} (expected one of: {known})")
    executable = shutil.which("dot")
    if executable is None:
        raise DiagramToolMissing(
            "Graphviz's `dot` program was not found on PATH; it is needed for svg/png/pdf "
            "output: install Graphviz: apt-get install graphviz (macOS: brew install graphviz), "
            "or ask for --format mermaid or --format dot instead"
        )
    try:
        completed = subprocess.run(
            [executable, f"-T{image_format}"],
            input=dot_source.encode("utf-8"),
            capture_output=True,
            check=False,
        )
    except OSError as error:
        raise DiagramToolMissing(f"could not run {executable}: {error}") from error
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip()
        raise DiagramRenderError(
            f"dot -T{image_format} failed (exit {completed.returncode}): {message}"
        )
    return completed.stdout

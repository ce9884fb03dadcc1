"""Mermaid (``stateDiagram-v2``) and Graphviz (DOT) diagrams of a compiled :class:`Machine`.

Both renderers draw the same :class:`Diagram`, built once here from the model: nodes get generated
ids (``s0``, ``s1``, ... for states) and labels travel separately, escaped per output language, so
no state name or label can break the syntax. Rules leaving from ``"*"`` or ``"tag:x"`` are drawn
once, from a pseudo-node standing for the selector, unless ``expand_wildcards`` asks for one edge
per concrete transition. ``"<previous>"`` targets go to one "previous state" node (a UML history
state); the docs list which states it can be.
"""

from __future__ import annotations

import enum
import functools
import shutil
import string
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import jinja2

from .model import PREVIOUS_TARGET, Machine, SourceSelector, StateKind

__all__ = [
    "ERROR_EVENT",
    "IMAGE_FORMATS",
    "INITIAL_KEY",
    "Diagram",
    "DiagramEdge",
    "DiagramError",
    "DiagramGraph",
    "DiagramNode",
    "DiagramRenderError",
    "DiagramToolMissing",
    "EdgeStyle",
    "NodeStyle",
    "build_diagram",
    "diagram_graph",
    "dot_text",
    "mermaid_text",
    "render_dot",
    "render_image",
    "render_mermaid",
    "selector_key",
    "template_environment",
]

#: Key of the initial pseudo-state (the black dot), as in Mermaid's ``[*]``.
INITIAL_KEY = "[*]"
#: Event of an error handler's edge ("an action raised while leaving the source").
ERROR_EVENT = "<error>"
#: Output formats :func:`render_image` hands to ``dot -T``.
IMAGE_FORMATS = frozenset({"svg", "png", "pdf"})

_TEMPLATES = Path(__file__).parent / "templates"


class NodeStyle(enum.Enum):
    INITIAL = "initial"
    NORMAL = "normal"
    FINAL = "final"
    ERROR = "error"
    WAIT = "wait"
    WILDCARD = "wildcard"
    """A pseudo-node standing for every state a ``"*"`` / ``"tag:x"`` selector covers."""
    PREVIOUS = "previous"
    """The history pseudo-node: "the state before the source state"."""


class EdgeStyle(enum.Enum):
    INITIAL = "initial"
    TRANSITION = "transition"
    CHECKPOINT = "checkpoint"
    """A transition after which the machine persists a snapshot."""
    ERROR_HANDLER = "error_handler"


_STATE_STYLES = {
    StateKind.NORMAL: NodeStyle.NORMAL,
    StateKind.FINAL: NodeStyle.FINAL,
    StateKind.ERROR: NodeStyle.ERROR,
    StateKind.WAIT: NodeStyle.WAIT,
}


@dataclass(frozen=True)
class DiagramNode:
    key: str
    """A state name, a selector in spec syntax (``*``, ``tag:x except y``), ``<previous>`` or
    ``[*]``."""
    node_id: str
    """Generated identifier, safe in both output languages."""
    label: str
    """Display text, unescaped."""
    style: NodeStyle


@dataclass(frozen=True)
class DiagramEdge:
    source: DiagramNode
    target: DiagramNode
    event: str
    """Event name; ``""`` for the initial edge, :data:`ERROR_EVENT` for error handlers."""
    label: str
    """Display text, unescaped: ``EVENT [guard] / action, action``."""
    style: EdgeStyle


@dataclass(frozen=True)
class Diagram:
    name: str
    nodes: tuple[DiagramNode, ...]
    edges: tuple[DiagramEdge, ...]


class DiagramGraph(NamedTuple):
    """A diagram as plain sets, for comparing with the spec."""

    nodes: frozenset[str]
    """Node keys (see :attr:`DiagramNode.key`)."""
    edges: frozenset[tuple[str, str, str, str]]
    """``(source key, event, target key, label)``."""


class DiagramError(Exception):
    """A diagram could not be produced; the message is meant for the user, not a traceback."""


class DiagramToolMissing(DiagramError):
    """An external program (Graphviz ``dot``) is not installed."""


class DiagramRenderError(DiagramError):
    """The external program ran and failed."""


def selector_key(selector: SourceSelector) -> str:
    """The selector as a spec would write it: ``*``, ``tag:x``, plus `` except a, b``."""
    text = "*" if selector.any_state else f"tag:{selector.tag}"
    return text + (f" except {', '.join(selector.excluded)}" if selector.excluded else "")


def _edge_label(event: str, guard_text: str | None, actions: tuple[str, ...]) -> str:
    label = event
    if guard_text:
        label += f" [{guard_text}]"
    if actions:
        label += f" / {', '.join(actions)}"
    return label


def _error_label(actions: tuple[str, ...]) -> str:
    return "on error" + (f" / {', '.join(actions)}" if actions else "")


def build_diagram(machine: Machine, *, expand_wildcards: bool = False) -> Diagram:
    """Nodes and edges of ``machine``'s diagram, in a stable order (states in spec order)."""
    initial = DiagramNode(INITIAL_KEY, "start", "", NodeStyle.INITIAL)
    states = {
        state.name: DiagramNode(
            state.name, f"s{index}", state.label or state.name, _STATE_STYLES[state.kind]
        )
        for index, state in enumerate(machine.states)
    }
    wildcards: dict[str, DiagramNode] = {}
    previous: list[DiagramNode] = []

    def wildcard_node(selector: SourceSelector) -> DiagramNode:
        key = selector_key(selector)
        if key not in wildcards:
            wildcards[key] = DiagramNode(
                key, f"w{len(wildcards)}", selector.describe(), NodeStyle.WILDCARD
            )
        return wildcards[key]

    def target_node(target: str) -> DiagramNode:
        if target != PREVIOUS_TARGET:
            return states[target]
        if not previous:
            previous.append(
                DiagramNode(PREVIOUS_TARGET, "h0", "previous state", NodeStyle.PREVIOUS)
            )
        return previous[0]

    def transition_style(checkpoint: bool) -> EdgeStyle:
        return EdgeStyle.CHECKPOINT if checkpoint else EdgeStyle.TRANSITION

    edges = [DiagramEdge(initial, states[machine.initial], "", "", EdgeStyle.INITIAL)]
    for transition in machine.transitions:
        if not expand_wildcards and machine.rules[transition.rule_index].source.is_wildcard:
            continue
        event_label = machine.event(transition.event).label or transition.event
        edges.append(
            DiagramEdge(
                states[transition.source],
                target_node(transition.target),
                transition.event,
                _edge_label(event_label, transition.guard_text, transition.actions),
                transition_style(transition.checkpoint),
            )
        )
    if not expand_wildcards:
        for rule in machine.rules:
            if rule.source.is_wildcard:
                event_label = machine.event(rule.event).label or rule.event
                edges.append(
                    DiagramEdge(
                        wildcard_node(rule.source),
                        target_node(rule.target),
                        rule.event,
                        _edge_label(event_label, rule.guard_text, rule.actions),
                        transition_style(rule.checkpoint),
                    )
                )
    for handler in machine.error_handlers:
        label = _error_label(handler.actions)
        sources: list[DiagramNode]
        if handler.source.is_wildcard and not expand_wildcards:
            sources = [wildcard_node(handler.source)]
        else:
            sources = [states[name] for name in handler.sources]
        edges.extend(
            DiagramEdge(
                source,
                states[handler.target],
                ERROR_EVENT,
                label,
                EdgeStyle.ERROR_HANDLER,
            )
            for source in sources
        )
    nodes = (initial, *states.values(), *wildcards.values(), *previous)
    return Diagram(machine.name, nodes, tuple(edges))


def diagram_graph(machine: Machine, *, expand_wildcards: bool = False) -> DiagramGraph:
    """The diagram's node keys and ``(source, event, target, label)`` edges, as sets."""
    diagram = build_diagram(machine, expand_wildcards=expand_wildcards)
    return DiagramGraph(
        frozenset(node.key for node in diagram.nodes),
        frozenset(
            (edge.source.key, edge.event, edge.target.key, edge.label) for edge in diagram.edges
        ),
    )


@functools.cache
def template_environment() -> jinja2.Environment:
    """The Jinja environment for docs and diagrams: strict, whitespace-exact, no autoescape."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


# --- Mermaid -------------------------------------------------------------------------------------

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
)


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
    nodes = [
        (node.node_id, mermaid_text(node.label))
        for node in diagram.nodes
        if node.style is not NodeStyle.INITIAL
    ]
    edges = [
        (
            "[*]" if edge.source.style is NodeStyle.INITIAL else edge.source.node_id,
            edge.target.node_id,
            f" : {mermaid_text(edge.label)}" if edge.label else "",
        )
        for edge in diagram.edges
    ]
    return (
        template_environment()
        .get_template("diagram.mmd.jinja")
        .render(
            machine_name=machine.name,
            class_defs=class_defs,
            nodes=nodes,
            edges=edges,
            class_members=class_members,
        )
    )


# --- Graphviz ------------------------------------------------------------------------------------

_DOT_NODE_ATTRIBUTES: dict[NodeStyle, str] = {
    NodeStyle.INITIAL: 'shape=point, width=0.2, label=""',
    NodeStyle.NORMAL: "",
    NodeStyle.FINAL: 'peripheries=2, style="rounded,filled", fillcolor="#e9ecef", penwidth=1.5',
    NodeStyle.ERROR: 'style="rounded,filled", fillcolor="#f8d7da", color="#b02a37"',
    NodeStyle.WAIT: 'style="rounded,filled,dashed", fillcolor="#fff3cd", color="#997404"',
    NodeStyle.WILDCARD: 'shape=box, style="dashed", color="#6c757d", fontcolor="#495057"',
    NodeStyle.PREVIOUS: 'shape=ellipse, style="dashed", color="#0a58ca", fontcolor="#0a58ca"',
}

_DOT_EDGE_ATTRIBUTES: dict[EdgeStyle, str] = {
    EdgeStyle.INITIAL: "",
    EdgeStyle.TRANSITION: "",
    EdgeStyle.CHECKPOINT: "penwidth=2",
    EdgeStyle.ERROR_HANDLER: 'style=dashed, color="#b02a37", fontcolor="#b02a37"',
}


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


def _dot_attributes(label: str | None, extra: str) -> str:
    parts = [f"label={dot_text(label)}"] if label is not None else []
    if extra:
        parts.append(extra)
    return f" [{', '.join(parts)}]" if parts else ""


def render_dot(machine: Machine, *, expand_wildcards: bool = False) -> str:
    """A Graphviz ``digraph`` of ``machine``."""
    diagram = build_diagram(machine, expand_wildcards=expand_wildcards)
    nodes = [
        (
            node.node_id,
            _dot_attributes(
                None if node.style is NodeStyle.INITIAL else node.label,
                _DOT_NODE_ATTRIBUTES[node.style],
            ),
        )
        for node in diagram.nodes
    ]
    edges = [
        (
            edge.source.node_id,
            edge.target.node_id,
            _dot_attributes(edge.label or None, _DOT_EDGE_ATTRIBUTES[edge.style]),
        )
        for edge in diagram.edges
    ]
    return (
        template_environment()
        .get_template("diagram.dot.jinja")
        .render(
            machine_name=machine.name, graph_name=dot_text(machine.name), nodes=nodes, edges=edges
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

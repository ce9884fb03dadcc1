"""The diagram of a compiled :class:`Machine` as renderer-neutral data: nodes, edges, nesting.

Built once from the model (:mod:`build`, :mod:`build_chart`) and read by both
renderers (:mod:`mermaid`, :mod:`graphviz`), which never look at the model's transitions
themselves, so the two pictures cannot disagree. Nodes get
generated ids (``s0``, ``s1``, ... for states, in model order) and labels travel separately,
unescaped: each renderer escapes them for its own language, so no state name or label can break
the syntax.

Rules leaving from ``"*"`` or ``"tag:x"`` are drawn once, from a pseudo-node standing for the
selector, unless ``expand_wildcards`` asks for one edge per concrete source. ``"<previous>"``
targets go to one "previous state" node (a UML history state); the docs list which states it can
be. A statechart's nodes also carry their parent (see :mod:`build_chart`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from statewright_compiler.model import PREVIOUS_TARGET, Machine, SourceSelector, StateKind

__all__ = [
    "CONTAINER_STYLES",
    "DEFAULT_EVENT",
    "ERROR_EVENT",
    "INITIAL_KEY",
    "STATE_STYLES",
    "Diagram",
    "DiagramEdge",
    "DiagramGraph",
    "DiagramNode",
    "EdgeStyle",
    "NodeFactory",
    "NodeStyle",
    "edge_label",
    "error_handler_edges",
    "selector_key",
    "transition_style",
]

#: Key of the initial pseudo-state (the black dot), as in Mermaid's ``[*]``. A compound state's
#: own initial pseudo-state has the key ``[*]`` followed by the state's name.
INITIAL_KEY = "[*]"
#: Event of an error handler's edge ("an action raised while leaving the source").
ERROR_EVENT = "<error>"
#: Event of a history state's default edge ("where it goes while it remembers nothing").
DEFAULT_EVENT = "<default>"


class NodeStyle(enum.Enum):
    INITIAL = "initial"
    NORMAL = "normal"
    FINAL = "final"
    ERROR = "error"
    WAIT = "wait"
    WILDCARD = "wildcard"
    """A pseudo-node standing for every state a ``"*"`` / ``"tag:x"`` selector covers."""
    PREVIOUS = "previous"
    """The history pseudo-node of a flat machine: "the state before the source state"."""
    HISTORY = "history"
    """A statechart's history pseudo-state (``H``, or ``H*`` for deep history)."""
    COMPOUND = "compound"
    """A state with children, drawn as a box around them."""
    PARALLEL = "parallel"
    """A state whose children are regions, all active at once."""


#: Styles of nodes drawn as a box around other nodes.
CONTAINER_STYLES = frozenset({NodeStyle.COMPOUND, NodeStyle.PARALLEL})


class EdgeStyle(enum.Enum):
    INITIAL = "initial"
    TRANSITION = "transition"
    CHECKPOINT = "checkpoint"
    """A transition after which the machine persists a snapshot."""
    ERROR_HANDLER = "error_handler"
    HISTORY_DEFAULT = "history_default"
    """Where a history state goes while it remembers nothing."""


STATE_STYLES = {
    StateKind.NORMAL: NodeStyle.NORMAL,
    StateKind.FINAL: NodeStyle.FINAL,
    StateKind.ERROR: NodeStyle.ERROR,
    StateKind.WAIT: NodeStyle.WAIT,
    StateKind.PARALLEL: NodeStyle.PARALLEL,
    StateKind.HISTORY: NodeStyle.HISTORY,
}


@dataclass(frozen=True)
class DiagramNode:
    key: str
    """A state name, a selector in spec syntax (``*``, ``tag:x except y``), ``<previous>``,
    ``[*]`` or ``[*]<compound state>``."""
    node_id: str
    """Generated identifier, safe in both output languages."""
    label: str
    """Display text, unescaped."""
    style: NodeStyle
    parent: DiagramNode | None = None
    """The compound or parallel state node this one is drawn inside (charts); None: the top."""

    @property
    def is_container(self) -> bool:
        return self.style in CONTAINER_STYLES


@dataclass(frozen=True)
class DiagramEdge:
    source: DiagramNode
    target: DiagramNode
    event: str
    """Event name (a chart's trigger as written: a descriptor, or ``""`` when eventless);
    ``""`` for initial edges, :data:`ERROR_EVENT` for error handlers, :data:`DEFAULT_EVENT`
    for history defaults."""
    label: str
    """Display text, unescaped: ``EVENT [guard] / action, action``."""
    style: EdgeStyle
    internal: bool = False
    """A chart's internal transition: the source state is not exited."""
    targetless: bool = False
    """A chart's transition without targets, drawn as a loop on its source: it runs its
    actions and changes no state."""


@dataclass(frozen=True)
class Diagram:
    name: str
    nodes: tuple[DiagramNode, ...]
    """Parents before their children (charts: document order)."""
    edges: tuple[DiagramEdge, ...]
    chart: bool = False

    def children(self, parent: DiagramNode | None) -> tuple[DiagramNode, ...]:
        """The nodes drawn directly inside ``parent`` (None: the top level), in order."""
        return tuple(node for node in self.nodes if node.parent == parent)


class DiagramGraph(NamedTuple):
    """A diagram as plain sets, for comparing with the spec."""

    nodes: frozenset[str]
    """Node keys (see :attr:`DiagramNode.key`)."""
    edges: frozenset[tuple[str, str, str, str]]
    """``(source key, event, target key, label)``."""
    parents: frozenset[tuple[str, str]] = frozenset()
    """``(node key, parent key)`` for every node drawn inside another (charts)."""


def selector_key(selector: SourceSelector) -> str:
    """The selector as a spec would write it: ``*``, ``tag:x``, plus `` except a, b``."""
    text = "*" if selector.any_state else f"tag:{selector.tag}"
    return text + (f" except {', '.join(selector.excluded)}" if selector.excluded else "")


def edge_label(event: str, guard_text: str | None, actions: tuple[str, ...]) -> str:
    label = event
    if guard_text:
        label += f" [{guard_text}]"
    if actions:
        label += f" / {', '.join(actions)}"
    return label


def _error_label(actions: tuple[str, ...]) -> str:
    return "on error" + (f" / {', '.join(actions)}" if actions else "")


class NodeFactory:
    """The pseudo-nodes both kinds of machine share, created on first use, in a stable order."""

    def __init__(self, states: dict[str, DiagramNode]) -> None:
        self.states = states
        self.wildcards: dict[str, DiagramNode] = {}
        self.previous: list[DiagramNode] = []

    def wildcard(self, selector: SourceSelector) -> DiagramNode:
        key = selector_key(selector)
        if key not in self.wildcards:
            self.wildcards[key] = DiagramNode(
                key, f"w{len(self.wildcards)}", selector.describe(), NodeStyle.WILDCARD
            )
        return self.wildcards[key]

    def target(self, target: str) -> DiagramNode:
        if target != PREVIOUS_TARGET:
            return self.states[target]
        if not self.previous:
            self.previous.append(
                DiagramNode(PREVIOUS_TARGET, "h0", "previous state", NodeStyle.PREVIOUS)
            )
        return self.previous[0]

    @property
    def pseudo_nodes(self) -> tuple[DiagramNode, ...]:
        return (*self.wildcards.values(), *self.previous)


def transition_style(checkpoint: bool) -> EdgeStyle:
    return EdgeStyle.CHECKPOINT if checkpoint else EdgeStyle.TRANSITION


def error_handler_edges(
    machine: Machine, factory: NodeFactory, *, expand_wildcards: bool
) -> list[DiagramEdge]:
    edges: list[DiagramEdge] = []
    for handler in machine.error_handlers:
        label = _error_label(handler.actions)
        sources: list[DiagramNode]
        if handler.source.is_wildcard and not expand_wildcards:
            sources = [factory.wildcard(handler.source)]
        else:
            sources = [factory.states[name] for name in handler.sources]
        edges.extend(
            DiagramEdge(
                source,
                factory.states[handler.target],
                ERROR_EVENT,
                label,
                EdgeStyle.ERROR_HANDLER,
            )
            for source in sources
        )
    return edges

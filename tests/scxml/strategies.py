"""Hypothesis strategies for random SCXML charts written the way people write them by hand.

A chart is a tree of ``<state>``, ``<parallel>``, ``<final>`` and ``<history>`` elements (nesting
up to :data:`MAX_DEPTH`), with ``initial`` attributes and ``<initial>`` elements that may name a
history state, history defaults that may name another history, and transitions SCXML allows but
a spec cannot say as written: several on one event in one state, ``*`` before other
descriptors, descriptors that are prefixes of one another (``go``, ``go.left``, ``go.*``),
eventless ones one after another, conditions with ``In()`` and data, several targets. Only what
statewright translates is drawn (no data model, scripts or ``<invoke>``): what the importer
accepts must compile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Final

from hypothesis import strategies as st

__all__ = ["MAX_DEPTH", "scxml_charts"]

#: Nesting below the top level: a top-level state is at depth 0.
MAX_DEPTH: Final = 3
#: Descriptors, ``{id}`` standing for a state's id; None: an eventless transition.
DESCRIPTORS: Final = (
    None, "go", "go.left", "go.left.far", "go.*", "go.", "stop", "*", "error",
    "error.execution", "done.state.{id}", "go stop", "tick", "f.b", "f.b.c",
)  # fmt: skip
#: Events a chart raises.
RAISED: Final = ("go", "go.left", "stop", "tick", "other.x", "f.b")
#: Conditions, ``{id}`` standing for a state's id; None: no condition.
CONDITIONS: Final = (
    None, None, None, "In('{id}')", "ready", "not In('{id}')", "In('{id}') and ready",
)  # fmt: skip


@dataclass
class _Node:
    id: str
    kind: str  # state, parallel, final, history
    parent: _Node | None
    children: list[_Node] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)
    body: list[str] = field(default_factory=list)  # elements before the child states

    def descendants(self) -> list[_Node]:
        found: list[_Node] = []
        for child in self.children:
            found += [child, *child.descendants()]
        return found


class _Builder:
    """One chart. Choices go through a Random that Hypothesis seeds, so that each probability
    is what it says: Hypothesis's own floats and integers favour their bounds."""

    def __init__(self, random: Random, size: int) -> None:
        self.random = random
        self.size = size
        self.nodes: list[_Node] = []

    def chance(self, probability: float) -> bool:
        return self.random.random() < probability

    def choice(self, items: Sequence[Any]) -> Any:
        return self.random.choice(items)

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)

    def node(self, kind: str, parent: _Node | None) -> _Node:
        node = _Node(f"s{len(self.nodes)}", kind, parent)
        self.nodes.append(node)
        if parent is not None:
            parent.children.append(node)
        return node

    def state(self, parent: _Node | None, depth: int) -> _Node:
        room = len(self.nodes) < self.size and depth < MAX_DEPTH
        kind = self.choice(["state", "state", "parallel", "final"] if room else ["state", "final"])
        if parent is not None and parent.kind == "parallel" and kind == "final":
            kind = "state"
        node = self.node(kind, parent)
        if kind == "final":
            return node
        if kind == "parallel" or (room and self.chance(0.4)):
            for _ in range(self.integer(2 if kind == "parallel" else 1, 3)):
                self.state(node, depth + 1)
            if self.chance(0.3):
                self.node("history", node).attributes["type"] = self.choice(["shallow", "deep"])
        return node

    def defaults(self) -> None:
        """Initials of compound states and defaults of history states, now that every id
        exists: any descendant, a history state included (which may loop)."""
        for node in self.nodes:
            inside = [n for n in node.descendants()]
            if node.kind == "state" and inside and self.chance(0.4):
                target = self.choice(inside).id
                if self.chance(0.5):
                    node.attributes["initial"] = target
                else:
                    node.body.append(f'<initial><transition target="{target}"/></initial>')
            if node.kind == "history" and node.parent is not None and self.chance(0.6):
                siblings = [
                    n for n in node.parent.descendants() if n is not node or self.chance(0.1)
                ]
                target = self.choice(siblings).id
                node.body.append(f'<transition target="{target}"/>')

    def transitions(self) -> None:
        ids = [node.id for node in self.nodes]
        for node in self.nodes:
            if node.kind in ("final", "history"):
                continue
            for _ in range(self.integer(0, 4)):
                node.body.append(self.transition(ids))
            if self.chance(0.2):
                node.body.insert(0, f'<onentry><raise event="{self.choice(RAISED)}"/></onentry>')

    def targets(self, ids: list[str]) -> list[str]:
        """One state; sometimes one in each of two regions of a parallel state, rarely any two
        (which SCXML forbids when they cannot be active together)."""
        parallels = [node for node in self.nodes if node.kind == "parallel"]
        if parallels and self.chance(0.1):
            regions = self.choice(parallels).children
            first, second = self.random.sample(regions, 2)
            return [self.choice([region, *region.descendants()]).id for region in (first, second)]
        if self.chance(0.01):
            return [self.choice(ids), self.choice(ids)]
        return [self.choice(ids)]

    def transition(self, ids: list[str]) -> str:
        attributes = []
        descriptor = self.choice(DESCRIPTORS)
        if descriptor is not None:
            attributes.append(f'event="{descriptor.format(id=self.choice(ids))}"')
        condition = self.choice(CONDITIONS)
        if condition is not None:
            attributes.append(f'cond="{condition.format(id=self.choice(ids))}"')
        if self.chance(0.8):
            attributes.append(f'target="{" ".join(self.targets(ids))}"')
        if self.chance(0.15):
            attributes.append('type="internal"')
        content = f'<raise event="{self.choice(RAISED)}"/>' if self.chance(0.2) else ""
        return f"<transition {' '.join(attributes)}>{content}</transition>"

    def xml(self, node: _Node) -> str:
        attributes = "".join(f' {key}="{value}"' for key, value in node.attributes.items())
        inner = "".join([*node.body, *(self.xml(child) for child in node.children)])
        return f'<{node.kind} id="{node.id}"{attributes}>{inner}</{node.kind}>'


@st.composite
def scxml_charts(draw: st.DrawFn, size: int = 12) -> str:
    """A random SCXML document of at most about ``size`` states."""
    builder = _Builder(draw(st.randoms(use_true_random=True)), size)
    top = [builder.state(None, 0) for _ in range(builder.integer(1, 3))]
    builder.defaults()
    builder.transitions()
    root = ""
    if builder.chance(0.2):
        root = f' initial="{builder.choice(builder.nodes).id}"'
    body = "".join(builder.xml(node) for node in top)
    return f'<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"{root}>{body}</scxml>\n'

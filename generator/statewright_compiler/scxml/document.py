"""The part of SCXML that statewright translates, as frozen dataclasses in SCXML's own terms.

Import reads XML into this (:mod:`importer`) and translates it to a spec
(:mod:`spec_text`); export builds it from a compiled machine and writes it as XML. One model
between the two directions is what makes "export, then import" comparable structure by structure.
Everything here uses SCXML ids and event names as written; statewright names come later.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

__all__ = [
    "Cancel",
    "Document",
    "Log",
    "Node",
    "NodeKind",
    "Raise",
    "Send",
    "Step",
    "Transition",
]


class NodeKind(enum.Enum):
    STATE = "state"
    PARALLEL = "parallel"
    FINAL = "final"
    HISTORY = "history"


@dataclass(frozen=True)
class Raise:
    """``<raise event="...">``: an internal event."""

    event: str


@dataclass(frozen=True)
class Log:
    """``<log label="..." expr="'text'">`` with a constant text (``label`` None when absent)."""

    text: str
    label: str | None = None


@dataclass(frozen=True)
class Send:
    """``<send event="..." delay="..." id="...">``: the event, sent to the chart itself after
    ``delay`` (as written: ``"1s"``, ``"500ms"``); ``id`` is None when the element has none."""

    event: str
    delay: str
    id: str | None = None


@dataclass(frozen=True)
class Cancel:
    """``<cancel sendid="...">``: cancel the pending ``<send>`` with that id (``line`` and
    ``column`` say where, for a diagnostic; they are not part of what it means)."""

    id: str
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


#: One piece of executable content.
Step = Raise | Log | Send | Cancel


@dataclass(frozen=True)
class Transition:
    """``<transition>``: descriptor tokens (none: eventless), ``cond`` as written, target ids
    (none: targetless), ``type="internal"``, and its executable content."""

    events: tuple[str, ...] = ()
    cond: str | None = None
    targets: tuple[str, ...] = ()
    internal: bool = False
    steps: tuple[Step, ...] = ()
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class Node:
    """A ``<state>``, ``<parallel>``, ``<final>`` or ``<history>``, in document order.

    ``id`` is None when the document gives none (the translation names it). ``initial`` holds
    the ``initial`` attribute's ids or the target of the ``<initial>`` element (whose content is
    ``initial_steps``); empty means the first child. A history state keeps its ``type`` in
    ``history`` and its default transition in ``default`` and ``default_steps``.
    """

    id: str | None
    kind: NodeKind
    parent: int | None = None
    initial: tuple[str, ...] = ()
    initial_steps: tuple[Step, ...] = ()
    entry: tuple[Step, ...] = ()
    exit: tuple[Step, ...] = ()
    history: str | None = None
    default: tuple[str, ...] = ()
    default_steps: tuple[Step, ...] = ()
    transitions: tuple[Transition, ...] = ()
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class Document:
    """A whole chart: its name (None: none given), the root's initial ids (empty: the first
    child) and every node in document order; ``parent`` is an index into ``nodes``."""

    name: str | None
    initial: tuple[str, ...]
    nodes: tuple[Node, ...]

    def children(self, parent: int | None) -> list[int]:
        return list(self._children.get(parent, ()))

    @cached_property
    def _children(self) -> dict[int | None, list[int]]:
        """Each parent's children in document order, found in one pass over the nodes."""
        children: dict[int | None, list[int]] = {}
        for index, node in enumerate(self.nodes):
            children.setdefault(node.parent, []).append(index)
        return children

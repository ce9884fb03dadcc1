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
    "Assign",
    "Cancel",
    "Data",
    "Document",
    "Foreach",
    "If",
    "Invoke",
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
    """``<log label="..." expr="'text'">`` with a constant text (``label`` None when absent),
    or with an expression (``expr``, the text then empty)."""

    text: str
    label: str | None = None
    expr: str | None = None


@dataclass(frozen=True)
class Send:
    """``<send event="..." delay="..." id="...">``: the event, sent to the chart itself after
    ``delay`` (as written: ``"1s"``, ``"500ms"``); ``id`` is None when the element has none.

    The data model's attributes: each ``...expr`` computes what its constant form says,
    ``idlocation`` names the field that receives the made-up id, ``params`` are the
    ``<param name expr>`` pairs (``expr`` None: ``location``, in ``locations``), ``namelist``
    the fields sent under their own names and ``content`` an expression, the whole event data.
    Every expression is the chart's text (translated when the spec is written)."""

    event: str
    delay: str
    id: str | None = None
    eventexpr: str | None = None
    delayexpr: str | None = None
    idlocation: str | None = None
    target: str | None = None
    targetexpr: str | None = None
    type: str | None = None
    typeexpr: str | None = None
    namelist: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()
    content: str | None = None


@dataclass(frozen=True)
class Cancel:
    """``<cancel sendid="...">``: cancel the pending ``<send>`` with that id (``line`` and
    ``column`` say where, for a diagnostic; they are not part of what it means), or
    ``<cancel sendidexpr>`` (``expr``, the id then empty)."""

    id: str
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)
    expr: str | None = None


@dataclass(frozen=True)
class Assign:
    """``<assign location="..." expr="...">`` (a ``<assign>``'s content is its ``expr``)."""

    location: str
    expr: str


@dataclass(frozen=True)
class If:
    """``<if cond>``, its ``<elseif cond>`` branches (each a condition and its steps) and the
    ``<else>`` steps (None: no ``<else>``)."""

    branches: tuple[tuple[str, tuple[Step, ...]], ...]
    otherwise: tuple[Step, ...] | None = None


@dataclass(frozen=True)
class Foreach:
    """``<foreach array item index>`` and its steps."""

    array: str
    item: str
    index: str | None
    steps: tuple[Step, ...] = ()


#: One piece of executable content.
Step = Raise | Log | Send | Cancel | Assign | If | Foreach


@dataclass(frozen=True)
class Data:
    """``<data id expr>`` (or its content, as an expression); ``expr`` None: no value."""

    id: str
    expr: str | None = None
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


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
class Invoke:
    """``<invoke>``: a child chart (its inline ``<content>``, or the file its ``src`` names,
    ``src`` then as written; None when only ``src`` is known, as export writes a child whose
    spec it does not have), its ``id`` or ``idlocation`` (neither: the machine makes one up),
    its ``<param>`` pairs (``location`` read as the expression naming it) or ``namelist``,
    ``autoforward`` and its ``<finalize>`` steps. ``shown`` is where the child chart is written,
    for diagnostics about it."""

    chart: Document | None
    id: str | None = None
    idlocation: str | None = None
    params: tuple[tuple[str, str], ...] = ()
    namelist: tuple[str, ...] = ()
    autoforward: bool = False
    finalize: tuple[Step, ...] = ()
    src: str | None = None
    shown: str = ""
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Node:
    """A ``<state>``, ``<parallel>``, ``<final>`` or ``<history>``, in document order.

    ``id`` is None when the document gives none (the translation names it). ``initial`` holds
    the ``initial`` attribute's ids or the target of the ``<initial>`` element (whose content is
    ``initial_steps``); empty means the first child. A history state keeps its ``type`` in
    ``history`` and its default transition in ``default`` and ``default_steps``. ``data`` is
    the state's ``<datamodel>``; a final state's ``donedata`` its ``<param>`` pairs or its
    ``<content>`` expression; ``invokes`` its ``<invoke>`` elements.
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
    data: tuple[Data, ...] = ()
    donedata: tuple[tuple[str, str], ...] | str | None = None
    invokes: tuple[Invoke, ...] = ()


@dataclass(frozen=True)
class Document:
    """A whole chart: its name (None: none given), the root's initial ids (empty: the first
    child) and every node in document order; ``parent`` is an index into ``nodes``. ``data``
    is the root's ``<datamodel>``, ``binding`` its ``binding`` attribute."""

    name: str | None
    initial: tuple[str, ...]
    nodes: tuple[Node, ...]
    data: tuple[Data, ...] = ()
    binding: str = "early"

    def children(self, parent: int | None) -> list[int]:
        return list(self._children.get(parent, ()))

    @cached_property
    def _children(self) -> dict[int | None, list[int]]:
        """Each parent's children in document order, found in one pass over the nodes."""
        children: dict[int | None, list[int]] = {}
        for index, node in enumerate(self.nodes):
            children.setdefault(node.parent, []).append(index)
        return children

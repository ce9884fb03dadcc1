"""An imported chart's ``<invoke>`` elements as spec text, and what ties a child's spec to its
parent's.

Each child chart becomes a spec of its own, its module named after the parent's and the
invoke's position in the document (``test192_invoke_0``; its own children's
``test192_invoke_0_invoke_0``, ...), which the parent's ``[[states.<s>.invoke]]`` table names:
``machine = "test192_invoke_0:Test192Invoke0Machine"``. The parent therefore imports the child
by that module name: both specs are generated into one folder on the import path.

SCXML binds a ``<param>`` or ``namelist`` item to the child's data only when the child declares
a ``<data>`` of that name (6.4): the others are left out, as SCXML leaves them out, unless their
value fails in the parent, which SCXML makes ``error.execution`` when the invoke starts (a
spec's params name the child's fields, so that failure cannot be written: not translatable).
An event the parent sends to a child (``<send target="#_<id>">``) is declared by the child, so
the parent's send names the child's event as mypy checks it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from statewright_compiler.scxml.document import Document, Invoke, Send
from statewright_compiler.scxml.events import steps_of
from statewright_compiler.scxml.spec_content import FAILING, ContentWriter
from statewright_compiler.scxml.toml_text import inline_table, toml_string

__all__ = [
    "ChildSpec",
    "InvokeRefused",
    "child_module",
    "data_fields",
    "invoke_items",
    "invokes_of",
    "sent_to",
]


@dataclass(frozen=True)
class ChildSpec:
    """What the parent's spec needs of a child's: its module, its machine name, its event
    names (SCXML name to spec name) and its data fields."""

    module: str
    name: str
    events: Mapping[str, str]
    fields: frozenset[str]


class InvokeRefused(Exception):
    """What of an invoke the spec cannot say, and why."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(why)
        self.what = what


def invokes_of(document: Document) -> Iterator[Invoke]:
    """Every ``<invoke>`` in document order."""
    for node in document.nodes:
        yield from node.invokes


def child_module(module: str, position: int) -> str:
    """The module of the child at ``position`` among the invokes of the chart ``module``."""
    return f"{module}_invoke_{position}"


def sent_to(document: Document, invoke: Invoke) -> list[str]:
    """The events ``document`` sends to the child ``invoke`` starts (``#_<id>``)."""
    if invoke.id is None:
        return []
    target = f"#_{invoke.id}"
    found = [
        step.event
        for node in document.nodes
        for step in steps_of(node)
        if isinstance(step, Send) and step.target == target and step.event
    ]
    return list(dict.fromkeys(found))


def data_fields(document: Document, implicit: Sequence[str]) -> frozenset[str]:
    """The chart's data fields: its ``<data>`` ids and the ``implicit`` ones (a foreach's)."""
    declared = {data.id for data in document.data}
    declared |= {data.id for node in document.nodes for data in node.data}
    return frozenset(declared | set(implicit))


def invoke_items(invoke: Invoke, child: ChildSpec, content: ContentWriter) -> list[tuple[str, str]]:
    """The keys of the invoke's ``[[states.<s>.invoke]]`` table (raises :class:`InvokeRefused`)."""
    items: list[tuple[str, str]] = []
    if invoke.id is not None:
        items.append(("id", toml_string(invoke.id)))
    elif invoke.idlocation is not None:
        items.append(("id_location", toml_string(invoke.idlocation)))
    items.append(("machine", toml_string(f"{child.module}:{child.name}Machine")))
    params = []
    named = [("<param>", name, text) for name, text in invoke.params]
    named += [("namelist item", name, name) for name in invoke.namelist]
    for what, name, expression in named:
        value = content.expression(expression)
        if name in child.fields:
            params.append((name, value))
        elif value == toml_string(FAILING):
            content.broken.pop()
            raise InvokeRefused(
                f"the {what} {name!r} of <invoke>",
                f"its value fails ({expression!r}), which SCXML makes error.execution when the "
                f"invoke starts, and the child declares no <data> {name!r}: a spec's params "
                "name the child's data fields",
            )
    if params:
        items.append(("params", inline_table(params)))
    if invoke.autoforward:
        items.append(("autoforward", "true"))
    if invoke.finalize:
        items.append(("finalize", content.steps(invoke.finalize, len("finalize = "))))
    return items

"""Writing a :class:`~document.Document` as SCXML 1.0 text.

Every text is an attribute value, escaped by :func:`attribute`: markup characters become
entities and tabs and line breaks character references, which XML's attribute-value
normalisation would otherwise turn into spaces. Characters XML 1.0 cannot hold at all are the
exporter's to refuse (:func:`xml_representable`), before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from statewright_compiler.scxml.document import (
    Assign,
    Cancel,
    Data,
    Document,
    Foreach,
    If,
    Invoke,
    Log,
    Node,
    NodeKind,
    Send,
    Step,
    Transition,
)
from statewright_compiler.scxml.read import SCXML_NAMESPACE

__all__ = ["attribute", "scxml_element", "scxml_text", "xml_representable"]

_ESCAPES: Final = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
    "\t": "&#9;", "\n": "&#10;", "\r": "&#13;",
}  # fmt: skip
#: XML 1.0's Char production, less what a character reference may not name either.
_NOT_XML: Final = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_INDENT: Final = "  "
#: The ``type`` of an SCXML child session, as SCXML spells it.
SCXML_TYPE: Final = "http://www.w3.org/TR/scxml/"


def xml_representable(text: str) -> bool:
    return _NOT_XML.search(text) is None


def attribute(name: str, value: str) -> str:
    return f' {name}="{"".join(_ESCAPES.get(char, char) for char in value)}"'


def _comment(text: str) -> str:
    """A comment holding ``text``: ``--`` cannot occur in one, nor end it."""
    return "<!-- " + text.replace("--", "- -").rstrip("-") + " -->"


class _Writer:
    def __init__(self, document: Document) -> None:
        self.document = document
        self.lines: list[str] = []

    def element(self, depth: int, tag: str, attributes: str, body: Sequence[str] = ()) -> None:
        indent = _INDENT * depth
        if not body:
            self.lines.append(f"{indent}<{tag}{attributes}/>")
            return
        self.lines.append(f"{indent}<{tag}{attributes}>")
        self.lines += body
        self.lines.append(f"{indent}</{tag}>")

    def steps(self, steps: Sequence[Step], depth: int) -> list[str]:
        lines: list[str] = []
        for step in steps:
            lines += self.step(step, depth)
        return lines

    def step(self, step: Step, depth: int) -> list[str]:
        indent = _INDENT * depth
        if isinstance(step, Log):
            label = attribute("label", step.label) if step.label is not None else ""
            expr = step.expr if step.expr is not None else repr(step.text)
            return [f"{indent}<log{label}{attribute('expr', expr)}/>"]
        if isinstance(step, Send):
            return self.send(step, depth)
        if isinstance(step, Cancel):
            if step.expr is not None:
                return [f"{indent}<cancel{attribute('sendidexpr', step.expr)}/>"]
            return [f"{indent}<cancel{attribute('sendid', step.id)}/>"]
        if isinstance(step, Assign):
            where = attribute("location", step.location) + attribute("expr", step.expr)
            return [f"{indent}<assign{where}/>"]
        if isinstance(step, If):
            return self.if_step(step, depth)
        if isinstance(step, Foreach):
            where = attribute("array", step.array) + attribute("item", step.item)
            if step.index is not None:
                where += attribute("index", step.index)
            return self.wrapped(depth, "foreach", where, self.steps(step.steps, depth + 1))
        return [f"{indent}<raise{attribute('event', step.event)}/>"]

    def wrapped(self, depth: int, tag: str, attributes: str, body: list[str]) -> list[str]:
        indent = _INDENT * depth
        if not body:
            return [f"{indent}<{tag}{attributes}/>"]
        return [f"{indent}<{tag}{attributes}>", *body, f"{indent}</{tag}>"]

    def if_step(self, step: If, depth: int) -> list[str]:
        indent = _INDENT * (depth + 1)
        (test, then), *others = step.branches
        body = self.steps(then, depth + 1)
        for cond, steps in others:
            body += [f"{indent}<elseif{attribute('cond', cond)}/>", *self.steps(steps, depth + 1)]
        if step.otherwise is not None:
            body += [f"{indent}<else/>", *self.steps(step.otherwise, depth + 1)]
        return self.wrapped(depth, "if", attribute("cond", test), body)

    def send(self, step: Send, depth: int) -> list[str]:
        attributes = ""
        for name, value in (
            ("event", step.event or None), ("eventexpr", step.eventexpr),
            ("target", step.target), ("targetexpr", step.targetexpr),
            ("type", step.type), ("typeexpr", step.typeexpr),
            ("id", step.id), ("idlocation", step.idlocation),
            ("delay", None if step.delayexpr or step.delay in ("", "0s") else step.delay),
            ("delayexpr", step.delayexpr),
            ("namelist", " ".join(step.namelist) or None),
        ):  # fmt: skip
            if value is not None:
                attributes += attribute(name, value)
        return self.wrapped(
            depth, "send", attributes, self.event_data(step.params, step.content, depth + 1)
        )

    def event_data(
        self, params: Sequence[tuple[str, str]], content: str | None, depth: int
    ) -> list[str]:
        indent = _INDENT * depth
        lines = [
            f"{indent}<param{attribute('name', name)}{attribute('expr', expr)}/>"
            for name, expr in params
        ]
        if content is not None:
            lines.append(f"{indent}<content{attribute('expr', content)}/>")
        return lines

    def datamodel(self, data: Sequence[Data], depth: int) -> None:
        if not data:
            return
        indent = _INDENT * (depth + 1)
        body = []
        for field in data:
            expr = attribute("expr", field.expr) if field.expr is not None else ""
            body.append(f"{indent}<data{attribute('id', field.id)}{expr}/>")
        self.element(depth, "datamodel", "", body)

    def transition(self, depth: int, transition: Transition, tag: str = "transition") -> None:
        attributes = ""
        if transition.events:
            attributes += attribute("event", " ".join(transition.events))
        if transition.cond is not None:
            attributes += attribute("cond", transition.cond)
        if transition.targets:
            attributes += attribute("target", " ".join(transition.targets))
        if transition.internal:
            attributes += attribute("type", "internal")
        self.element(depth, tag, attributes, self.steps(transition.steps, depth + 1))

    def invoke(self, invoke: Invoke, depth: int) -> None:
        """``<invoke>`` of SCXML's own kind, its chart inline (``<content>``) or named by
        ``src``."""
        attributes = attribute("type", SCXML_TYPE)
        for name, value in (
            ("id", invoke.id), ("idlocation", invoke.idlocation), ("src", invoke.src),
            ("namelist", " ".join(invoke.namelist) or None),
            ("autoforward", "true" if invoke.autoforward else None),
        ):  # fmt: skip
            if value is not None:
                attributes += attribute(name, value)
        body = self.event_data(invoke.params, None, depth + 1)
        if invoke.finalize:
            body += self.wrapped(depth + 1, "finalize", "", self.steps(invoke.finalize, depth + 2))
        if invoke.chart is not None and invoke.src is None:
            chart = scxml_element(invoke.chart, depth + 2)
            body += self.wrapped(depth + 1, "content", "", chart)
        self.element(depth, "invoke", attributes, body)

    def block(self, depth: int, tag: str, steps: Sequence[Step]) -> None:
        if steps:
            self.element(depth, tag, "", self.steps(steps, depth + 1))

    def node(self, index: int, depth: int) -> None:
        node: Node = self.document.nodes[index]
        attributes = attribute("id", node.id) if node.id is not None else ""
        if node.kind is NodeKind.HISTORY:
            attributes += attribute("type", node.history or "shallow")
        if node.initial and not node.initial_steps:
            attributes += attribute("initial", " ".join(node.initial))
        start = len(self.lines)
        inner = depth + 1
        self.datamodel(node.data, inner)
        if node.initial_steps:
            self.lines.append(f"{_INDENT * inner}<initial>")
            self.transition(inner + 1, Transition(targets=node.initial, steps=node.initial_steps))
            self.lines.append(f"{_INDENT * inner}</initial>")
        self.block(inner, "onentry", node.entry)
        self.block(inner, "onexit", node.exit)
        if node.kind is NodeKind.HISTORY and node.default:
            self.transition(inner, Transition(targets=node.default, steps=node.default_steps))
        for transition in node.transitions:
            self.transition(inner, transition)
        for invoke in node.invokes:
            self.invoke(invoke, inner)
        if node.donedata is not None:
            params = node.donedata if not isinstance(node.donedata, str) else ()
            content = node.donedata if isinstance(node.donedata, str) else None
            self.element(inner, "donedata", "", self.event_data(params, content, inner + 1))
        for child in self.document.children(index):
            self.node(child, inner)
        body = self.lines[start:]
        del self.lines[start:]
        self.element(depth, node.kind.value, attributes, body)


def scxml_text(document: Document, comment: str) -> str:
    """The whole file: an XML declaration, ``comment``, and the ``<scxml>`` element."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', _comment(comment)]
    return "\n".join([*lines, *scxml_element(document, 0)]) + "\n"


def scxml_element(document: Document, depth: int) -> list[str]:
    """The lines of the ``<scxml>`` element for ``document``, at ``depth`` (a child chart's is
    inside its parent's ``<invoke><content>``)."""
    writer = _Writer(document)
    writer.datamodel(document.data, depth + 1)
    for index in document.children(None):
        writer.node(index, depth + 1)
    attributes = attribute("xmlns", SCXML_NAMESPACE) + attribute("version", "1.0")
    # A spec's expressions (a log's text too: expr="'text'") are Python.
    attributes += attribute("datamodel", "python")
    if document.binding != "early":
        attributes += attribute("binding", document.binding)
    if document.name is not None:
        attributes += attribute("name", document.name)
    if document.initial:
        attributes += attribute("initial", " ".join(document.initial))
    indent = _INDENT * depth
    return [f"{indent}<scxml{attributes}>", *writer.lines, f"{indent}</scxml>"]

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
    Cancel,
    Document,
    Log,
    Node,
    NodeKind,
    Send,
    Step,
    Transition,
)
from statewright_compiler.scxml.read import SCXML_NAMESPACE

__all__ = ["attribute", "scxml_text", "xml_representable"]

_ESCAPES: Final = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
    "\t": "&#9;", "\n": "&#10;", "\r": "&#13;",
}  # fmt: skip
#: XML 1.0's Char production, less what a character reference may not name either.
_NOT_XML: Final = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_INDENT: Final = "  "


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
        indent = _INDENT * depth
        lines = []
        for step in steps:
            if isinstance(step, Log):
                label = attribute("label", step.label) if step.label is not None else ""
                lines.append(f"{indent}<log{label}{attribute('expr', repr(step.text))}/>")
            elif isinstance(step, Send):
                timer = attribute("id", step.id) if step.id is not None else ""
                delay = attribute("delay", step.delay)
                lines.append(f"{indent}<send{attribute('event', step.event)}{timer}{delay}/>")
            elif isinstance(step, Cancel):
                lines.append(f"{indent}<cancel{attribute('sendid', step.id)}/>")
            else:
                lines.append(f"{indent}<raise{attribute('event', step.event)}/>")
        return lines

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
        for child in self.document.children(index):
            self.node(child, inner)
        body = self.lines[start:]
        del self.lines[start:]
        self.element(depth, node.kind.value, attributes, body)


def scxml_text(document: Document, comment: str) -> str:
    """The whole file: an XML declaration, ``comment``, and the ``<scxml>`` element."""
    writer = _Writer(document)
    for index in document.children(None):
        writer.node(index, 1)
    attributes = attribute("xmlns", SCXML_NAMESPACE) + attribute("version", "1.0")
    if document.name is not None:
        attributes += attribute("name", document.name)
    if document.initial:
        attributes += attribute("initial", " ".join(document.initial))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', _comment(comment)]
    lines += [f"<scxml{attributes}>", *writer.lines, "</scxml>"]
    return "\n".join(lines) + "\n"

"""Reading SCXML elements: the checks every element gets, and executable content.

:class:`ElementReader` is what :mod:`importer` builds on: it reports diagnostics at the
element they concern, warns about attributes SCXML does not define, refuses elements it cannot
translate with the reason, and reads executable content (``<raise>``, ``<log>`` with a constant,
``<send>`` with a delay, ``<cancel>``) into the document model's steps.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Final

from statewright_compiler.diagnostics import Diagnostic, Severity
from statewright_compiler.scxml.document import Cancel, Log, Raise, Send, Step
from statewright_compiler.scxml.read import SCXML_NAMESPACE, Element
from statewright_compiler.spec.descriptors import EVENT_NAME
from statewright_compiler.spec.durations import DurationError, parse_duration

__all__ = ["UNSUPPORTED", "ElementReader"]

#: Why each SCXML element statewright does not translate cannot be translated.
_NO_DATA = "statewright charts have no data model: state lives in the context your handlers get"
_NO_CODE = "a spec holds no code: write it as a handler action in Python"
UNSUPPORTED: Final[Mapping[str, str]] = {
    "datamodel": _NO_DATA,
    "data": _NO_DATA,
    "assign": _NO_DATA,
    "script": _NO_CODE,
    "if": _NO_CODE,
    "elseif": _NO_CODE,
    "else": _NO_CODE,
    "foreach": _NO_CODE,
    "invoke": "statewright does not run child sessions",
    "finalize": "statewright does not run child sessions",
    "donedata": "done events carry no data in statewright",
    "param": "events raised by a chart carry no data in statewright",
    "content": "events raised by a chart carry no data in statewright",
}
#: The attributes each translated element may have (others are read past with a warning).
_ATTRIBUTES: Final[Mapping[str, frozenset[str]]] = {
    "scxml": frozenset({"initial", "name", "version", "datamodel", "binding"}),
    "state": frozenset({"id", "initial"}),
    # ``initial`` is not SCXML's on <parallel>, but it is an error there rather than ignored.
    "parallel": frozenset({"id", "initial"}),
    "final": frozenset({"id"}),
    "history": frozenset({"id", "type"}),
    "initial": frozenset(),
    "transition": frozenset({"event", "cond", "target", "type"}),
    "onentry": frozenset(),
    "onexit": frozenset(),
    "raise": frozenset({"event"}),
    "log": frozenset({"label", "expr"}),
    "send": frozenset(
        {"event", "eventexpr", "target", "targetexpr", "type", "typeexpr", "id", "idlocation"}
        | {"delay", "delayexpr", "namelist"}
    ),
    "cancel": frozenset({"sendid", "sendidexpr"}),
}
#: ``<send>`` attributes that compute at run time what a spec must say when it compiles.
_COMPUTED: Final = ("eventexpr", "targetexpr", "typeexpr", "idlocation", "namelist", "sendidexpr")
#: The ``type`` of SCXML's own event processor (the default), as the specification spells it.
_SCXML_PROCESSOR: Final = ("http://www.w3.org/TR/scxml/#SCXMLEventProcessor", "scxml")
#: The event names statewright's descriptors can match (``descriptors.py``).


class ElementReader:
    """Diagnostics about elements, and executable content."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, element: Element, message: str, hint: str | None = None) -> None:
        severity = Severity.WARNING if code == "scxml-ignored" else Severity.ERROR
        self.diagnostics.append(
            Diagnostic(
                code, self.shown, element.line, element.column, message, hint, severity=severity
            )
        )

    def is_scxml(self, element: Element) -> bool:
        return element.namespace in ("", SCXML_NAMESPACE)

    def refuse(self, element: Element, where: Element) -> None:
        """``element`` cannot appear in ``where``: unsupported, unknown, or misplaced."""
        name = element.name
        if not self.is_scxml(element):
            why = "it is outside the SCXML namespace"
        elif name in UNSUPPORTED:
            why = UNSUPPORTED[name]
        elif name not in _ATTRIBUTES:
            why = "it is not an SCXML element"
        else:
            self.report("scxml-invalid", element, f"{element.tag} cannot be in {where.tag}")
            return
        self.report(
            "scxml-unsupported",
            element,
            f"{element.tag} in {where.tag} cannot be translated: {why}",
        )

    def check(self, element: Element) -> None:
        """Warn about attributes SCXML does not define and text where SCXML has none."""
        known = _ATTRIBUTES.get(element.name, frozenset())
        for name, _ in element.attributes:
            if name not in known:
                self.report(
                    "scxml-ignored",
                    element,
                    f"{element.tag} has no attribute {name!r} in SCXML; it is ignored",
                )
        if element.text:
            self.diagnostics.append(
                Diagnostic(
                    "scxml-ignored",
                    self.shown,
                    element.text_line,
                    element.text_column,
                    f"text in {element.tag} means nothing in SCXML; it is ignored",
                    severity=Severity.WARNING,
                )
            )

    def event_name(self, element: Element, name: str, written: str, what: str = "name") -> bool:
        """Whether ``name`` (of the descriptor or event ``written``) is an event name statewright
        reads: SCXML's names restricted to ASCII, as its descriptors are (else reported)."""
        if written == "*" or EVENT_NAME.fullmatch(name):
            return True
        parts = name.split(".")
        if "*" in name or "" in parts or any(part != "".join(part.split()) for part in parts):
            self.report("scxml-invalid", element, f"{written!r} is not an SCXML event {what}")
        else:
            self.report(
                "scxml-unsupported", element, f"the event {written!r} cannot be translated: "
                "statewright event names are ASCII letters, digits, '_', '-' and ':', in parts "
                "separated by dots",
            )  # fmt: skip
        return False

    def content(self, block: Element) -> list[Step]:
        """Executable content: ``<raise>``, ``<log>`` with a constant, a delayed ``<send>``
        and ``<cancel>``; refuse the rest."""
        steps: list[Step] = []
        for element in block.children:
            name = element.name
            if not self.is_scxml(element) or name not in ("raise", "log", "send", "cancel"):
                self.refuse(element, block)
                continue
            self.check(element)
            for child in element.children:
                self.refuse(child, element)
            step: Step | None
            if name == "raise":
                step = self.raised(element, element.get("event"))
            elif name == "log":
                text = self.log_text(element)
                step = None if text is None else Log(text, element.get("label"))
            elif name == "send":
                step = self.send(element)
            else:
                step = self.cancel(element)
            if step is not None:
                steps.append(step)
        return steps

    def raised(self, element: Element, event: str | None) -> Raise | None:
        if event is None:
            self.report("scxml-invalid", element, f"{element.tag} has no event")
            return None
        return Raise(event) if self.event_name(element, event, event) else None

    def unsupported(self, element: Element, what: str, why: str) -> None:
        self.report("scxml-unsupported", element, f"{what} cannot be translated: {why}")

    def send(self, element: Element) -> Step | None:
        """A ``<send>`` to the chart itself: a timer (due at once without a delay: SCXML's
        external queue, which the timer drivers drain in the order sent), or ``#_internal``
        (a raise). Other targets need event I/O processors, which a chart does not have."""
        computed = [name for name in _COMPUTED if element.get(name) is not None]
        if computed:
            why = "a spec says what it sends when it compiles, not at run time"
            self.unsupported(element, f"<send {computed[0]}>", why)
            return None
        kind = element.get("type")
        target = element.get("target")
        foreign = kind is not None and kind not in _SCXML_PROCESSOR
        if foreign or target not in (None, "#_internal"):
            where = f"type={kind!r}" if foreign else f"target={target!r}"
            why = "statewright has no event I/O processors; send to other systems from a handler"
            self.unsupported(element, f"<send {where}>", why)
            return None
        delay = self.constant(element, "delay")
        if delay is None and element.get("delayexpr") is not None:
            return None  # reported by constant()
        if target == "#_internal":
            if delay is not None:
                self.report("scxml-invalid", element, "a <send> to #_internal has no delay")
                return None
            return self.raised(element, element.get("event"))
        if delay is None:
            delay = "0s"
        try:
            parse_duration(delay, allow_zero=True)
        except DurationError as error:
            self.unsupported(element, f"<send delay={delay!r}>", str(error))
            return None
        raised = self.raised(element, element.get("event"))
        return None if raised is None else Send(raised.event, delay, element.get("id"))

    def constant(self, element: Element, name: str) -> str | None:
        """``name`` as written, or ``name + "expr"`` when that is a string constant."""
        written = element.get(name)
        expression = element.get(name + "expr")
        if expression is None:
            return written
        value = self.literal(expression)
        if value is None:
            why = "only a constant string (such as '1s') is"
            self.unsupported(element, f"{element.tag[:-1]} {name}expr={expression!r}>", why)
        return value

    def cancel(self, element: Element) -> Cancel | None:
        if element.get("sendidexpr") is not None:
            why = "a spec says what it cancels when it compiles, not at run time"
            self.unsupported(element, "<cancel sendidexpr>", why)
            return None
        sendid = element.get("sendid")
        if not sendid:
            self.report("scxml-invalid", element, "<cancel> has no sendid")
            return None
        return Cancel(sendid, element.line, element.column)

    def literal(self, expression: str) -> str | None:
        """The string an expression is, when it is a string constant (``'pass'``)."""
        try:
            value = ast.literal_eval(expression.strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        return value if isinstance(value, str) else None

    def log_text(self, element: Element) -> str | None:
        expression = element.get("expr")
        if expression is None:
            return ""
        value = self.literal(expression)
        if value is None:
            why = "only a constant string (such as 'pass') is; log values from a handler action"
            self.unsupported(element, f"<log expr={expression!r}>", why)
        return value

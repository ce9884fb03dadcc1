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
from statewright_compiler.scxml.document import (
    Assign,
    Cancel,
    Foreach,
    If,
    Log,
    Raise,
    Send,
    Step,
)
from statewright_compiler.scxml.expressions import parse_tree
from statewright_compiler.scxml.read import SCXML_NAMESPACE, Element
from statewright_compiler.spec.descriptors import EVENT_NAME
from statewright_compiler.spec.durations import DurationError, parse_duration

__all__ = ["SCXML_PROCESSOR", "UNSUPPORTED", "ElementReader"]

#: Why each SCXML element statewright does not translate cannot be translated.
_NO_CODE = (
    "a spec holds no code, and nothing from a chart is ever run as code: write it as "
    "executable content (assign, if, foreach, ...) or as a handler action in Python"
)
UNSUPPORTED: Final[Mapping[str, str]] = {"script": _NO_CODE}
#: The attributes each translated element may have (others are read past with a warning).
_ATTRIBUTES: Final[Mapping[str, frozenset[str]]] = {
    "scxml": frozenset({"initial", "name", "version", "datamodel", "binding"}),
    "datamodel": frozenset(),
    "data": frozenset({"id", "expr", "src"}),
    "assign": frozenset({"location", "expr"}),
    "if": frozenset({"cond"}),
    "elseif": frozenset({"cond"}),
    "else": frozenset(),
    "foreach": frozenset({"array", "item", "index"}),
    "param": frozenset({"name", "expr", "location"}),
    "content": frozenset({"expr"}),
    "donedata": frozenset(),
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
    "invoke": frozenset(
        {"type", "typeexpr", "src", "srcexpr", "id", "idlocation", "namelist", "autoforward"}
    ),
    "finalize": frozenset(),
}
#: ``<send>`` attributes that compute at run time what a constant says.
_COMPUTED: Final = ("eventexpr", "targetexpr", "typeexpr", "idlocation", "namelist")
#: Event I/O processors SCXML defines that statewright does not have (a send to one is refused
#: rather than made an error.execution at run time: the chart means it to arrive).
_OTHER_PROCESSORS: Final = frozenset(
    {"http://www.w3.org/TR/scxml/#BasicHTTPEventProcessor", "basichttp"}
)
#: The elements of executable content.
_STEPS: Final = frozenset({"raise", "log", "send", "cancel", "assign", "if", "foreach"})
#: The ``type`` of SCXML's own event processor (the default), as the specification spells it.
SCXML_PROCESSOR: Final = ("http://www.w3.org/TR/scxml/#SCXMLEventProcessor", "scxml")
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

    def check(self, element: Element, *, text: bool = False) -> None:
        """Warn about attributes SCXML does not define and text where SCXML has none (``text``:
        the element's text means something)."""
        known = _ATTRIBUTES.get(element.name, frozenset())
        for name, _ in element.attributes:
            if name not in known:
                self.report(
                    "scxml-ignored",
                    element,
                    f"{element.tag} has no attribute {name!r} in SCXML; it is ignored",
                )
        if element.text and not text:
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
        """Executable content: ``<raise>``, ``<log>``, ``<send>``, ``<cancel>``, ``<assign>``,
        ``<if>`` and ``<foreach>``; refuse the rest (``<script>``: no code from a chart runs)."""
        return self.block(block, list(block.children))

    def block(self, block: Element, children: list[Element]) -> list[Step]:
        steps: list[Step] = []
        for element in children:
            name = element.name
            if not self.is_scxml(element) or name not in _STEPS:
                self.refuse(element, block)
                continue
            self.check(element, text=name == "assign")
            step: Step | None
            if name == "if":
                step = self.if_step(element)
            elif name == "foreach":
                step = self.foreach(element)
            elif name == "send":
                step = self.send(element)
            else:
                for child in element.children:
                    self.refuse(child, element)
                step = self.simple(element)
            if step is not None:
                steps.append(step)
        return steps

    def simple(self, element: Element) -> Step | None:
        name = element.name
        if name == "raise":
            return self.raised(element, element.get("event"))
        if name == "log":
            return self.log(element)
        if name == "assign":
            location = self.required(element, "location")
            expr = element.get("expr")
            if expr is None and element.text:
                expr = element.text
            if expr is None:
                self.report("scxml-invalid", element, "<assign> has no expr and no content")
                return None
            return None if location is None else Assign(location, expr)
        return self.cancel(element)

    def required(self, element: Element, attribute: str) -> str | None:
        value = element.get(attribute)
        if not value:
            self.report("scxml-invalid", element, f"{element.tag} has no {attribute}")
            return None
        return value

    def if_step(self, element: Element) -> If | None:
        """``<if>``: ``<elseif>`` and ``<else>`` are markers between its branches."""
        cond = self.required(element, "cond")
        branches: list[tuple[str, list[Element]]] = [(cond or "", [])]
        otherwise: list[Element] | None = None
        for child in element.children:
            if self.is_scxml(child) and child.name in ("elseif", "else"):
                self.check(child)
                for inner in child.children:
                    self.refuse(inner, child)
                if otherwise is not None:
                    self.report("scxml-invalid", child, f"{child.tag} after <else>")
                elif child.name == "else":
                    otherwise = []
                else:
                    branches.append((self.required(child, "cond") or "", []))
            else:
                (otherwise if otherwise is not None else branches[-1][1]).append(child)
        translated = tuple((test, tuple(self.block(element, body))) for test, body in branches)
        rest = None if otherwise is None else tuple(self.block(element, otherwise))
        return If(translated, rest) if all(test for test, _ in branches) else None

    def foreach(self, element: Element) -> Foreach | None:
        array = self.required(element, "array")
        item = self.required(element, "item")
        steps = tuple(self.block(element, list(element.children)))
        if array is None or item is None:
            return None
        return Foreach(array, item, element.get("index"), steps)

    def raised(self, element: Element, event: str | None) -> Raise | None:
        if event is None:
            self.report("scxml-invalid", element, f"{element.tag} has no event")
            return None
        return Raise(event) if self.event_name(element, event, event) else None

    def unsupported(self, element: Element, what: str, why: str) -> None:
        self.report("scxml-unsupported", element, f"{what} cannot be translated: {why}")

    def send(self, element: Element) -> Step | None:
        """A ``<send>``: its event, delay, id, target and type as constants or expressions,
        and its data (``namelist``, ``<param>``, ``<content>``). A constant target is the chart
        itself (none, ``#_internal``, ``#_scxml_<session>``); others are the spec's to refuse."""
        params, content = self.event_data(element)
        target = element.get("target")
        kind = element.get("type")
        delay = element.get("delay")
        delayexpr = element.get("delayexpr")
        if delayexpr is not None and self.literal(delayexpr) is not None:
            delay, delayexpr = self.literal(delayexpr), None  # a constant: the delay it says
        event = element.get("event")
        if event is not None and not self.event_name(element, event, event):
            return None
        if event is None and element.get("eventexpr") is None:
            self.report("scxml-invalid", element, "<send> has neither event nor eventexpr")
            return None
        if delay is not None and delay.startswith("."):
            delay = f"0{delay}"  # CSS2 time, as SCXML's delays are: ".5s" is "0.5s"
        if delay is not None:
            try:
                parse_duration(delay, allow_zero=True)
            except DurationError as error:
                self.unsupported(element, f"<send delay={delay!r}>", str(error))
                return None
        if kind in _OTHER_PROCESSORS:
            why = "statewright has no event I/O processors but SCXML's"
            self.unsupported(element, f"<send type={kind!r}>", why)
            return None
        if (
            target == "#_internal"
            and delay is None
            and event is not None
            and delayexpr is None
            and not any(element.get(name) for name in _COMPUTED)
            and not params
            and content is None
        ):
            return Raise(event)
        return Send(
            event or "",
            delay or ("" if delayexpr else "0s"),
            element.get("id"),
            eventexpr=element.get("eventexpr"),
            delayexpr=delayexpr,
            idlocation=element.get("idlocation"),
            target=target,
            targetexpr=element.get("targetexpr"),
            # SCXML's own processor is the default; a type no processor has is the machine's to
            # refuse when it runs (error.execution, as SCXML says).
            type=None if kind in SCXML_PROCESSOR else kind,
            typeexpr=element.get("typeexpr"),
            namelist=tuple((element.get("namelist") or "").split()),
            params=params,
            content=content,
        )

    def event_data(self, element: Element) -> tuple[tuple[tuple[str, str], ...], str | None]:
        """The ``<param>`` pairs (a ``location`` is read as the expression naming it) and the
        ``<content>`` expression of a ``<send>`` or ``<donedata>``."""
        params: list[tuple[str, str]] = []
        content: str | None = None
        for child in element.children:
            if not self.is_scxml(child) or child.name not in ("param", "content"):
                self.refuse(child, element)
                continue
            if child.name == "param":
                param = self.param(child)
                params += [param] if param is not None else []
                continue
            self.check(child, text=True)
            for inner in child.children:
                self.refuse(inner, child)
            if child.get("expr") is not None:
                content = child.get("expr")
            else:
                content = self.quoted(child.text)
        return tuple(params), content

    def param(self, element: Element) -> tuple[str, str] | None:
        """A ``<param>``'s name and expression (a ``location`` is read as the expression naming
        it)."""
        self.check(element)
        for inner in element.children:
            self.refuse(inner, element)
        name = self.required(element, "name")
        value = element.get("expr") or element.get("location")
        if value is None:
            self.report("scxml-invalid", element, "<param> has neither expr nor location")
            return None
        return (name, value) if name is not None else None

    def quoted(self, text: str) -> str:
        """``<content>`` text as an expression: itself when it is a Python literal, else the
        string it is (SCXML sends content it cannot parse as a string)."""
        tree = parse_tree(text)
        try:
            if tree is None:
                raise ValueError(text)
            ast.literal_eval(tree)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return repr(" ".join(text.split()))
        return text.strip()

    def donedata(self, element: Element) -> tuple[tuple[str, str], ...] | str:
        self.check(element)
        params, content = self.event_data(element)
        return content if content is not None else params

    def cancel(self, element: Element) -> Cancel | None:
        expr = element.get("sendidexpr")
        if expr is not None:
            return Cancel("", element.line, element.column, expr)
        sendid = element.get("sendid")
        if not sendid:
            self.report("scxml-invalid", element, "<cancel> has no sendid")
            return None
        return Cancel(sendid, element.line, element.column)

    def log(self, element: Element) -> Log:
        expression = element.get("expr")
        label = element.get("label")
        if expression is None:
            return Log("", label)
        value = self.literal(expression)
        return Log(value, label) if value is not None else Log("", label, expression)

    def literal(self, expression: str) -> str | None:
        """The string an expression is, when it is a string constant (``'pass'``)."""
        tree = parse_tree(expression)
        if tree is None:
            return None
        try:
            value = ast.literal_eval(tree)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        return value if isinstance(value, str) else None

"""From an SCXML element tree to a :class:`~scxml_document.Document`: what can be translated.

Nothing is dropped in silence. Each element statewright has no equivalent for (a data model,
scripts, ``<send>``, ``<invoke>``, conditionals, ...) is an ``scxml-unsupported`` error at the
place it is written, saying why; a document SCXML itself forbids (a target that is no state, two
states with one id, a misplaced element) is ``scxml-invalid``; an attribute SCXML does not define
is read past with an ``scxml-ignored`` warning. Any error means no spec is written.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from statewright_compiler.diagnostics import Diagnostic, Severity, SpecError
from statewright_compiler.scxml_document import (
    Document,
    Log,
    Node,
    NodeKind,
    Raise,
    Step,
    Transition,
)
from statewright_compiler.scxml_read import SCXML_NAMESPACE, Element, read_xml
from statewright_compiler.scxml_spec import ImportedSpec, spec_text

__all__ = ["UNSUPPORTED", "import_scxml", "read_document"]

#: Why each SCXML element statewright does not translate cannot be translated.
_NO_DATA = "statewright charts have no data model: state lives in the context your handlers get"
_NO_CODE = "a spec holds no code: write it as a handler action in Python"
_NO_TIMERS = "statewright has no timers yet (delayed events are the timers issue's target)"
UNSUPPORTED: Final[Mapping[str, str]] = {
    "datamodel": _NO_DATA,
    "data": _NO_DATA,
    "assign": _NO_DATA,
    "script": _NO_CODE,
    "if": _NO_CODE,
    "elseif": _NO_CODE,
    "else": _NO_CODE,
    "foreach": _NO_CODE,
    "send": "statewright has no event I/O processors: raise internal events with <raise>, "
    "send external ones from your program",
    "cancel": "it cancels a delayed <send>, and " + _NO_TIMERS,
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
}
#: The children each kind of state may have (SCXML 1.0, section 3).
_STATE_CHILDREN: Final[Mapping[NodeKind, frozenset[str]]] = {
    NodeKind.STATE: frozenset(
        {"onentry", "onexit", "transition", "initial", "state", "parallel", "final", "history"}
    ),
    NodeKind.PARALLEL: frozenset(
        {"onentry", "onexit", "transition", "state", "parallel", "history"}
    ),
    NodeKind.FINAL: frozenset({"onentry", "onexit"}),
    NodeKind.HISTORY: frozenset({"transition"}),
}
_KINDS: Final = {kind.value: kind for kind in NodeKind}
#: The event names statewright's descriptors can match (``descriptors.py``).
_EVENT_NAME: Final = re.compile(r"[A-Za-z0-9_\-:]+(?:\.[A-Za-z0-9_\-:]+)*")


def _tokens(text: str | None) -> tuple[str, ...]:
    return tuple(text.split()) if text else ()


class _Reader:
    """One pass over the tree, collecting nodes in document order and diagnostics."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.diagnostics: list[Diagnostic] = []
        self.nodes: list[Node] = []

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
        elif name == "send" and (element.get("delay") or element.get("delayexpr")):
            why = _NO_TIMERS
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

    # -- the document ----------------------------------------------------------------------------
    def document(self, root: Element) -> Document | None:
        if not self.is_scxml(root) or root.name != "scxml":
            self.report("scxml-invalid", root, f"the root element is {root.tag}, not <scxml>")
            return None
        self.check(root)
        for child in root.children:
            if self.is_scxml(child) and child.name in ("state", "parallel", "final"):
                self.state(child, None)
            else:
                self.refuse(child, root)
        if not self.nodes:
            self.report("scxml-invalid", root, "<scxml> has no states")
            return None
        document = Document(root.get("name"), _tokens(root.get("initial")), tuple(self.nodes))
        self.resolve(document, root)
        return document

    def state(self, element: Element, parent: int | None) -> None:
        kind = _KINDS[element.name]
        self.check(element)
        index = len(self.nodes)
        self.nodes.append(Node(None, kind))  # a placeholder: children come after it
        identifier = element.get("id")
        if identifier is not None and (not identifier or identifier != identifier.strip()):
            self.report("scxml-invalid", element, f"{element.tag} has the id {identifier!r}")
        entry: list[Step] = []
        exit: list[Step] = []
        transitions: list[Transition] = []
        initial = _tokens(element.get("initial"))
        initial_steps: tuple[Step, ...] = ()
        initial_element: Element | None = None
        history_type = None
        default: tuple[str, ...] = ()
        default_steps: tuple[Step, ...] = ()
        if kind is NodeKind.HISTORY:
            history_type = element.get("type") or "shallow"
            if history_type not in ("shallow", "deep"):
                self.report(
                    "scxml-invalid", element, f"<history> has the type {history_type!r}",
                    "the type is 'shallow' or 'deep'",
                )  # fmt: skip
        for child in element.children:
            name = child.name
            if not self.is_scxml(child) or name not in _STATE_CHILDREN[kind]:
                self.refuse(child, element)
            elif name == "onentry":
                self.check(child)
                entry += self.content(child)
            elif name == "onexit":
                self.check(child)
                exit += self.content(child)
            elif name in ("state", "parallel", "final", "history"):
                self.state(child, index)
            elif name == "initial":
                if initial or initial_element is not None:
                    self.report(
                        "scxml-invalid", child, f"{element.tag} has more than one initial",
                        "give either the initial attribute or one <initial> element",
                    )  # fmt: skip
                    continue
                initial_element = child
                initial, initial_steps = self.default_transition(child)
            elif kind is NodeKind.HISTORY:
                if default or default_steps:
                    self.report("scxml-invalid", child, "<history> has more than one transition")
                    continue
                default, default_steps = self.default_transition(child, wrapped=False)
            else:
                transitions.append(self.transition(child))
        if kind is NodeKind.PARALLEL and initial:
            self.report("scxml-invalid", element, "a <parallel> has no initial state")
        self.nodes[index] = Node(
            identifier,
            kind,
            parent,
            initial,
            initial_steps,
            tuple(entry),
            tuple(exit),
            history_type,
            default,
            default_steps,
            tuple(transitions),
            element.line,
            element.column,
        )

    def default_transition(
        self, element: Element, *, wrapped: bool = True
    ) -> tuple[tuple[str, ...], tuple[Step, ...]]:
        """The targets and content of ``<initial><transition>`` (``wrapped``) or of a history
        state's ``<transition>``: a transition without event or condition."""
        if wrapped:
            self.check(element)
            inner = [child for child in element.children if child.name == "transition"]
            for child in element.children:
                if child.name != "transition" or not self.is_scxml(child):
                    self.refuse(child, element)
            if len(inner) != 1:
                self.report("scxml-invalid", element, "<initial> needs exactly one <transition>")
                return (), ()
            element = inner[0]
        transition = self.transition(element)
        if transition.events or transition.cond is not None or not transition.targets:
            self.report(
                "scxml-invalid", element, "a default transition has targets, no event, no cond"
            )
        return transition.targets, transition.steps

    def transition(self, element: Element) -> Transition:
        self.check(element)
        events = _tokens(element.get("event"))
        for token in events:
            self.event_name(
                element, token.removesuffix(".*").removesuffix("."), token, "descriptor"
            )
        kind = element.get("type") or "external"
        if kind not in ("internal", "external"):
            self.report("scxml-invalid", element, f"<transition> has the type {kind!r}")
        return Transition(
            events,
            element.get("cond"),
            _tokens(element.get("target")),
            kind == "internal",
            tuple(self.content(element)),
            element.line,
            element.column,
        )

    def event_name(self, element: Element, name: str, written: str, what: str = "name") -> bool:
        """Whether ``name`` (of the descriptor or event ``written``) is an event name statewright
        reads: SCXML's names restricted to ASCII, as its descriptors are (else reported)."""
        if written == "*" or _EVENT_NAME.fullmatch(name):
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
        """Executable content: ``<raise>`` and ``<log>`` with a constant; refuse the rest."""
        steps: list[Step] = []
        for element in block.children:
            if not self.is_scxml(element) or element.name not in ("raise", "log"):
                self.refuse(element, block)
                continue
            self.check(element)
            for child in element.children:
                self.refuse(child, element)
            if element.name == "raise":
                event = element.get("event")
                if event is None:
                    self.report("scxml-invalid", element, "<raise> has no event")
                    continue
                if not self.event_name(element, event, event):
                    continue
                steps.append(Raise(event))
            else:
                text = self.log_text(element)
                if text is not None:
                    steps.append(Log(text, element.get("label")))
        return steps

    def log_text(self, element: Element) -> str | None:
        expression = element.get("expr")
        if expression is None:
            return ""
        try:
            value = ast.literal_eval(expression.strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value = None
        if not isinstance(value, str):
            self.report(
                "scxml-unsupported",
                element,
                f"<log expr={expression!r}> cannot be translated: only a constant string "
                "(such as 'pass') is; log values from a handler action",
            )
            return None
        return value

    # -- references ------------------------------------------------------------------------------
    def resolve(self, document: Document, root: Element) -> None:
        """Every id a transition, an initial or a history default names is a state's."""
        where: dict[str, int] = {}
        for index, node in enumerate(document.nodes):
            if node.id is None:
                continue
            if node.id in where:
                first = document.nodes[where[node.id]]
                self.at(node.line, node.column, f"the id {node.id!r} is used twice "
                        f"(first on line {first.line})")  # fmt: skip
            else:
                where[node.id] = index
        for node in document.nodes:
            place = (node.line, node.column)
            for target in node.initial:
                self.known(target, where, place, "initial state")
            for target in node.default:
                self.known(target, where, place, "history default")
            for transition in node.transitions:
                for target in transition.targets:
                    self.known(target, where, (transition.line, transition.column), "target")
        for target in document.initial:
            self.known(target, where, (root.line, root.column), "initial state")

    def known(
        self, target: str, where: Mapping[str, int], place: tuple[int, int], what: str
    ) -> None:
        if target not in where:
            self.at(*place, f"the {what} {target!r} is not the id of a state")

    def at(self, line: int, column: int, message: str) -> None:
        self.diagnostics.append(Diagnostic("scxml-invalid", self.shown, line, column, message))


def read_document(root: Element, shown: str) -> tuple[Document | None, list[Diagnostic]]:
    """The translatable chart in ``root`` and every diagnostic (errors and warnings) found."""
    reader = _Reader(shown)
    document = reader.document(root)
    return document, reader.diagnostics


def import_scxml(path: Path, shown: str) -> tuple[ImportedSpec | None, list[Diagnostic]]:
    """The spec translated from the SCXML file at ``path`` (None when an error was found), and
    every diagnostic, warnings included, in the order of their positions."""
    try:
        root = read_xml(path, shown)
    except SpecError as error:
        return None, list(error.diagnostics)
    document, diagnostics = read_document(root, shown)
    spec = None
    if document is not None:
        sound = not any(diagnostic.is_error for diagnostic in diagnostics)
        spec, errors = spec_text(document, shown, path.stem, write=sound)
        diagnostics += errors
    diagnostics.sort(key=lambda diagnostic: (diagnostic.line, diagnostic.column))
    if any(diagnostic.is_error for diagnostic in diagnostics):
        return None, diagnostics
    return spec, diagnostics

"""From an SCXML element tree to a :class:`~document.Document`: what can be translated.

Nothing is dropped in silence. Each element statewright has no equivalent for (scripts, a
``<send>`` to another system, an ``<invoke>`` whose chart is found at run time, ...) is an
``scxml-unsupported`` error at the place it is written, saying why; a document SCXML itself
forbids (a target that is no state, two states with one id, a misplaced element) is
``scxml-invalid``; an attribute SCXML does not define is read past with an ``scxml-ignored``
warning. Any error means no spec is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.scxml.compile_check import compiler_errors
from statewright_compiler.scxml.content import UNSUPPORTED
from statewright_compiler.scxml.document import (
    Data,
    Document,
    Invoke,
    Log,
    Node,
    NodeKind,
    Raise,
    Step,
    Transition,
)
from statewright_compiler.scxml.invoke_read import InvokeElements
from statewright_compiler.scxml.invoke_text import child_module, invokes_of, sent_to
from statewright_compiler.scxml.names import module_name
from statewright_compiler.scxml.read import Element, read_xml
from statewright_compiler.scxml.spec_text import ImportedSpec, spec_text

__all__ = ["UNSUPPORTED", "import_scxml", "read_document"]

#: The children each kind of state may have (SCXML 1.0, section 3).
_STATE_CHILDREN: Final[Mapping[NodeKind, frozenset[str]]] = {
    NodeKind.STATE: frozenset(
        {"onentry", "onexit", "transition", "initial", "state", "parallel", "final", "history"}
        | {"datamodel", "invoke"}
    ),
    NodeKind.PARALLEL: frozenset(
        {"onentry", "onexit", "transition", "state", "parallel", "history", "datamodel"}
        | {"invoke"}
    ),
    NodeKind.FINAL: frozenset({"onentry", "onexit", "donedata"}),
    NodeKind.HISTORY: frozenset({"transition"}),
}
_KINDS: Final = {kind.value: kind for kind in NodeKind}


def _tokens(text: str | None) -> tuple[str, ...]:
    return tuple(text.split()) if text else ()


def _may_fail(step: Step) -> bool:
    """Whether a step can raise ``error.execution`` (it has an expression, or sends)."""
    return not isinstance(step, Raise) and not (isinstance(step, Log) and step.expr is None)


class _Reader(InvokeElements):
    """One pass over the tree, collecting nodes in document order and diagnostics; a child
    chart (``<invoke>``) is read by a reader of its own, into the same diagnostics."""

    def __init__(self, shown: str, base: Path | None = None, chain: tuple[Path, ...] = ()) -> None:
        super().__init__(shown)
        self.nodes: list[Node] = []
        self.base = base
        self.chain = chain

    def child_document(
        self, root: Element, shown: str, base: Path | None, chain: tuple[Path, ...]
    ) -> Document | None:
        reader = _Reader(shown, base, chain)
        document = reader.document(root)
        self.diagnostics += reader.diagnostics
        return document

    # -- the document ----------------------------------------------------------------------------
    def document(self, root: Element) -> Document | None:
        if not self.is_scxml(root) or root.name != "scxml":
            self.report("scxml-invalid", root, f"the root element is {root.tag}, not <scxml>")
            return None
        self.check(root)
        data: list[Data] = []
        for child in root.children:
            if self.is_scxml(child) and child.name in ("state", "parallel", "final"):
                self.state(child, None)
            elif self.is_scxml(child) and child.name == "datamodel":
                data += self.datamodel(child)
            else:
                self.refuse(child, root)
        if not self.nodes:
            self.report("scxml-invalid", root, "<scxml> has no states")
            return None
        initial = self.ids(root, "initial")
        binding = root.get("binding") or "early"
        if binding not in ("early", "late"):
            self.report("scxml-invalid", root, f"<scxml> has the binding {binding!r}")
        document = Document(root.get("name"), initial, tuple(self.nodes), tuple(data), binding)
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
        initial = self.ids(element, "initial")
        initial_steps: tuple[Step, ...] = ()
        initial_element: Element | None = None
        history_type = None
        default: tuple[str, ...] = ()
        default_steps: tuple[Step, ...] = ()
        data: list[Data] = []
        donedata: tuple[tuple[str, str], ...] | str | None = None
        invokes: list[Invoke] = []
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
            elif name in ("onentry", "onexit"):
                self.check(child)
                steps = entry if name == "onentry" else exit
                if steps and any(_may_fail(step) for step in steps):
                    self.unsupported(
                        child, f"a second <{name}> after one whose content may fail",
                        f"SCXML runs each <{name}> as its own block, an error stopping only "
                        "its own; a spec's entry and exit are one block each",
                    )  # fmt: skip
                steps += self.content(child)
            elif name in ("state", "parallel", "final", "history"):
                self.state(child, index)
            elif name == "datamodel":
                data += self.datamodel(child)
            elif name == "invoke":
                invoke = self.invoke(child)
                invokes += [invoke] if invoke is not None else []
            elif name == "donedata":
                if donedata is not None:
                    self.report("scxml-invalid", child, f"{element.tag} has two <donedata>")
                donedata = self.donedata(child)
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
            tuple(data),
            donedata,
            tuple(invokes),
        )

    def datamodel(self, element: Element) -> list[Data]:
        """``<data>`` declarations: an id and an ``expr`` or inline content (``src`` reads
        a file or a URL, which a spec never does)."""
        self.check(element)
        data: list[Data] = []
        for child in element.children:
            if not self.is_scxml(child) or child.name != "data":
                self.refuse(child, element)
                continue
            self.check(child, text=True)
            for inner in child.children:
                self.refuse(inner, child)
            identifier = self.required(child, "id")
            if child.get("src") is not None:
                why = "a spec's data is in the spec: write the value inline (expr or content)"
                self.unsupported(child, f"<data src={child.get('src')!r}>", why)
                continue
            expr = child.get("expr")
            if expr is None and child.text:
                expr = self.quoted(child.text)
            if identifier is not None:
                data.append(Data(identifier, expr, child.line, child.column))
        return data

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
            self.ids(element, "target"),
            kind == "internal",
            tuple(self.content(element)),
            element.line,
            element.column,
        )

    def ids(self, element: Element, attribute: str) -> tuple[str, ...]:
        """The state ids an ``initial`` or ``target`` lists, each once: they name a set of
        states (a second mention is a warning, not a second target)."""
        ids = _tokens(element.get(attribute))
        for repeated in dict.fromkeys(i for n, i in enumerate(ids) if i in ids[:n]):
            self.report(
                "scxml-ignored",
                element,
                f"the {attribute} {repeated!r} is listed twice: a transition enters a set of "
                "states",
            )
        return tuple(dict.fromkeys(ids))

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


def read_document(
    root: Element, shown: str, path: Path | None = None
) -> tuple[Document | None, list[Diagnostic]]:
    """The translatable chart in ``root`` (read from the file ``path``, whose folder holds the
    charts its invokes name) and every diagnostic (errors and warnings) found."""
    chain = (path.resolve(),) if path is not None else ()
    reader = _Reader(shown, path.parent if path is not None else None, chain)
    document = reader.document(root)
    return document, reader.diagnostics


def _translate(
    document: Document,
    shown: str,
    stem: str,
    module: str,
    write: bool,
    child: bool = False,
    received: Sequence[str] = (),
) -> tuple[ImportedSpec | None, list[Diagnostic]]:
    """The spec of ``document`` and of each chart it invokes (first: the parent's spec names
    theirs), each checked by the compiler; ``module`` names the spec's module, which a
    ``child`` spec says (its parent imports it by that name)."""
    diagnostics: list[Diagnostic] = []
    children = []
    for position, invoke in enumerate(invokes_of(document)):
        name = child_module(module, position)
        sent = sent_to(document, invoke)
        assert invoke.chart is not None  # read from the chart: every invoke has its child's
        found, errors = _translate(invoke.chart, invoke.shown, name, name, write, True, sent)
        diagnostics += errors
        children += [found] if found is not None else []
    own = module if child else None
    spec, errors = spec_text(
        document, shown, stem, write=write, module=own, received=received, children=children
    )
    diagnostics += errors
    if spec is None:
        return None, diagnostics
    errors = compiler_errors(spec, shown)
    if errors:
        # A union the rule inferred (int | str) may be a type error where a slot wants one of
        # its members: then the chart's fields that have a union are Any.
        widened, _ = spec_text(
            document, shown, stem, widen=True, module=own, received=received, children=children
        )
        if widened is not None and widened.text != spec.text:
            spec, errors = widened, compiler_errors(widened, shown)
    return spec, diagnostics + errors


def import_scxml(path: Path, shown: str) -> tuple[ImportedSpec | None, list[Diagnostic]]:
    """The spec translated from the SCXML file at ``path`` (None when an error was found), with
    the specs of the charts it invokes (:attr:`ImportedSpec.children`), and every diagnostic,
    warnings included, in the order of their positions."""
    try:
        root = read_xml(path, shown)
    except SpecError as error:
        return None, list(error.diagnostics)
    document, diagnostics = read_document(root, shown, path)
    spec = None
    if document is not None:
        sound = not any(diagnostic.is_error for diagnostic in diagnostics)
        spec, errors = _translate(document, shown, path.stem, module_name(path.stem), sound)
        diagnostics += errors
    diagnostics.sort(key=lambda diagnostic: (diagnostic.line, diagnostic.column))
    if any(diagnostic.is_error for diagnostic in diagnostics):
        return None, diagnostics
    return spec, diagnostics

"""From a :class:`~document.Document` to the text of a statewright spec (a statechart).

The spec reads like a hand-written one: ``[machine]``, the events, then one ``[states.<name>]``
table per SCXML state in document order, children naming their ``parent``. Transitions go in
the state's ``on`` table, keyed by the SCXML descriptors as written. SCXML tries a state's
transitions in document order whatever their events; an ``on`` table groups them by key, which
keeps that order only while each key's transitions are written together, so a state whose
descriptors interleave gets its evented transitions as ``[[transitions]]`` entries in document
order instead. Every text reaches the file through :mod:`toml_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from statewright_compiler.diagnostics import Diagnostic
from statewright_compiler.emit import Artifact
from statewright_compiler.scxml.conditions import Guard
from statewright_compiler.scxml.document import (
    Document,
    Invoke,
    Node,
    NodeKind,
    Step,
    Transition,
)
from statewright_compiler.scxml.events import chart_events
from statewright_compiler.scxml.expressions import ChartExpressionError
from statewright_compiler.scxml.invoke_text import (
    ChildSpec,
    InvokeRefused,
    data_fields,
    invoke_items,
    invokes_of,
)
from statewright_compiler.scxml.names import machine_name, state_names
from statewright_compiler.scxml.preemption import live_transitions
from statewright_compiler.scxml.spec_conditions import ConditionWriter
from statewright_compiler.scxml.spec_content import ContentWriter
from statewright_compiler.scxml.toml_text import (
    inline_table,
    toml_array,
    toml_key,
    toml_string,
)
from statewright_compiler.spec.literals import comment_text

__all__ = ["COND_METADATA", "ImportedSpec", "spec_files", "spec_text"]

#: The metadata key of a transition that keeps its SCXML ``cond`` (see :class:`ImportedSpec`).
COND_METADATA: Final = "scxml_cond"
_KIND_KEYS: Final = {
    NodeKind.PARALLEL: "parallel",
    NodeKind.FINAL: "final",
    NodeKind.HISTORY: "history",
}


@dataclass(frozen=True)
class ImportedSpec:
    """The spec's text, and each named guard with the SCXML expression it stands for.

    The spec carries the same: a transition with a named guard has ``metadata.scxml_cond``,
    its whole ``cond``; when the guard also tests ``in(...)``, each named guard's own part of
    the expression is under the guard's name too. ``origins`` holds, for each line of the text,
    the line and column of the SCXML element it was written from, so that what the compiler
    says of the spec can be said of the document. A chart with ``<invoke>`` has a spec per child
    chart, each with its own (:mod:`invoke_text`).
    """

    text: str
    guards: tuple[tuple[str, str], ...]
    origins: tuple[tuple[int, int], ...] = ()
    child: ChildSpec | None = None
    """What a parent's spec names of this one, when it is a child chart's (an ``<invoke>``)."""
    children: tuple[ImportedSpec, ...] = ()
    """The specs of the charts this one invokes, in document order."""


class _Writer(ConditionWriter):
    def __init__(
        self,
        document: Document,
        shown: str,
        widen: bool = False,
        received: Sequence[str] = (),
        children: Sequence[ChildSpec] = (),
    ) -> None:
        self.document = document
        self.shown = shown
        self.names = state_names([node.id for node in document.nodes])
        self.by_id = {
            node.id: name
            for node, name in zip(document.nodes, self.names, strict=True)
            if node.id is not None
        }
        self.chart_events = chart_events(document, self.names, received)
        self.events = self.chart_events.names
        self.content = ContentWriter(document, self.events, self.by_id.get, widen=widen)
        self.children = list(children)  # one per invoke, in document order (or none: failed)
        pairs = zip(invokes_of(document), children, strict=True) if children else ()
        self.content.child_events = {
            f"#_{invoke.id}": child.events for invoke, child in pairs if invoke.id is not None
        }
        self.diagnostics: list[Diagnostic] = []
        self.guard_count = 0
        self.named_guards: list[tuple[str, str]] = []
        self.guards: dict[int, Guard] = {}  # by id() of the transition
        self.conds: dict[int, str] = {}  # by id() of the transition: its cond expression
        self.lines: list[str] = []
        self.origins: list[tuple[int, int]] = []  # per line: the SCXML element it came from
        self.origin = (1, 1)
        self.warnings: list[Diagnostic] = []
        self.live: list[list[Transition]] = []  # per node: the transitions SCXML can take
        for node in document.nodes:
            live, warnings = live_transitions(node.transitions, self.chart_events.values, shown)
            self.live.append(live)
            self.warnings += warnings

    # -- values ----------------------------------------------------------------------------------
    def targets(self, ids: Sequence[str]) -> str:
        if len(ids) == 1:
            return toml_string(self.by_id[ids[0]])
        return toml_array(toml_string(self.by_id[target]) for target in ids)

    def steps(self, steps: Sequence[Step], prefix: int | None) -> str:
        return self.content.steps(steps, prefix)

    def with_steps(self, targets: Sequence[str], steps: Sequence[Step]) -> str:
        """An initial or history default: targets, or a table when it has content."""
        if not steps:
            return self.targets(targets)
        return inline_table([("to", self.targets(targets)), ("actions", self.steps(steps, None))])

    def alternative(self, transition: Transition) -> list[tuple[str, str]]:
        """The keys of one transition's table."""
        items = [("to", self.targets(transition.targets))]
        if transition.internal:
            items.append(("type", toml_string("internal")))
        guard = self.guards.get(id(transition))
        if id(transition) in self.conds:
            items.append(("cond", self.conds[id(transition)]))
        if guard is not None:
            items.append(("guard", toml_string(guard.expression)))
        if transition.steps:
            items.append(("actions", self.steps(transition.steps, None)))
        if id(transition) in self.conds:  # the chart's own text, beside its translation
            assert transition.cond is not None
            items.append(
                ("metadata", inline_table([(COND_METADATA, toml_string(transition.cond))]))
            )
        if guard is not None and guard.named:
            assert transition.cond is not None
            metadata = [(COND_METADATA, toml_string(transition.cond))]
            if guard.expression != guard.named[0][0]:
                metadata += [(name, toml_string(text)) for name, text in guard.named]
            items.append(("metadata", inline_table(metadata)))
        return items

    # -- tables ----------------------------------------------------------------------------------
    def add(self, text: str, origins: Sequence[tuple[int, int]] = ()) -> None:
        """Lines of spec text; each from the element in ``origins`` (default: ``origin``)."""
        for number, line in enumerate(text.split("\n")):
            self.lines.append(line)
            self.origins.append(origins[number] if number < len(origins) else self.origin)

    def emit(self, key: str, value: str, origins: Sequence[tuple[int, int]] = ()) -> None:
        self.add(f"{key} = {value}", origins)

    def emit_alternatives(
        self, key: str, transitions: Sequence[Transition], *, short: bool
    ) -> None:
        """``key = "target"`` (``short``, when that says it all), a table, or an array of
        tables (one a line: ``key = [``, then each alternative, then ``]``)."""
        rendered = []
        for transition in transitions:
            items = self.alternative(transition)
            plain = short and len(transitions) == 1 and len(items) == 1
            plain = plain and len(transition.targets) == 1
            rendered.append(items[0][1] if plain else inline_table(items))
        value = rendered[0] if len(rendered) == 1 else toml_array(rendered, split=True)
        where = [(transition.line, transition.column) for transition in transitions]
        self.emit(key, value, [where[0], *where, where[-1]] if len(rendered) > 1 else where)

    def machine(self, stem: str, module: str | None) -> None:
        document = self.document
        if document.initial:
            initial = [self.by_id[target] for target in document.initial]
        else:
            initial = [self.names[document.children(None)[0]]]
        self.add(f"# Translated from SCXML by statewright import-scxml: {comment_text(self.shown)}")
        self.add("[machine]")
        self.emit("name", toml_string(machine_name(document.name, stem)))
        if module is not None:  # a child chart's: the module its parent's spec imports
            self.emit("module", toml_string(module))
        self.emit("initial", self.names_value(initial))
        self.emit("on_error", toml_string("event"))
        if document.binding != "early":
            self.emit("binding", toml_string(document.binding))
        payloads = self.content.payloads()
        if self.events:
            self.add("\n[events]")
            for value, name in self.events.items():
                table = [] if value == name else [("value", toml_string(value))]
                if value in payloads:
                    fields = [(field, toml_string("Any")) for field in payloads[value]]
                    table.append(("payload", inline_table(fields)))
                self.emit(name, inline_table(table))
        data = (*document.data, *self.content.implicit())
        if data:
            self.add("\n[data]")
            for key, value in self.content.fields(data):
                self.emit(key, value)

    def names_value(self, names: Sequence[str]) -> str:
        if len(names) == 1:
            return toml_string(names[0])
        return toml_array(map(toml_string, names))

    def initial(self, index: int, node: Node) -> None:
        """A compound state's initial, unless it is the default both languages share: the
        first child that is not a history state."""
        nodes = self.document.nodes
        states = [i for i in self.document.children(index) if nodes[i].kind is not NodeKind.HISTORY]
        default = (nodes[states[0]].id,) if states else ()
        if node.initial_steps or (node.initial and node.initial != default):
            self.emit("initial", self.with_steps(node.initial, node.initial_steps))

    def state(self, index: int, node: Node) -> None:
        name = self.names[index]
        self.origin = (node.line, node.column)
        self.add(f"\n[states.{name}]")
        if node.parent is not None:
            self.emit("parent", toml_string(self.names[node.parent]))
        if node.kind in _KIND_KEYS:
            self.emit("kind", toml_string(_KIND_KEYS[node.kind]))
        if node.id is not None and node.id != name:
            self.emit("value", toml_string(node.id))
        if node.kind is NodeKind.HISTORY:
            self.emit("history", toml_string(node.history or "shallow"))
            if node.default:
                self.emit("default", self.with_steps(node.default, node.default_steps))
        self.initial(index, node)
        for key, steps in (("entry", node.entry), ("exit", node.exit)):
            if steps:
                self.emit(key, self.steps(steps, len(key) + 3))
        if node.donedata is not None:
            self.emit("donedata", self.content.donedata(node.donedata))
        in_table, transitions = self.in_file_order(index)
        evented = [transition for transition in transitions if transition.events]
        eventless = [transition for transition in transitions if not transition.events]
        keys = [self.chart_events.key(transition.events) for transition in evented]
        if in_table:
            groups: dict[str, list[Transition]] = {}
            for key, transition in zip(keys, evented, strict=True):
                groups.setdefault(key, []).append(transition)
            for key, group in groups.items():
                self.emit_alternatives(f"on.{toml_key(key)}", group, short=True)
        if eventless:
            self.emit_alternatives("always", eventless, short=False)
        if node.data:
            self.origin = (node.line, node.column)
            self.add(f"\n[states.{name}.data]")
            for key, value in self.content.fields(node.data):
                self.emit(key, value)
        for invoke in node.invokes:
            self.invoke(name, invoke)
        if in_table:
            return
        for key, transition in zip(keys, evented, strict=True):
            self.origin = (transition.line, transition.column)
            self.add("\n[[transitions]]")
            self.emit("from", toml_string(name))
            self.emit("event", toml_string(key))
            for item, value in self.alternative(transition):
                self.emit(item, value)

    def invoke(self, state: str, invoke: Invoke) -> None:
        self.origin = (invoke.line, invoke.column)
        try:
            items = invoke_items(invoke, self.children.pop(0), self.content)
        except InvokeRefused as error:
            message = f"{error.what} cannot be translated: {error}"
            where = (self.shown, *self.origin)
            self.diagnostics.append(Diagnostic("scxml-unsupported", *where, message))
            return
        self.add(f"\n[[states.{state}.invoke]]")
        for key, value in items:
            self.emit(key, value)

    def text(self, stem: str, module: str | None = None) -> str | None:
        """The spec, or None when an expression cannot be translated (reported)."""
        try:
            self.machine(stem, module)
        except ChartExpressionError as error:
            self.refuse_expression(error, *self.origin)
        self.warn_broken()
        for index, node in enumerate(self.document.nodes):
            try:
                self.state(index, node)
            except ChartExpressionError as error:
                self.refuse_expression(error, *self.origin)
            self.warn_broken()
        name = machine_name(self.document.name, stem)
        if self.content.reads_name and self.document.name not in (None, name):
            message = (
                f"<scxml name={self.document.name!r}> cannot be translated: the chart reads "
                f"_name, which is the spec's machine name, {name!r} (a PascalCase class prefix)"
            )
            self.diagnostics.append(Diagnostic("scxml-unsupported", self.shown, 1, 1, message))
        return None if self.diagnostics else "\n".join(self.lines) + "\n"


def spec_text(
    document: Document,
    shown: str,
    stem: str,
    *,
    write: bool = True,
    widen: bool = False,
    module: str | None = None,
    received: Sequence[str] = (),
    children: Sequence[ImportedSpec] = (),
) -> tuple[ImportedSpec | None, list[Diagnostic]]:
    """The spec for ``document`` (read from ``shown``, named after ``stem`` when it has no name),
    or None and the diagnostics saying why it cannot be translated. With ``write`` False only
    the conditions are checked: the document has errors already, but theirs are worth reporting
    in the same run. With ``widen`` a field whose inferred type is a union is ``Any``. A child
    chart's spec names its ``module``, and declares the events its parent sends it
    (``received``); ``children`` are the specs of the charts ``document`` invokes."""
    found = [child.child for child in children if child.child is not None]
    if len(found) != len(list(invokes_of(document))):
        write, found = False, []  # a child chart cannot be translated (reported)
    writer = _Writer(document, shown, widen, received, found)
    writer.translate_guards()
    if writer.diagnostics or not write:
        return None, writer.diagnostics + writer.warnings
    text = writer.text(stem, module)
    if text is None:
        return None, writer.diagnostics + writer.warnings
    fields = data_fields(document, [data.id for data in writer.content.implicit()])
    name = machine_name(document.name, stem)
    child = ChildSpec(module, name, writer.events, fields) if module is not None else None
    spec = ImportedSpec(
        text, tuple(writer.named_guards), tuple(writer.origins), child, tuple(children)
    )
    return spec, writer.warnings


def spec_files(spec: ImportedSpec, output: str) -> list[Artifact]:
    """``spec`` written to ``output``, and the specs of the charts it invokes: each child's
    beside it, named after its module (which the parent imports)."""
    found = [Artifact(Path(output), spec.text)]
    for child in spec.children:
        assert child.child is not None  # a child chart's spec names its module
        found += spec_files(child, str(Path(output).parent / f"{child.child.module}.toml"))
    return found

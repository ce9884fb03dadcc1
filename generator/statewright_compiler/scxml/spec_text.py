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
from typing import Final

from statewright_compiler.diagnostics import Diagnostic, Severity
from statewright_compiler.scxml.conditions import CondError, Guard, translate_cond
from statewright_compiler.scxml.document import (
    Document,
    Node,
    NodeKind,
    Step,
    Transition,
)
from statewright_compiler.scxml.events import chart_events
from statewright_compiler.scxml.expressions import ChartExpressionError, names_in
from statewright_compiler.scxml.names import machine_name, state_names
from statewright_compiler.scxml.preemption import live_transitions
from statewright_compiler.scxml.spec_content import ContentWriter
from statewright_compiler.scxml.toml_text import (
    inline_table,
    toml_array,
    toml_key,
    toml_string,
)
from statewright_compiler.spec.literals import comment_text

__all__ = ["COND_METADATA", "ImportedSpec", "spec_text"]

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
    says of the spec can be said of the document.
    """

    text: str
    guards: tuple[tuple[str, str], ...]
    origins: tuple[tuple[int, int], ...] = ()


def _keeps_order(keys: Sequence[str]) -> bool:
    """Whether grouping by key keeps document order (each key's transitions adjacent)."""
    runs = [key for index, key in enumerate(keys) if index == 0 or keys[index - 1] != key]
    return len(runs) == len(set(runs))


class _Writer:
    def __init__(self, document: Document, shown: str, widen: bool = False) -> None:
        self.document = document
        self.shown = shown
        self.names = state_names([node.id for node in document.nodes])
        self.by_id = {
            node.id: name
            for node, name in zip(document.nodes, self.names, strict=True)
            if node.id is not None
        }
        self.chart_events = chart_events(document, self.names)
        self.events = self.chart_events.names
        self.content = ContentWriter(document, self.events, self.by_id.get, widen=widen)
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

    def new_guard(self) -> str:
        self.guard_count += 1
        return f"cond_{self.guard_count}"

    def in_file_order(self, index: int) -> tuple[bool, list[Transition]]:
        """Whether the node's evented transitions go in its ``on`` table (else they are
        ``[[transitions]]`` after it), and its live transitions in the order the spec will hold
        them, which is the compiler's (and so the exporter's) order too. Evented and eventless
        transitions never compete, so only the order within each kind is SCXML's."""
        evented = [transition for transition in self.live[index] if transition.events]
        eventless = [transition for transition in self.live[index] if not transition.events]
        if _keeps_order([self.chart_events.key(transition.events) for transition in evented]):
            return True, evented + eventless
        return False, eventless + evented

    def translate_guards(self) -> None:
        """Named guards are numbered in the order the spec will hold them: importing what
        ``export-scxml`` wrote from an imported spec gives that spec again."""
        for index in range(len(self.document.nodes)):
            for transition in self.in_file_order(index)[1]:
                if transition.cond is None:
                    continue
                if set(names_in(transition.cond)) == {"In"} and self.structural(transition):
                    continue
                if self.content.is_expression(transition.cond):
                    self.origin = (transition.line, transition.column)
                    try:
                        cond = self.content.expression(transition.cond, condition=True)
                        self.conds[id(transition)] = cond
                    except ChartExpressionError as error:
                        self.refuse_expression(error, transition.line, transition.column)
                    self.warn_broken()
                    continue
                try:
                    guard = translate_cond(transition.cond, self.by_id.get, self.new_guard)
                except CondError as error:
                    message = f"<transition cond={transition.cond!r}> cannot be translated: "
                    self.diagnostics.append(
                        Diagnostic(
                            error.code,
                            self.shown,
                            transition.line,
                            transition.column,
                            message + str(error),
                        )
                    )
                    continue
                self.guards[id(transition)] = guard
                self.named_guards += guard.named

    def structural(self, transition: Transition) -> bool:
        """Whether the transition's ``cond`` tests only ``In()`` terms joined by and/or/not:
        then it is the guard ``in(...)``, statechart structure (kept as a guard, so that
        exporting and importing again gives the same spec)."""
        assert transition.cond is not None
        try:
            guard = translate_cond(transition.cond, self.by_id.get, self.new_guard)
        except CondError:
            return False
        if guard.named:
            self.guard_count -= len(guard.named)
            return False
        self.guards[id(transition)] = guard
        return True

    def warn_broken(self) -> None:
        """A warning for each expression written as one that fails (see ``ContentWriter``)."""
        for text, why in self.content.broken:
            message = (
                f"{text!r} {why}: it is written as an expression that raises error.execution "
                "when it is evaluated, as SCXML says"
            )
            self.warnings.append(
                Diagnostic(
                    "scxml-invalid", self.shown, *self.origin, message, severity=Severity.WARNING
                )
            )
        self.content.broken.clear()

    def refuse_expression(self, error: ChartExpressionError, line: int, column: int) -> None:
        message = f"the expression {error.text!r} cannot be translated: {error}"
        self.diagnostics.append(Diagnostic("scxml-unsupported", self.shown, line, column, message))

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

    def machine(self, stem: str) -> None:
        document = self.document
        if document.initial:
            initial = [self.by_id[target] for target in document.initial]
        else:
            initial = [self.names[document.children(None)[0]]]
        self.add(f"# Translated from SCXML by statewright import-scxml: {comment_text(self.shown)}")
        self.add("[machine]")
        self.emit("name", toml_string(machine_name(document.name, stem)))
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
        if in_table:
            return
        for key, transition in zip(keys, evented, strict=True):
            self.origin = (transition.line, transition.column)
            self.add("\n[[transitions]]")
            self.emit("from", toml_string(name))
            self.emit("event", toml_string(key))
            for item, value in self.alternative(transition):
                self.emit(item, value)

    def text(self, stem: str) -> str | None:
        """The spec, or None when an expression cannot be translated (reported)."""
        try:
            self.machine(stem)
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
    document: Document, shown: str, stem: str, *, write: bool = True, widen: bool = False
) -> tuple[ImportedSpec | None, list[Diagnostic]]:
    """The spec for ``document`` (read from ``shown``, named after ``stem`` when it has no name),
    or None and the diagnostics saying why it cannot be translated. With ``write`` False only
    the conditions are checked: the document has errors already, but theirs are worth reporting
    in the same run. With ``widen`` a field whose inferred type is a union is ``Any``."""
    writer = _Writer(document, shown, widen)
    writer.translate_guards()
    if writer.diagnostics or not write:
        return None, writer.diagnostics + writer.warnings
    text = writer.text(stem)
    if text is None:
        return None, writer.diagnostics + writer.warnings
    return ImportedSpec(text, tuple(writer.named_guards), tuple(writer.origins)), writer.warnings

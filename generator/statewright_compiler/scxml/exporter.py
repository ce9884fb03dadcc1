"""``statewright export-scxml``: a compiled spec as SCXML 1.0, when SCXML can say all of it.

The exporter reads the compiled model (never the TOML) and builds the same
:class:`~document.Document` the importer reads, then writes it with :mod:`write`.
SCXML has states, compound, parallel, final and history states, transitions with descriptors,
targets and ``type``, ``<raise>``, ``<log>``, ``In()``, the data model and ``<invoke>`` (a child
machine given with its parent is written inline, another named as the file its own export
writes). What a spec says beyond that (handler
guards and actions, payloads, ``<previous>``, error handlers, checkpoints, timers, ...) has no
SCXML without a data model; each such thing is an ``scxml-unsupported`` diagnostic at the place
the spec writes it, and nothing is written. One exception keeps import and export inverse: a
named guard the importer made from a ``cond`` (its ``scxml_cond`` metadata) is that ``cond``
again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Final

from statewright_compiler.diagnostics import Diagnostic
from statewright_compiler.model import (
    And,
    CancelStep,
    GuardCall,
    GuardExpression,
    InState,
    Invoke,
    LogStep,
    Machine,
    Not,
    Or,
    RaiseStep,
    Rule,
    SendStep,
    State,
    StateKind,
)
from statewright_compiler.model import Step as SpecStep
from statewright_compiler.scxml.document import (
    Cancel,
    Document,
    Log,
    Node,
    NodeKind,
    Raise,
    Send,
    Step,
)
from statewright_compiler.scxml.document import Invoke as ScxmlInvoke
from statewright_compiler.scxml.document import Transition as ScxmlTransition
from statewright_compiler.scxml.events import descriptor_event
from statewright_compiler.scxml.export_content import ContentExporter
from statewright_compiler.scxml.spec_content import FAILING
from statewright_compiler.scxml.spec_text import COND_METADATA
from statewright_compiler.scxml.write import scxml_text, xml_representable
from statewright_compiler.spec.descriptors import EVENT_NAME, is_descriptor, matches
from statewright_compiler.spec.guards import guard_names

__all__ = ["export_scxml"]

_KINDS: Final = {
    StateKind.NORMAL: NodeKind.STATE,
    StateKind.PARALLEL: NodeKind.PARALLEL,
    StateKind.FINAL: NodeKind.FINAL,
    StateKind.HISTORY: NodeKind.HISTORY,
}
#: What SCXML's parser (and statewright's importer) reads as one event name.


class _Exporter:
    def __init__(self, machine: Machine, shown: str, children: Mapping[str, Machine]) -> None:
        self.machine = machine
        self.shown = shown
        self.children = children
        self.diagnostics: list[Diagnostic] = []
        self.values = {state.name: state.value for state in machine.states}
        self.event_values = {event.name: event.value for event in machine.events}
        #: The events of each child a send may name (``#_<id>``): name to value, when the
        #: child's machine is known (else its events are named by their spec names).
        self.child_events: dict[str, Mapping[str, str]] = {
            f"#_{invoke.id}": self.event_names(invoke)
            for state in machine.states
            for invoke in state.invokes
            if invoke.id
        }
        self.content = ContentExporter(
            lambda name: self.event(name, 1), lambda name: self.state_id(name, 1)
        )

    def refuse(self, line: int, column: int, what: str, why: str) -> None:
        self.diagnostics.append(
            Diagnostic(
                "scxml-unsupported",
                self.shown,
                line,
                column,
                f"{what} cannot be exported: {why}",
            )
        )

    def text(self, text: str, line: int, what: str) -> str:
        if not xml_representable(text):
            self.refuse(line, 1, what, f"{text!r} has characters XML 1.0 cannot hold")
        return text

    def state_id(self, name: str, line: int) -> str:
        value = self.values[name]
        if not value or value != "".join(value.split()):
            self.refuse(line, 1, f"state {name!r}", f"its value {value!r} is no SCXML id")
        return self.text(value, line, f"state {name!r}")

    def event(self, name: str, line: int) -> str:
        value = self.event_values[name]
        if not EVENT_NAME.fullmatch(value):
            self.refuse(line, 1, f"event {name!r}", f"its value {value!r} is no SCXML event name")
        return value

    def steps(self, steps: Sequence[SpecStep], line: int, where: str) -> tuple[Step, ...]:
        exported: list[Step] = []
        for step in steps:
            if isinstance(step, RaiseStep):
                exported.append(Raise(self.event(step.event, line)))
            elif isinstance(step, LogStep) and step.expr is None:
                label = self.text(step.label, line, "a log label") or None
                exported.append(Log(self.text(step.text, line, "a log text"), label))
            elif isinstance(step, str):
                self.refuse(line, 1, f"the action {step!r} {where}", "SCXML runs no handler")
            elif isinstance(step, SendStep):
                send = self.send(step, line, where)
                exported += [send] if send is not None else []
            elif isinstance(step, CancelStep) and step.id_expr is None:
                exported.append(Cancel(step.id))
            else:
                inner = self.content.step(step, lambda body: self.steps(body, line, where))
                exported += [inner] if inner is not None else []
        return tuple(exported)

    def send(self, step: SendStep, line: int, where: str) -> Send | None:
        """A send, with its delay as SCXML's ``delay`` or ``delayexpr``."""
        what = f"the send of {step.event or '(an event expression)'!r} {where}"
        if step.delay_handler is not None:
            self.refuse(line, 1, what, "SCXML has no delay handler (write a delayexpr)")
            return None
        if step.on_restore != "fire":
            self.refuse(line, 1, what, f"SCXML has no on_restore = {step.on_restore!r}")
        child = self.child_events.get(step.target or "")
        if child is not None and step.event:  # the child's event, by its SCXML name
            sent = self.content.send(dataclasses.replace(step, event=""))
            return dataclasses.replace(sent, event=child.get(step.event, step.event))
        if step.event:
            self.event(step.event, line)
        return self.content.send(step)

    # -- child machines ----------------------------------------------------------------------
    def event_names(self, invoke: Invoke) -> Mapping[str, str]:
        child = self.children.get(invoke.machine.module)
        return {} if child is None else {event.name: event.value for event in child.events}

    def invoke(self, invoke: Invoke, state: State) -> ScxmlInvoke:
        """Inline (``<content>``) when the child's machine is known, else ``src`` naming the
        file its own export writes beside this one (``<module>.scxml``)."""
        child = self.children.get(invoke.machine.module)
        chart = None
        if child is not None:
            exporter = _Exporter(child, self.shown, self.children)
            chart = exporter.document()
            self.diagnostics += exporter.diagnostics
        line = invoke.line
        params = tuple((name, self.content.expression(value)) for name, value in invoke.params)
        return ScxmlInvoke(
            chart,
            invoke.id or None,
            invoke.id_location,
            params,
            autoforward=invoke.autoforward,
            finalize=self.steps(invoke.finalize, line, f"in the finalize of {state.name!r}"),
            src=None if child is not None else f"{invoke.machine.stem}.scxml",
        )

    # -- states ----------------------------------------------------------------------------------
    def node(self, index: int, state: State, index_of: dict[str, int]) -> Node:
        line = state.line
        if state.kind not in _KINDS:
            why = "SCXML states have no kind but these; make it a normal state"
            self.refuse(line, 1, f"state {state.name!r} of kind {state.kind.value!r}", why)
        if state.timers:
            why = "write them as <send delay> on entry and <cancel> on exit"
            self.refuse(line, 1, f"the after timers of {state.name!r}", why)
        where = f"of {state.name!r}"
        initial: tuple[str, ...] = ()
        # Written even when it is SCXML's default (the first child), as the importer reads it:
        # python-statemachine 3.2.2 enters some compound states without one wrongly (W3C tests
        # 388, 404 and 405 exported, tests/scxml/test_cross_check.py).
        if state.initial_steps or state.is_compound:
            initial = tuple(self.state_id(target, line) for target in state.initial)
        return Node(
            self.state_id(state.name, line),
            _KINDS.get(state.kind, NodeKind.STATE),
            index_of[state.parent] if state.parent is not None else None,
            initial,
            self.steps(state.initial_steps, line, where),
            self.steps(state.entry, line, f"on entering {state.name!r}"),
            self.steps(state.exit, line, f"on leaving {state.name!r}"),
            state.history or None,
            tuple(self.state_id(target, line) for target in state.default),
            self.steps(state.default_steps, line, where),
            tuple(self.transition(rule, state) for rule in self.rules_of(state.name)),
            line,
            data=self.content.data([f for f in self.machine.data if f.state == state.name]),
            donedata=self.content.donedata(state),
            invokes=tuple(self.invoke(invoke, state) for invoke in state.invokes),
        )

    def first_child(self, state: State) -> tuple[str, ...]:
        kinds = {other.name: other.kind for other in self.machine.states}
        children = [child for child in state.children if kinds[child] is not StateKind.HISTORY]
        return tuple(children[:1])

    def rules_of(self, name: str) -> list[Rule]:
        return [rule for rule in self.machine.rules if name in rule.sources]

    # -- transitions -----------------------------------------------------------------------------
    def transition(self, rule: Rule, state: State) -> ScxmlTransition:
        line, column = rule.line, rule.column
        what = f"the transition from {state.name!r} on {rule.event or '(eventless)'}"
        for flag, why in (
            (rule.checkpoint, "checkpoints are statewright's own"),
            (bool(rule.then), "SCXML has no steps after entry ('then')"),
        ):
            if flag:
                self.refuse(line, column, what, why)
        targets = []
        for target in rule.targets:
            if target not in self.values:  # "<previous>"
                self.refuse(line, column, what, f"SCXML has no {target!r} target")
            else:
                targets.append(self.state_id(target, line))
        return ScxmlTransition(
            self.descriptor(rule, line, column),
            self.cond(rule, line, column, what),
            tuple(targets),
            rule.internal,
            self.steps(rule.steps, line, f"in {what}"),
            line,
            column,
        )

    def descriptor(self, rule: Rule, line: int, column: int) -> tuple[str, ...]:
        if not rule.event:
            return ()
        if is_descriptor(rule.event):
            return self.closed_descriptor(rule.event)
        value = self.event(rule.event, line)
        wider = sorted(
            other for other in self.event_values.values() if other.startswith(value + ".")
        )
        if wider:
            self.refuse(
                line, column, f"the trigger {rule.event!r}",
                f"SCXML's {value!r} would match {', '.join(map(repr, wider))} too",
            )  # fmt: skip
        return (value,)

    def closed_descriptor(self, descriptor: str) -> tuple[str, ...]:
        """The descriptor's tokens, each naming an event the machine has. The importer declares
        the event every token names (SCXML's ``fault.*`` takes an event ``fault``); a token
        whose event the machine lacks is written as the events it matches instead, which is
        all it matches in the compiled machine."""
        values = list(dict.fromkeys(self.event_values.values()))
        tokens: list[str] = []
        for token in descriptor.split():
            named = descriptor_event(token)
            if named is None or named in values:
                tokens.append(token)
            else:
                tokens += [value for value in values if matches((named,), value)]
        return tuple(dict.fromkeys(tokens))

    def cond(self, rule: Rule, line: int, column: int, what: str) -> str | None:
        written = None if rule.cond is None else rule.cond.text
        kept = dict(rule.metadata).get(COND_METADATA)
        if written == FAILING and rule.guard is None and isinstance(kept, str):
            written = kept  # the chart's own text, which does not parse (import-scxml)
        if written is not None:
            written = self.text(written, line, "a condition")
        if rule.guard is None or written is None:
            # A spec's expressions are Python: the same text in SCXML's Python data model.
            return written if rule.guard is None else self.guard_cond(rule, line, column, what)
        guard = self.guard_cond(rule, line, column, what)
        return None if guard is None else f"({written}) and ({guard})"

    def guard_cond(self, rule: Rule, line: int, column: int, what: str) -> str | None:
        assert rule.guard is not None
        metadata = dict(rule.metadata)
        named = guard_names(rule.guard)
        kept = metadata.get(COND_METADATA)
        if named and isinstance(kept, str):
            return self.text(kept, line, "a condition")  # the importer's own translation
        if named:
            self.refuse(
                line, column, f"the guard {rule.guard_text!r} of {what}",
                "SCXML has no handler guards (only In())",
            )  # fmt: skip
            return None
        return self.expression(rule.guard, line)

    def expression(self, guard: GuardExpression, line: int, parent: int = 0) -> str:
        """``In('id')`` combined with Python's ``not``, ``and``, ``or`` (as the importer reads)."""
        if isinstance(guard, InState):
            return f"In({self.state_id(guard.name, line)!r})"
        if isinstance(guard, Not):
            return f"not {self.expression(guard.operand, line, 3)}"
        if isinstance(guard, GuardCall):  # excluded by cond(); keeps the match exhaustive
            return guard.name
        joiner, level = (" and ", 2) if isinstance(guard, And) else (" or ", 1)
        assert isinstance(guard, And | Or)
        text = joiner.join(self.expression(operand, line, level) for operand in guard.operands)
        return f"({text})" if parent > level else text

    # -- the machine -----------------------------------------------------------------------------
    def document(self) -> Document:
        machine = self.machine
        for handler in machine.error_handlers:
            why = "SCXML turns errors into error.execution events"
            self.refuse(handler.line, 1, "an error handler", why)
        for event in machine.events:
            if any(field.type.kind != "any" for field in event.payload):
                why = "SCXML has no typed payloads (fields of type Any are its untyped data)"
                self.refuse(event.line, 1, f"the payload of {event.name!r}", why)
        if machine.initial_steps:
            self.refuse(1, 1, "machine.initial's actions", "<scxml> has no <initial> element")
        index_of = {state.name: index for index, state in enumerate(machine.states)}
        nodes = tuple(self.node(i, state, index_of) for i, state in enumerate(machine.states))
        targets = machine.initial_targets or (machine.initial,)
        initial = tuple(self.state_id(target, 1) for target in targets)
        data = self.content.data([field for field in machine.data if field.state is None])
        return Document(machine.name, initial, nodes, data, machine.binding)


def export_scxml(
    machine: Machine, shown: str, children: Mapping[str, Machine] | None = None
) -> tuple[str | None, list[Diagnostic]]:
    """SCXML for ``machine`` (compiled from ``shown``), or None and why it cannot be. A child
    machine whose machine is in ``children`` (by module) is written inline, another as
    ``src="<module>.scxml"``, the file its own export writes."""
    exporter = _Exporter(machine, shown, children or {})
    document = exporter.document()
    if exporter.diagnostics:
        unique = dict.fromkeys(exporter.diagnostics)  # a state's id is checked where it is used
        return None, sorted(unique, key=lambda d: (d.line, d.column))
    return scxml_text(document, f"Exported by statewright export-scxml from {shown}"), []

"""The conditions of an imported chart's transitions, and the order the spec holds them in: each
``cond`` becomes a data-model expression (``cond``), the structural guard ``in(...)``, or named
guards a handler implements (what reads names no ``<data>`` declares). A mixin of the spec
writer (:mod:`spec_text`), which sets the attributes declared here.
"""

from __future__ import annotations

from collections.abc import Sequence

from statewright_compiler.diagnostics import Diagnostic, Severity
from statewright_compiler.scxml.conditions import CondError, Guard, translate_cond
from statewright_compiler.scxml.document import Document, Transition
from statewright_compiler.scxml.events import ChartEvents
from statewright_compiler.scxml.expressions import ChartExpressionError, names_in
from statewright_compiler.scxml.spec_content import ContentWriter

__all__ = ["ConditionWriter", "keeps_order"]


def keeps_order(keys: Sequence[str]) -> bool:
    """Whether grouping by key keeps document order (each key's transitions adjacent)."""
    runs = [key for index, key in enumerate(keys) if index == 0 or keys[index - 1] != key]
    return len(runs) == len(set(runs))


class ConditionWriter:
    document: Document
    shown: str
    by_id: dict[str, str]
    chart_events: ChartEvents
    content: ContentWriter
    diagnostics: list[Diagnostic]
    warnings: list[Diagnostic]
    guard_count: int
    named_guards: list[tuple[str, str]]
    guards: dict[int, Guard]  # by id() of the transition
    conds: dict[int, str]  # by id() of the transition: its cond expression
    origin: tuple[int, int]
    live: list[list[Transition]]  # per node: the transitions SCXML can take

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
        if keeps_order([self.chart_events.key(transition.events) for transition in evented]):
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

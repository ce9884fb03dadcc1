"""A compiled spec's data model as SCXML: ``<data>``, executable content, ``<donedata>``.

A spec's expressions are Python, so they are SCXML's Python data model as they are (the
exported chart says ``datamodel="python"``), but for ``In('name')``, which names a state by its
SCXML id. A data field's literal initial value is its Python literal (``repr``). The spec's
types have no SCXML form: importing the chart again infers them again (:mod:`data_types`), which
gives the same type for what the rule can read and ``Any`` for the rest.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    DataField,
    Expression,
    ForeachStep,
    IfStep,
    LogStep,
    SendStep,
    State,
)
from statewright_compiler.model import Step as SpecStep
from statewright_compiler.scxml.document import (
    Assign,
    Cancel,
    Data,
    Foreach,
    If,
    Log,
    Send,
    Step,
)
from statewright_compiler.scxml.expressions import in_state

__all__ = ["ContentExporter"]


def _duration(seconds: float) -> str:
    """SCXML's (CSS2) time: whole milliseconds where they say it exactly, else seconds."""
    milliseconds = seconds * 1000
    if milliseconds == int(milliseconds) and 0 < seconds < 1:
        return f"{int(milliseconds)}ms"
    return f"{seconds:.6f}".rstrip("0").rstrip(".") + "s"


class _StateIds(ast.NodeTransformer):
    def __init__(self, state_id: Callable[[str], str]) -> None:
        self.state_id = state_id

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        state = in_state(node)
        if state is not None:
            node.args[0] = ast.copy_location(ast.Constant(self.state_id(state)), node)
        return node


class ContentExporter:
    """Spec steps and data as the document model's; ``event`` gives an event's SCXML name,
    ``state_id`` a state's SCXML id."""

    def __init__(self, event: Callable[[str], str], state_id: Callable[[str], str]) -> None:
        self.event = event
        self.state_id = state_id

    def expression(self, expression: Expression) -> str:
        """The spec's expression (Python, checked when it compiled: it parses) for SCXML."""
        if "In" not in expression.text:
            return expression.text
        tree = ast.parse(expression.text.strip(), mode="eval")
        return ast.unparse(_StateIds(self.state_id).visit(tree))

    def data(self, fields: Sequence[DataField]) -> tuple[Data, ...]:
        found = []
        for field in fields:
            if field.expr is not None:
                found.append(Data(field.name, self.expression(field.expr)))
            else:
                found.append(
                    Data(field.name, None if field.initial is None else repr(field.initial))
                )
        return tuple(found)

    def donedata(self, state: State) -> tuple[tuple[str, str], ...] | str | None:
        if state.donedata_params:
            return tuple((name, self.expression(expr)) for name, expr in state.donedata_params)
        if state.donedata is not None:
            return self.expression(state.donedata)
        return None

    def step(
        self, step: SpecStep, steps: Callable[[Sequence[SpecStep]], tuple[Step, ...]]
    ) -> Step | None:
        """The data model's step as SCXML (None: not one of them)."""
        if isinstance(step, AssignStep):
            return Assign(self.expression(step.location), self.expression(step.value))
        if isinstance(step, IfStep):
            branches = tuple((self.expression(test), steps(body)) for test, body in step.branches)
            return If(branches, steps(step.otherwise) if step.otherwise else None)
        if isinstance(step, ForeachStep):
            return Foreach(self.expression(step.array), step.item, step.index, steps(step.steps))
        if isinstance(step, LogStep) and step.expr is not None:
            return Log("", step.label or None, self.expression(step.expr))
        if isinstance(step, CancelStep) and step.id_expr is not None:
            return Cancel("", expr=self.expression(step.id_expr))
        return None

    def send(self, step: SendStep) -> Send:
        """A send with the data model's attributes (a delay handler is refused before)."""
        optional = self.optional
        return Send(
            self.event(step.event) if step.event else "",
            _duration(step.delay) if step.delay else "0s",
            step.id or None,
            eventexpr=optional(step.event_expr),
            delayexpr=optional(step.delay_expr),
            idlocation=step.id_location,
            target=step.target,
            targetexpr=optional(step.target_expr),
            type=step.type,
            typeexpr=optional(step.type_expr),
            namelist=step.namelist,
            params=tuple((name, self.expression(expr)) for name, expr in step.params),
            content=optional(step.content),
        )

    def optional(self, expression: Expression | None) -> str | None:
        return None if expression is None else self.expression(expression)

"""The data model's parts of the generated module: the slotted ``<Name>Data`` class, one typed
function per expression (``_expr_<n>(data, event, system, active)``), and the literals of the
``Assign``/``If``/``Foreach`` steps, the data initializers and ``MachineSpec.data``. A mixin of
the module view (:mod:`render`); the chart literal (:mod:`chart_view`) names the functions its
steps call with :meth:`DataView.function_name`.

Functions are numbered in the order their expressions first appear (the data fields, then each
state in document order, then each rule), identical ones shared, so the same spec gives the same
module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from statewright_compiler.model import (
    DataField,
    Expression,
    Machine,
    Step,
    step_expressions,
    walk_steps,
)
from statewright_compiler.spec.literals import (
    data_literal,
    docstring_literal,
    string_literal,
    tuple_literal,
    value_literal,
)
from statewright_compiler.spec.payload_types import runtime_shape

__all__ = ["RUNTIME_API", "DataAttribute", "DataView", "ExpressionFunction"]

#: The runtime API level every generated module requires (``statewright._version``): 5, since
#: each one passes its spec text's sha256 (``MachineSpec.source_sha256``, how a snapshot written
#: when the fingerprint hashed the text is recognised) and child machines (``Invoke``) came
#: with it; 4 added the data model.
RUNTIME_API: Final = 5

#: ``_event.data`` where no event's payload is there: what a data initializer sees.
_NO_EVENT = "Mapping[str, object]"


def _natural(name: str) -> tuple[tuple[tuple[int, int, str], ...], str]:
    """Runs of digits compare as numbers, the rest by code point (an identifier's digits come
    before its letters and ``_`` there)."""
    chunks = re.findall(r"\d+|\D+", name)
    key = tuple((0, int(c), "") if c.isdigit() else (1, 0, c) for c in chunks)
    return key, name


@dataclass(frozen=True)
class ExpressionFunction:
    """``def <name>(data: ..., event: EventInfo[<event_data>], ...) -> <returns>: return ...``."""

    name: str
    event_data: str
    returns: str
    body: str


@dataclass(frozen=True)
class DataAttribute:
    """A field of the data class: its annotation, docstring, and the literal ``__init__`` sets
    it to ("" when an initializer step sets it instead)."""

    name: str
    annotation: str
    docstring: str | None
    initial: str


class DataView:
    """Needs the module view's ``machine``."""

    machine: Machine

    # -- the data class --------------------------------------------------------------------------
    @property
    def data_class(self) -> str:
        return f"{self.machine.name}Data"

    @property
    def data_parameter(self) -> str:
        """What the expression functions' ``data`` is: the data class (``object`` without)."""
        return self.data_class if self.machine.data else "object"

    def set_at_construction(self, field: DataField) -> bool:
        """A field the data class's ``__init__`` sets: a literal (or None) initial value of the
        machine's ``[data]`` or, with early binding, of a state's ``data``."""
        early = field.state is None or self.machine.binding == "early"
        return field.expr is None and early

    def data_attributes(self) -> list[DataAttribute]:
        return [
            DataAttribute(
                field.name,
                field.annotation,
                docstring_literal(field.description, "    ") if field.description else None,
                value_literal(field.initial) if self.set_at_construction(field) else "",
            )
            for field in self.machine.data
        ]

    def data_slots(self) -> str:
        """The fields in the natural order ruff's RUF023 asks of ``__slots__``."""
        names = sorted((field.name for field in self.machine.data), key=_natural)
        return tuple_literal(string_literal(name) for name in names)

    def data_docstring(self) -> str:
        return docstring_literal(f"The data fields of the {self.machine.name} machine.")

    def data_model_literal(self) -> str:
        """``MachineSpec.data``: the factory, each field's shape for snapshots (required: set
        from the start), the binding."""
        fields = data_literal(
            tuple(
                (field.name, runtime_shape(field.type), self.set_at_construction(field))
                for field in self.machine.data
            )
        )
        binding = ', binding="late"' if self.machine.binding == "late" else ""
        return f"DataModel({self.data_class}, {fields}{binding})"

    # -- initializers ------------------------------------------------------------------------------
    def initializer(self, field: DataField) -> Expression | None:
        """The expression an initializer step runs: the field's ``expr``, or its literal for a
        state's field bound late."""
        if field.expr is not None:
            return field.expr
        if self.set_at_construction(field):
            return None
        return Expression(
            field.name,
            (),
            "initial value",
            python=value_literal(field.initial),
            returns=field.annotation,
            event_data=_NO_EVENT,
        )

    def data_steps_literal(self, state: str | None) -> str:
        """The ``Assign`` steps initializing the fields of ``state`` (None: the machine's)."""
        steps = []
        for field in self.machine.data:
            expression = self.initializer(field) if field.state == state else None
            if expression is not None:
                steps.append(
                    f"Assign({string_literal(field.name)}, {self.function_name(expression)}, "
                    f"field={string_literal(field.name)})"
                )
        return tuple_literal(steps) if steps else ""

    # -- expression functions --------------------------------------------------------------------
    def _expressions(self) -> Iterator[Expression]:
        machine = self.machine
        for field in machine.data:
            initializer = self.initializer(field)
            if initializer is not None:
                yield initializer
        conditions = [rule.cond for rule in machine.rules if rule.cond is not None]
        yield from conditions
        for step in self._steps():
            yield from (e for e in step_expressions(step) if e.compiled)
        yield from (state.donedata for state in machine.states if state.donedata is not None)

    def _steps(self) -> Iterator[Step]:
        """Every step of the machine, the ones inside ``if`` and ``foreach`` too."""
        machine = self.machine
        lists: list[Sequence[Step]] = []
        for state in machine.states:
            lists += [state.entry, state.exit, state.initial_steps, state.default_steps]
            lists += [invoke.finalize for invoke in state.invokes]
        for rule in machine.rules:
            lists += [rule.steps, rule.then]
        lists.append(machine.initial_steps)
        for steps in lists:
            yield from walk_steps(steps)

    @property
    def runtime_api(self) -> int:
        """The runtime API level the module requires (see :data:`RUNTIME_API`)."""
        return RUNTIME_API

    @cached_property
    def _functions(self) -> dict[tuple[str, str, str], str]:
        found: dict[tuple[str, str, str], str] = {}
        for expression in self._expressions():
            key = (expression.python, expression.returns, expression.event_data)
            found.setdefault(key, f"_expr_{len(found)}")
        return found

    def function_name(self, expression: Expression) -> str:
        return self._functions[(expression.python, expression.returns, expression.event_data)]

    def expression_functions(self) -> list[ExpressionFunction]:
        return [
            ExpressionFunction(name, event_data, returns, python)
            for (python, returns, event_data), name in self._functions.items()
        ]

    def expressions_used(self) -> list[Expression]:
        """Every compiled expression (for the imports their annotations and bodies need), a
        child machine's params too."""
        params = [e for state in self.machine.states for i in state.invokes for _, e in i.params]
        return [*self._expressions(), *params]

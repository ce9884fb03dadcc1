"""Compiling one expression slot: parse the spec's text, check its types in the slot's scope, and
keep the Python and the annotations of its generated function (``fn(data, event, system,
active) -> <type>``). What a slot must give decides the return annotation: a condition gives a
``bool``, an assigned value the location's declared type (so mypy checks the assignment again),
a delay a number or a duration string, a name or an id a ``str``; what only the runtime reads (a
log line, a foreach's array, done data) is an ``object``. A value of unknown type (``Any``) is
returned as ``Any``, which mypy accepts anywhere.

Every error is a diagnostic at the expression's own character inside the spec's TOML string.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable

from statewright_compiler.expressions.locations import check_assignable
from statewright_compiler.expressions.nodes import Expr, ExpressionError
from statewright_compiler.expressions.rules import type_error
from statewright_compiler.expressions.scope import Scope, Translation
from statewright_compiler.expressions.syntax import parse_expression
from statewright_compiler.expressions.tidy import call, unwrapped
from statewright_compiler.expressions.translate import translate
from statewright_compiler.expressions.types import (
    ANY,
    BOOL,
    Type,
    annotation,
    base,
    members,
    typing_names,
)
from statewright_compiler.model import Expression
from statewright_compiler.spec.reporter import Reporter
from statewright_compiler.spec.string_positions import position_in_string

__all__ = ["SlotCompiler", "returned"]


def returned(value: Type, declared: Type | None = None) -> Type:
    """The return type of a slot's function: the declared one, ``Any`` for a value of unknown
    type (mypy's ``warn_return_any`` would refuse it as anything else)."""
    if value.kind == "any":
        return ANY
    return declared if declared is not None else value


class SlotCompiler:
    """Parses, checks and compiles expressions, reporting errors at their spec position."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter

    def report(self, expression: Expression, error: ExpressionError) -> None:
        source = self.reporter.source
        start = source.locate(expression.path)
        where = position_in_string(source.text, start, error.offset)
        self.reporter.report_at(
            error.code, where.line, where.column, f"in the {expression.role}: {error}"
        )

    def parse(self, expression: Expression) -> Expr | None:
        try:
            return parse_expression(expression.text)
        except ExpressionError as error:
            self.report(expression, error)
            return None

    def compiled(
        self, expression: Expression, scope: Scope, python: str, returns: Type
    ) -> Expression:
        """``expression`` with its function's body and annotations."""
        names = typing_names(returns) | typing_names(scope.event_data)
        tree = ast.parse(python, mode="eval")  # our own printing: Python by construction
        lookup = any(isinstance(n, ast.Name) and n.id == "lookup" for n in ast.walk(tree))
        python = unwrapped(python)
        return dataclasses.replace(
            expression,
            python=python,
            returns=annotation(returns),
            event_data=annotation(scope.event_data),
            typing_names=tuple(sorted(names)),
            uses_lookup=lookup,
        )

    def translated(self, expression: Expression, scope: Scope) -> tuple[Expr, Translation] | None:
        node = self.parse(expression)
        if node is None:
            return None
        try:
            return node, translate(node, scope)
        except ExpressionError as error:
            self.report(expression, error)
            return None

    def condition(self, expression: Expression, scope: Scope) -> Expression | None:
        """A condition: any value, tested for truth."""
        found = self.translated(expression, scope)
        if found is None:
            return None
        _, translation = found
        if {member.kind for member in members(base(translation.type))} <= {"bool"}:
            return self.compiled(expression, scope, translation.source, BOOL)
        return self.compiled(expression, scope, call("bool", [translation.source]), BOOL)

    def value(
        self, expression: Expression, scope: Scope, target: Type | None, what: str = ""
    ) -> Expression | None:
        """A value stored where ``target`` is declared (checked), or only read (``None``:
        returned as an ``object``)."""
        found = self.translated(expression, scope)
        if found is None:
            return None
        node, translation = found
        if target is None:
            return self.compiled(expression, scope, translation.source, Type("object"))
        try:
            check_assignable(node, translation.type, target, what)
        except ExpressionError as error:
            self.report(expression, error)
            return None
        return self.compiled(
            expression, scope, translation.source, returned(translation.type, target)
        )

    def of_kinds(
        self, expression: Expression, scope: Scope, kinds: Iterable[str], returns: Type
    ) -> Expression | None:
        """A value that must be one of ``kinds`` (``str`` for a name; ``int``, ``float`` or
        ``str`` for a delay)."""
        found = self.translated(expression, scope)
        if found is None:
            return None
        node, translation = found
        allowed = set(kinds) | {"any", "never"}
        wrong = [m for m in members(base(translation.type)) if m.kind not in allowed]
        if wrong:
            wanted = " or ".join(sorted(set(kinds) - {"bool"}))
            error = type_error(
                node, f"the {expression.role} must be {wanted}, not {translation.type}"
            )
            self.report(expression, error)
            return None
        return self.compiled(
            expression, scope, translation.source, returned(translation.type, returns)
        )

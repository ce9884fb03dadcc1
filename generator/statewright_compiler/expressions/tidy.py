"""How a translation is printed so that the generated module passes the project's ruff rules
whatever the spec wrote: a negated comparison prints its negation (``not a == b`` as
``a != b``, SIM201, E713, E714), a constant on the left of a comparison moves right (SIM300),
``== None`` becomes ``is None`` (E711), ``--x`` folds (B002), a call that changes nothing is left
out (UP018, RUF046), ``[1] + items`` unpacks (RUF005), ``.get(k, None)`` drops the default
(SIM910). What has no equivalent that passes is refused where it is written, with the reason:
an operand that is never evaluated (SIM222, SIM223), an ``if`` whose branches are the same
(RUF034), ``== True`` (E712), a repeated dict key (F601), a test on an empty collection
(RUF060). Each refusal is an ``invalid-expression`` error; none changes what an expression
means."""

from __future__ import annotations

import ast
from typing import Final

from statewright_compiler.expressions.nodes import (
    BoolOp,
    Constant,
    DictDisplay,
    Expr,
    ExpressionError,
    ListDisplay,
    Unary,
)
from statewright_compiler.expressions.types import Type, base, members

__all__ = [
    "FLIPPED",
    "NEGATED",
    "call",
    "changes_nothing",
    "check_boolop",
    "check_dict_keys",
    "check_equality",
    "check_mapping",
    "check_membership",
    "constant_like",
    "unwrapped",
]

#: A comparison written the other way round: ``1 < x`` is ``x > 1``.
FLIPPED: Final = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
#: The comparison that is true exactly when one is false.
NEGATED: Final = {
    "==": "!=",
    "!=": "==",
    "in": "not in",
    "not in": "in",
    "is": "is not",
    "is not": "is",
}


def constant_like(node: Expr) -> bool:
    """A literal (``1``, ``-1``, ``"a"``, ``[1, 2]``): what ruff counts as a constant."""
    if isinstance(node, Constant):
        return True
    if isinstance(node, Unary) and node.operator in ("-", "+"):
        return constant_like(node.operand)
    if isinstance(node, ListDisplay):
        return all(constant_like(item) for item in node.items)
    return False


def _truth(node: Expr) -> bool | None:
    """Whether a literal is true or false, None for anything else."""
    if isinstance(node, Constant):
        return bool(node.value)
    if isinstance(node, ListDisplay):
        return bool(node.items)
    if isinstance(node, DictDisplay):
        return bool(node.keys)
    return None


def check_boolop(node: BoolOp) -> None:
    """Refuse ``"a" or x``, ``False and x``: what follows is never evaluated."""
    stops = node.operator == "or"
    for value in node.values[:-1]:
        if _truth(value) is stops:
            always = "true" if stops else "false"
            raise ExpressionError(
                f"this operand is always {always}, so the ones after it are never evaluated",
                value.offset,
            )


def check_equality(operator: str, right: Expr) -> None:
    """Refuse ``== True``/``!= False``: test the value itself."""
    if operator in ("==", "!=") and isinstance(right, Constant) and isinstance(right.value, bool):
        raise ExpressionError(
            f"compare with a boolean by testing the value itself (x, not x), not with {operator}",
            right.offset,
        )


def check_membership(operator: str, right: Expr) -> None:
    """Refuse ``x in []``: always false."""
    if operator not in ("in", "not in"):
        return
    empty = _truth(right) is False and not (
        isinstance(right, Constant) and not isinstance(right.value, str)
    )
    if empty:
        raise ExpressionError(
            f"'{operator}' an empty collection is always {'False' if operator == 'in' else 'True'}",
            right.offset,
        )


def check_dict_keys(node: DictDisplay) -> None:
    """Refuse a dict display that writes one constant key twice."""
    seen: set[object] = set()
    for key in node.keys:
        if isinstance(key, Constant):
            if key.value in seen:
                raise ExpressionError(f"the key {key.value!r} is written twice", key.offset)
            seen.add(key.value)


def changes_nothing(function: str, argument: Expr, argument_type: Type) -> bool:
    """``str("a")``, ``float(1.5)`` (UP018), ``int(len(x))`` (RUF046): the call returns its
    argument as it is."""
    if function not in ("int", "str", "float", "bool"):
        return False
    if isinstance(argument, Constant) and type(argument.value).__name__ == function:
        return True
    return function == "int" and {member.kind for member in members(base(argument_type))} == {"int"}


def check_mapping(node: Expr, container: Type) -> None:
    """``c[k] if k in c else d`` is ``c.get(k, d)`` (SIM401) for a mapping; for a list, whose
    ``in`` tests its items and not its indexes, it is refused."""
    kinds = {member.kind for member in members(base(container))}
    if not kinds <= {"dict", "record", "any"}:
        raise ExpressionError(
            "an item taken only when its value is 'in' the list reads an index, not that value",
            node.offset,
        )


def unwrapped(source: str) -> str:
    """``source`` without the parentheses around all of it, when they are only that (the
    syntax tree is the same without them): ``(a + b)`` is ``a + b``, ``(a) + (b)`` stays."""
    if not (source.startswith("(") and source.endswith(")")):
        return source
    try:
        outer = ast.parse(source, mode="eval")
        inner = ast.parse(source[1:-1], mode="eval")
    except SyntaxError:
        return source
    if isinstance(outer.body, ast.Tuple) or ast.dump(inner) != ast.dump(outer):
        return source
    return source[1:-1]


def call(function: str, arguments: list[str]) -> str:
    """``function(arguments)``; a single argument without the parentheses around all of it
    (``len((a + b))`` is UP034's extraneous parentheses)."""
    if len(arguments) == 1:
        return f"{function}({unwrapped(arguments[0])})"
    return f"{function}({', '.join(arguments)})"

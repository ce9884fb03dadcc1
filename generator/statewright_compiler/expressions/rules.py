"""The typing rules of the expression language, as plain functions of types: what indexing,
an operator, a comparison or a call of an allowed function accepts and gives. :mod:`.translate`
walks the tree and asks these; each raises a ``type-error`` :class:`~.nodes.ExpressionError` at
the node it is given, worded like mypy's messages."""

from __future__ import annotations

from typing import Final

from statewright_compiler.expressions.nodes import Binary, Call, Constant, Expr, ExpressionError
from statewright_compiler.expressions.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NO_EVENT,
    NONE,
    STR,
    Type,
    base,
    members,
    overlap,
    union,
)

__all__ = [
    "MAX_REPEAT",
    "binary_type",
    "call_type",
    "check_comparison",
    "expect",
    "item_type",
    "numeric",
    "record_field",
    "type_error",
    "without_none",
]

#: The longest a string or list may be repeated by ``*`` (a constant count).
MAX_REPEAT: Final = 10_000
_NUMBERS: Final = frozenset({"int", "float", "bool"})


def type_error(node: Expr, message: str) -> ExpressionError:
    return ExpressionError(message, node.offset, "type-error")


def without_none(value: Type) -> Type:
    kept = [member for member in members(value) if member.kind != "none"]
    return union(*kept) if kept else value


def record_field(node: Expr, record: Type, name: str) -> Type:
    found = []
    for member in members(record):
        field_type = member.field(name)
        if field_type is None and member == NO_EVENT:
            raise type_error(
                node,
                f"_event.data has no field {name!r} here: this runs at start, after an "
                "eventless step or a raised event as well, when there is no event's payload",
            )
        if field_type is None:
            declare = " (declare it in the event's payload)" if member.name else ""
            raise type_error(node, f"the payload {member} has no field {name!r}{declare}")
        found.append(field_type[0])
    return union(*found)


def item_type(node: Expr, container: Type, index: Type) -> Type:
    """The type of ``container[index]``."""
    found = []
    for member in members(base(container)):
        kind = member.kind
        if kind == "any":
            return ANY
        if kind in ("list", "str"):
            expect(node, index, {"int", "bool"}, "a list or string index")
            found.append(member.args[0] if kind == "list" else STR)
        elif kind == "dict":
            expect(node, index, {"str"}, "a dict key")
            found.append(member.args[0])
        elif kind == "record":
            if (
                index.kind != "literal"
                or len(index.values) != 1
                or not isinstance(index.values[0], str)
            ):
                raise type_error(node, "a payload's field is read with a constant name")
            found.append(record_field(node, member, index.values[0]))
        else:
            raise type_error(node, f"{member} cannot be indexed")
    return union(*found)


def expect(node: Expr, value: Type, kinds: set[str], what: str) -> None:
    for member in members(base(value)):
        if member.kind not in kinds and member.kind != "any":
            raise type_error(node, f"{what} must be {' or '.join(sorted(kinds))}, not {value}")


def numeric(node: Expr, value: Type, what: str) -> None:
    for member in members(base(value)):
        if member.kind not in _NUMBERS and member.kind != "any":
            raise type_error(node, f"{what} needs a number, not {value}")


def binary_type(node: Binary, one: Type, other: Type, left: Type, right: Type) -> Type:
    operator = node.operator
    if "any" in (one.kind, other.kind):
        return ANY
    if one.kind in _NUMBERS and other.kind in _NUMBERS:
        if operator == "/":
            return FLOAT
        if "float" in (one.kind, other.kind):
            return FLOAT
        return INT
    if operator == "+" and one.kind == other.kind and one.kind in ("str", "list"):
        return STR if one.kind == "str" else Type("list", (union(one.args[0], other.args[0]),))
    if operator == "*" and {one.kind, other.kind} & {"str", "list"}:
        count = node.right if one.kind in ("str", "list") else node.left
        sequence = one if one.kind in ("str", "list") else other
        counted = other if sequence is one else one
        if counted.kind in ("int", "bool"):
            if not (
                isinstance(count, Constant)
                and isinstance(count.value, int)
                and count.value <= MAX_REPEAT
            ):
                raise ExpressionError(
                    f"a string or list is repeated by a constant count of at most {MAX_REPEAT}",
                    count.offset,
                    "limit-exceeded",
                )
            return sequence
    raise type_error(node, f"unsupported operand types for {operator}: {left} and {right}")


def check_comparison(node: Expr, operator: str, left: Type, right: Type) -> None:
    if operator in ("==", "!="):
        if not overlap(left, right):
            raise type_error(node, f"{left} and {right} are never equal")
    elif operator in ("is", "is not"):
        if not overlap(left, NONE):
            raise type_error(node, f"{left} is never None")
    elif operator in ("in", "not in"):
        for member in members(base(right)):
            if member.kind == "list":
                if not overlap(left, member.args[0]):
                    raise type_error(node, f"{left} is never an item of {right}")
            elif member.kind in ("dict", "str", "record"):
                if not overlap(left, STR):
                    raise type_error(node, f"{left} is never a key of {right}")
            elif member.kind != "any":
                raise type_error(node, f"{right} cannot hold items")
    else:
        for one in members(base(left)):
            for other in members(base(right)):
                numbers = one.kind in _NUMBERS and other.kind in _NUMBERS
                strings = one.kind == other.kind == "str"
                if not (numbers or strings or "any" in (one.kind, other.kind)):
                    raise type_error(node, f"{left} and {right} cannot be ordered with {operator}")


def call_type(node: Call, types: list[Type]) -> Type:
    """What calling one of the allowed functions (not ``In``) with arguments of ``types``
    gives, or a type error."""
    name = node.function
    result: Type
    if name == "len":
        for member in members(base(types[0])):
            if member.kind not in ("list", "dict", "str", "record", "any"):
                raise type_error(node, f"len() needs a list, dict or string, not {types[0]}")
        result = INT
    elif name in ("abs", "round"):
        numeric(node, types[0], f"{name}()")
        result = (
            INT
            if name == "round"
            else union(*(INT if m.kind == "bool" else m for m in members(base(types[0]))))
        )
    elif name in ("min", "max"):
        kinds = {member.kind for each in types for member in members(base(each))}
        if kinds <= _NUMBERS | {"any"}:
            result = FLOAT if "float" in kinds else INT
        elif kinds <= {"str", "any"}:
            result = STR
        else:
            raise type_error(
                node, f"{name}() needs numbers or strings, not {', '.join(map(str, types))}"
            )
    elif name in ("int", "float"):
        for member in members(base(types[0])):
            if member.kind not in ("int", "float", "bool", "str", "any"):
                raise type_error(node, f"{name}() needs a number or a string, not {types[0]}")
        result = INT if name == "int" else FLOAT
    elif name == "str":
        result = STR
    elif name == "bool":
        result = BOOL
    else:  # hasattr
        attribute = node.arguments[1]
        if not (isinstance(attribute, Constant) and isinstance(attribute.value, str)):
            raise type_error(attribute, "hasattr() needs a constant attribute name")
        result = BOOL
    return result

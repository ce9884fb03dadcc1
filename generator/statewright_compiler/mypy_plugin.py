"""A mypy plugin: a str-valued enum compared with a string that is none of its values.

Enable it with ``plugins = ["statewright_compiler.mypy_plugin"]`` in the mypy configuration.
Members of a ``StrEnum`` or ``(str, Enum)`` class are strings, so mypy accepts
``state == "stage_runing"`` even with ``--strict-equality``, and at run time the misspelled
comparison is simply False. This plugin reports it as ``[statewright-comparison]``, naming the
enum and its closest value. docs/spec-language.md says what it checks and what it cannot see.

How: mypy has no hook on a comparison as a whole, only on the operator methods it type-checks
for one: ``__eq__``/``__ne__`` of the left operand's class (the enum, or ``str``), then, when that
call fails, of the right operand's; for ``in``, the container's ``__contains__``, then, when that
fails, its ``__iter__`` (mypy keeps the error only if iterating fails too). So each hook is only
a trigger: it judges every pair of operands of its comparison on their full types (mypy calls it
once per member of a union such as ``DoorState | None``) and reports what it finds; mypy drops
repeated messages. A reported ``==`` or ``!=`` is a failed operator call in both directions, so
mypy gives that comparison the type ``Any``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from mypy.checker import TypeChecker
from mypy.errorcodes import ErrorCode
from mypy.nodes import (
    ComparisonExpr,
    Expression,
    ListExpr,
    SetExpr,
    StrExpr,
    TupleExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import MethodContext, Plugin
from mypy.typeops import try_getting_str_literals, try_getting_str_literals_from_type
from mypy.types import (
    Instance,
    LiteralType,
    NoneType,
    TupleType,
    Type,
    UnionType,
    flatten_nested_unions,
    get_proper_type,
)

__all__ = ["COMPARISON", "plugin"]

COMPARISON: Final = ErrorCode(
    "statewright-comparison",
    "Check that a string compared with a str-valued enum is one of its values",
    "General",
)

#: Where a value's ``__eq__``/``__ne__``/``__new__`` may come from and leave comparisons plain
#: string comparisons of the values written in the class body.
_PLAIN_DEFINERS: Final = frozenset({"builtins.str", "enum.Enum", "enum.StrEnum"})
#: The containers of ``x in ("a", "b")``, ``x in ["a", "b"]`` and ``x in {"a", "b"}``.
_CONTAINERS: Final = frozenset({"builtins.tuple", "builtins.list", "builtins.set"})
#: At most this many values are listed when none is close to the string.
_LISTED_VALUES: Final = 8


@dataclass(frozen=True)
class StrEnumValues:
    """A str-valued enum and its values, each with the (first) member that has it."""

    name: str
    members: dict[str, str]


def enum_values(info: TypeInfo) -> StrEnumValues | None:
    """The values of a str-valued enum, or None when they are not all known string literals.

    Unknown means: a member set with ``auto()`` or any expression other than a string literal,
    a custom ``__new__`` (which may turn the written value into another), or an ``__eq__`` or
    ``__ne__`` of its own (which may accept other strings): such enums are not checked.
    """
    if not (info.is_enum and info.has_base("builtins.str")):
        return None
    for method in ("__eq__", "__ne__", "__new__"):
        definer = info.get_containing_type_info(method)
        if definer is None or definer.fullname not in _PLAIN_DEFINERS:
            return None
    members: dict[str, str] = {}
    for name in info.enum_members:
        node = info.names[name].node
        if not isinstance(node, Var):
            return None
        value = node.final_value
        if not isinstance(value, str):
            literals = try_getting_str_literals_from_type(node.type) if node.type else None
            if literals is None or len(literals) != 1:
                return None
            value = literals[0]
        members.setdefault(value, name)
    return StrEnumValues(info.name, members) if members else None


def str_enums(typ: Type) -> list[StrEnumValues] | None:
    """The str-valued enums a value of this type belongs to (``None`` left out of a union).

    None when the value may be anything else that could equal a string (``str``, ``Any``, an
    enum whose values are unknown, ...): comparing it with any string is then legitimate.
    """
    proper = get_proper_type(typ)
    items = flatten_nested_unions(proper.items) if isinstance(proper, UnionType) else [proper]
    found: list[StrEnumValues] = []
    for item in map(get_proper_type, items):
        if isinstance(item, NoneType):
            continue
        if isinstance(item, LiteralType):  # a single member, e.g. Literal[DoorState.OPEN]
            item = item.fallback
        values = enum_values(item.type) if isinstance(item, Instance) else None
        if values is None:
            return None
        found.append(values)
    return found or None


def problem(string: str, enums: list[StrEnumValues], *, operator: str) -> str | None:
    """The error message for ``enum_value <operator> string``, or None if ``string`` is a value."""
    if any(string in enum.members for enum in enums):
        return None
    names = " or ".join(f'"{enum.name}"' for enum in enums)
    outcome = {"==": "this comparison is always False", "!=": "this comparison is always True"}
    message = (
        f'"{string}" is not a value of {names}, so {outcome.get(operator, "it never matches")}'
    )
    close = closest_value(string, enums)
    if close is not None:
        value, member = close
        identity = {"==": f'"is {member}"', "!=": f'"is not {member}"'}
        return f'{message}; did you mean "{value}", or {identity.get(operator, member)}?'
    values = [value for enum in enums for value in enum.members]
    listed = ", ".join(f'"{value}"' for value in values[:_LISTED_VALUES])
    more = ", ..." if len(values) > _LISTED_VALUES else ""
    return f"{message} (values: {listed}{more})"


def closest_value(string: str, enums: list[StrEnumValues]) -> tuple[str, str] | None:
    """The value most like ``string`` (by difflib, then ignoring case) and its member, if any."""
    members: dict[str, str] = {}
    for enum in enums:
        for value, member in enum.members.items():
            members.setdefault(value, f"{enum.name}.{member}")
    folded: dict[str, str] = {}
    for value in members:
        folded.setdefault(value.casefold(), value)
    close = difflib.get_close_matches(string, members, n=1) or [
        folded[match] for match in difflib.get_close_matches(string.casefold(), folded, n=1)
    ]
    return (close[0], members[close[0]]) if close else None


def _pairs(comparison: ComparisonExpr) -> Iterator[tuple[Expression, str, Expression]]:
    operands = comparison.operands
    return zip(operands, comparison.operators, operands[1:], strict=False)


def _container_strings(container: Expression, typ: Type | None) -> list[str]:
    """The string literals listed in ``x in <container>`` (a display, or a tuple of literals)."""
    if isinstance(container, (TupleExpr, ListExpr, SetExpr)):
        return [item.value for item in container.items if isinstance(item, StrExpr)]
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, TupleType):
        return [
            literals[0]
            for item in proper.items
            if (literals := try_getting_str_literals_from_type(item)) and len(literals) == 1
        ]
    return []


def _check(ctx: MethodContext, judge: Callable[[TypeChecker, ComparisonExpr], list[str]]) -> Type:
    comparison, checker = ctx.context, ctx.api
    if (
        isinstance(comparison, ComparisonExpr)
        and isinstance(checker, TypeChecker)
        # A disabled code still counts as a failed operator call: mypy would type the comparison
        # as Any (see the module docstring), so judge nothing at all.
        and checker.msg.errors.is_error_code_enabled(COMPARISON)
    ):
        for message in judge(checker, comparison):
            checker.fail(message, comparison, code=COMPARISON)
    return ctx.default_return_type


def equality_problems(checker: TypeChecker, comparison: ComparisonExpr) -> list[str]:
    """Problems of the ``==`` and ``!=`` pairs whose operands mypy has already typed."""
    found: list[str] = []
    for left, operator, right in _pairs(comparison):
        if operator not in ("==", "!="):
            continue
        left_type, right_type = (
            checker.lookup_type_or_none(left),
            checker.lookup_type_or_none(right),
        )
        if left_type is None or right_type is None:
            continue  # a later pair, not checked yet
        sides = ((left_type, right, right_type), (right_type, left, left_type))
        for enum_type, string_operand, string_type in sides:
            strings = try_getting_str_literals(string_operand, string_type)
            enums = str_enums(enum_type) if strings else None
            if strings and enums:
                found += filter(None, (problem(s, enums, operator=operator) for s in strings))
    return found


def membership_problems(checker: TypeChecker, comparison: ComparisonExpr) -> list[str]:
    """Problems of the ``in`` and ``not in`` pairs whose container lists string literals."""
    found: list[str] = []
    for element, operator, container in _pairs(comparison):
        if operator not in ("in", "not in"):
            continue
        element_type = checker.lookup_type_or_none(element)
        strings = _container_strings(container, checker.lookup_type_or_none(container))
        enums = str_enums(element_type) if strings and element_type is not None else None
        if enums:
            found += filter(None, (problem(s, enums, operator=operator) for s in strings))
    return found


def check_equality(ctx: MethodContext) -> Type:
    return _check(ctx, equality_problems)


def check_membership(ctx: MethodContext) -> Type:
    return _check(ctx, membership_problems)


class StatewrightPlugin(Plugin):
    """Claims only the operator methods it needs, so other plugins keep the rest."""

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        class_name, _, method = fullname.rpartition(".")
        if method in ("__eq__", "__ne__") and (
            class_name == "builtins.str" or self._is_str_enum(class_name)
        ):
            return check_equality
        if method in ("__contains__", "__iter__") and class_name in _CONTAINERS:
            return check_membership
        return None

    def _is_str_enum(self, class_name: str) -> bool:
        symbol = self.lookup_fully_qualified(class_name)
        info = symbol.node if symbol is not None else None
        return isinstance(info, TypeInfo) and info.is_enum and info.has_base("builtins.str")


def plugin(version: str) -> type[Plugin]:
    """The entry point mypy calls (any mypy version: the plugin uses long-standing APIs only)."""
    return StatewrightPlugin

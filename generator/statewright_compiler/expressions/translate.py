"""Checking an expression's types and printing it as Python, in one pass over its tree.

Each node gets a :class:`~.types.Type` and its Python text over four names the generated
functions take: ``data`` (the machine's data, an instance of the generated data class),
``event`` (the ``_event`` value), ``system`` (``_sessionid``, ``_name``, ``_ioprocessors``) and
``active`` (the indexes of the active states, for ``In``). Every subexpression is printed inside
parentheses, so the text means what the tree means whatever the precedence; every literal is
printed with ``repr``. A type error is an :class:`~.syntax.ExpressionError` (code
``type-error``) at the node's offset: a field that does not exist, ``retries + "x"``, a literal
compared with a value it can never hold, a call with arguments of the wrong type.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from statewright_compiler.expressions.nodes import (
    Attribute,
    Binary,
    BoolOp,
    Call,
    Compare,
    Constant,
    DictDisplay,
    Expr,
    ExpressionError,
    IfExp,
    ListDisplay,
    MethodCall,
    Name,
    Slice,
    Subscript,
    Unary,
)
from statewright_compiler.expressions.rules import (
    binary_type,
    call_type,
    check_comparison,
    expect,
    item_type,
    numeric,
    record_field,
    type_error,
    without_none,
)
from statewright_compiler.expressions.types import (
    ANY,
    BOOL,
    EVENT,
    FLOAT,
    INT,
    NEVER,
    NONE,
    STR,
    Type,
    assignable,
    base,
    join_display,
    literal,
    members,
    union,
)
from statewright_compiler.spec.literals import string_literal

__all__ = ["Scope", "Translation", "translate", "translate_condition", "translate_location"]

#: The system variables (SCXML 5.10) and their types.
SYSTEM: Final = {
    "_sessionid": (STR, "system.sessionid"),
    "_name": (STR, "system.name"),
    "_ioprocessors": (Type("dict", (Type("dict", (STR,)),)), "system.ioprocessors"),
}
#: The fields of ``_event`` (SCXML 5.10.1) but ``data``.
EVENT_FIELDS: Final = {
    "name": STR,
    "type": STR,
    "sendid": union(STR, NONE),
    "origin": union(STR, NONE),
    "origintype": union(STR, NONE),
    "invokeid": union(STR, NONE),
}


@dataclass(frozen=True)
class Scope:
    """What the names of one expression slot mean: the data fields, the type of ``_event.data``
    there (the payload of the events that can trigger it) and, for ``In``, each state's test
    over ``active``."""

    data: Mapping[str, Type]
    event_data: Type = ANY
    states: Mapping[str, str] = field(default_factory=dict)
    #: Narrowed types by the Python text of what they narrow (``data.note`` after ``note is not
    #: None and ...``), as mypy narrows them in the generated code.
    narrowed: Mapping[str, Type] = field(default_factory=dict)

    def knowing(self, facts: Mapping[str, Type]) -> Scope:
        return replace(self, narrowed={**self.narrowed, **facts}) if facts else self


@dataclass(frozen=True)
class Translation:
    type: Type
    source: str


def translate(node: Expr, scope: Scope) -> Translation:
    """The type and the Python text of ``node``."""
    result = _TRANSLATORS[type(node)](node, scope)
    if isinstance(node, Name | Attribute | Subscript):
        narrowed = scope.narrowed.get(result.source)
        if narrowed is not None:
            return Translation(narrowed, result.source)
    return result


def _facts(node: Expr, scope: Scope, truth: bool) -> dict[str, Type]:
    """What ``node`` being ``truth`` tells about the types of what it tests (``x is None``,
    ``x is not None``, ``x`` for truth, ``not``, ``and``/``or`` of those), as mypy narrows."""
    if isinstance(node, Unary) and node.operator == "not":
        return _facts(node.operand, scope, not truth)
    if (
        isinstance(node, Compare)
        and len(node.operators) == 1
        and node.operators[0] in ("is", "is not")
    ):
        tested = translate(node.left, scope)
        none_when_true = node.operators[0] == "is"
        return {tested.source: NONE if none_when_true == truth else without_none(tested.type)}
    if isinstance(node, BoolOp) and (node.operator == "and") == truth:
        facts: dict[str, Type] = {}
        for value in node.values:
            facts.update(_facts(value, scope.knowing(facts), truth))
        return facts
    if truth and isinstance(node, Name | Attribute | Subscript):
        tested = translate(node, scope)
        return {tested.source: without_none(tested.type)}
    return {}


def translate_condition(node: Expr, scope: Scope) -> str:
    """A guard: any value, tested for truth (``bool(...)``)."""
    return f"bool({translate(node, scope).source})"


def translate_location(node: Expr, scope: Scope) -> Translation:
    """Where an assignment stores: a data field, or an item of one (``items[0]``,
    ``table["key"]``); its type is what the stored value must be assignable to."""
    if isinstance(node, Name):
        if node.name not in scope.data:
            if node.name in SYSTEM or node.name == "_event":
                raise type_error(node, f"{node.name} is a system variable: it cannot be assigned")
            raise _unknown(node, node.name, scope)
        return Translation(scope.data[node.name], f"data.{node.name}")
    if isinstance(node, Subscript):
        container = translate_location(node.value, scope)
        index = translate(node.index, scope)
        item = item_type(node, container.type, index.type)
        return Translation(item, f"{container.source}[{index.source}]")
    raise type_error(node, "only a data field or an item of one can be assigned to")


def _unknown(node: Expr, name: str, scope: Scope) -> ExpressionError:
    known = [*scope.data, *SYSTEM, "_event"]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return type_error(node, f"{name!r} is not a data field{hint}")


def _constant(node: Constant, scope: Scope) -> Translation:
    value = node.value
    if value is None:
        return Translation(NONE, "None")
    if isinstance(value, float):
        return Translation(FLOAT, repr(value))
    source = string_literal(value) if isinstance(value, str) else repr(value)
    return Translation(literal(value), source)


def _name(node: Name, scope: Scope) -> Translation:
    if node.name in scope.data:
        return Translation(scope.data[node.name], f"data.{node.name}")
    if node.name == "_event":
        return Translation(EVENT(scope.event_data), "event")
    if node.name in SYSTEM:
        found, source = SYSTEM[node.name]
        return Translation(found, source)
    raise _unknown(node, node.name, scope)


def _attribute(node: Attribute, scope: Scope) -> Translation:
    value = translate(node.value, scope)
    name = node.attribute
    kinds = {member.kind for member in members(value.type)}
    if kinds == {"event"}:
        if name == "data":
            return Translation(value.type.args[0], f"{value.source}.data")
        if name in EVENT_FIELDS:
            return Translation(EVENT_FIELDS[name], f"{value.source}.{name}")
        raise type_error(node, f"_event has no field {name!r}")
    if value.type.kind == "any":
        return Translation(ANY, f"lookup({value.source}, {string_literal(name)})")
    if kinds == {"record"}:
        return Translation(
            record_field(node, value.type, name), f"{value.source}[{string_literal(name)}]"
        )
    raise type_error(node, f"{value.type} has no field {name!r}")


def _subscript(node: Subscript, scope: Scope) -> Translation:
    value = translate(node.value, scope)
    index = translate(node.index, scope)
    return Translation(item_type(node, value.type, index.type), f"{value.source}[{index.source}]")


def _slice(node: Slice, scope: Scope) -> Translation:
    value = translate(node.value, scope)
    bounds = []
    for bound in (node.lower, node.upper):
        if bound is None:
            bounds.append("")
            continue
        translated = translate(bound, scope)
        expect(bound, translated.type, {"int", "bool", "none"}, "a slice bound")
        bounds.append(translated.source)
    for member in members(base(value.type)):
        if member.kind not in ("list", "str", "any"):
            raise type_error(node, f"{member} cannot be sliced")
    return Translation(base(value.type), f"{value.source}[{bounds[0]}:{bounds[1]}]")


def _unary(node: Unary, scope: Scope) -> Translation:
    operand = translate(node.operand, scope)
    if node.operator == "not":
        return Translation(BOOL, f"(not {operand.source})")
    numeric(node.operand, operand.type, f"unary {node.operator}")
    result = union(*(INT if each.kind == "bool" else each for each in members(base(operand.type))))
    return Translation(result, f"({node.operator}{operand.source})")


def _binary(node: Binary, scope: Scope) -> Translation:
    left = translate(node.left, scope)
    right = translate(node.right, scope)
    results = []
    for one in members(base(left.type)):
        for other in members(base(right.type)):
            results.append(binary_type(node, one, other, left.type, right.type))
    return Translation(union(*results), f"({left.source} {node.operator} {right.source})")


def _compare(node: Compare, scope: Scope) -> Translation:
    left = translate(node.left, scope)
    parts = [left.source]
    current = left
    for operator, comparator in zip(node.operators, node.comparators, strict=True):
        right = translate(comparator, scope)
        check_comparison(comparator, operator, current.type, right.type)
        parts.append(f"{operator} {right.source}")
        current = right
    return Translation(BOOL, f"({' '.join(parts)})")


def _boolop(node: BoolOp, scope: Scope) -> Translation:
    values = []
    facts: dict[str, Type] = {}
    for each in node.values:  # each operand knows what the ones before it established
        values.append(translate(each, scope.knowing(facts)))
        facts.update(_facts(each, scope.knowing(facts), node.operator == "and"))
    joined = f" {node.operator} ".join(each.source for each in values)
    return Translation(union(*(each.type for each in values)), f"({joined})")


def _ifexp(node: IfExp, scope: Scope) -> Translation:
    test = translate(node.test, scope)
    body = translate(node.body, scope.knowing(_facts(node.test, scope, True)))
    orelse = translate(node.orelse, scope.knowing(_facts(node.test, scope, False)))
    source = f"({body.source} if {test.source} else {orelse.source})"
    return Translation(union(body.type, orelse.type), source)


def _call(node: Call, scope: Scope) -> Translation:
    if node.function == "In":
        return _in(node, scope)
    arguments = [translate(each, scope) for each in node.arguments]
    sources = ", ".join(each.source for each in arguments)
    result = call_type(node, [each.type for each in arguments])
    return Translation(result, f"{node.function}({sources})")


def _in(node: Call, scope: Scope) -> Translation:
    argument = node.arguments[0]
    if not (isinstance(argument, Constant) and isinstance(argument.value, str)):
        raise type_error(argument, "In() needs a state's name as a constant string")
    test = scope.states.get(argument.value)
    if test is None:
        close = difflib.get_close_matches(argument.value, list(scope.states), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise type_error(argument, f"{argument.value!r} is not a state{hint}")
    return Translation(BOOL, f"({test})")


def _method(node: MethodCall, scope: Scope) -> Translation:
    value = translate(node.value, scope)
    arguments = [translate(each, scope) for each in node.arguments]
    sources = ", ".join(each.source for each in arguments)
    found = []
    for member in members(value.type):
        if member.kind == "any":
            return Translation(ANY, f"{value.source}.get({sources})")
        if member.kind == "dict":
            expect(node, arguments[0].type, {"str"}, "a dict key")
            found.append(member.args[0])
        elif member.kind == "record":
            key = node.arguments[0]
            if not (isinstance(key, Constant) and isinstance(key.value, str)):
                raise type_error(key, "a payload's field is read with a constant name")
            found.append(record_field(node, member, key.value))
        else:
            raise type_error(node, f"{member} has no method get")
    default = arguments[1].type if len(arguments) > 1 else NONE
    return Translation(union(*found, default), f"{value.source}.get({sources})")


def _list(node: ListDisplay, scope: Scope) -> Translation:
    items = [translate(each, scope) for each in node.items]
    item_type = join_display(each.type for each in items) if items else NEVER
    return Translation(Type("list", (item_type,)), f"[{', '.join(each.source for each in items)}]")


def _dict(node: DictDisplay, scope: Scope) -> Translation:
    keys = [translate(each, scope) for each in node.keys]
    for key, each in zip(node.keys, keys, strict=True):
        expect(key, each.type, {"str"}, "a dict key")
    values = [translate(each, scope) for each in node.values]
    value_type = join_display(each.type for each in values) if values else NEVER
    pairs = ", ".join(f"{k.source}: {v.source}" for k, v in zip(keys, values, strict=True))
    return Translation(Type("dict", (value_type,)), "{" + pairs + "}")


_TRANSLATORS: Final[dict[type[Expr], Callable[[Any, Scope], Translation]]] = {
    Constant: _constant,
    Name: _name,
    Attribute: _attribute,
    Subscript: _subscript,
    Slice: _slice,
    Unary: _unary,
    Binary: _binary,
    Compare: _compare,
    BoolOp: _boolop,
    IfExp: _ifexp,
    Call: _call,
    MethodCall: _method,
    ListDisplay: _list,
    DictDisplay: _dict,
}


def check_assignable(node: Expr, value: Type, target: Type, what: str) -> None:
    """A type error unless a ``value`` may be stored where ``target`` is declared."""
    if not assignable(value, target):
        raise type_error(node, f"{what} is {target}, and {value} is not")

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
from collections.abc import Callable
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
from statewright_compiler.expressions.scope import (
    EVENT_FIELDS,
    SYSTEM,
    Scope,
    Translation,
    unknown_name,
)
from statewright_compiler.expressions.tidy import (
    FLIPPED,
    NEGATED,
    call,
    changes_nothing,
    check_boolop,
    check_dict_keys,
    check_equality,
    check_mapping,
    check_membership,
    constant_like,
)
from statewright_compiler.expressions.types import (
    ANY,
    BOOL,
    EVENT,
    FLOAT,
    INT,
    NEVER,
    NONE,
    Type,
    base,
    join_display,
    literal,
    members,
    union,
)
from statewright_compiler.spec.literals import string_literal

__all__ = ["Scope", "Translation", "translate", "translate_condition"]


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
    return call("bool", [translate(node, scope).source])


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
    raise unknown_name(node, node.name, scope)


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
    operand_node = node.operand
    if node.operator == "not":
        if isinstance(operand_node, Unary) and operand_node.operator == "not":
            inner = translate(operand_node.operand, scope)
            return Translation(BOOL, call("bool", [inner.source]))  # not not x (SIM208)
        if (
            isinstance(operand_node, Compare)
            and len(operand_node.operators) == 1
            and operand_node.operators[0] in NEGATED
        ):
            negated = Compare(
                operand_node.offset,
                operand_node.left,
                (NEGATED[operand_node.operators[0]],),
                operand_node.comparators,
            )
            return _compare(negated, scope)  # not a == b is a != b (SIM201, E713, E714)
        return Translation(BOOL, f"(not {translate(operand_node, scope).source})")
    negative = node.operator == "-"
    while isinstance(operand_node, Unary) and operand_node.operator in ("-", "+"):
        negative ^= operand_node.operator == "-"  # --x is +x (B002)
        operand_node = operand_node.operand
    operand = translate(operand_node, scope)
    numeric(operand_node, operand.type, f"unary {node.operator}")
    result = union(*(INT if each.kind == "bool" else each for each in members(base(operand.type))))
    return Translation(result, f"({'-' if negative else '+'}{operand.source})")


def _binary(node: Binary, scope: Scope) -> Translation:
    left = translate(node.left, scope)
    right = translate(node.right, scope)
    results = []
    for one in members(base(left.type)):
        for other in members(base(right.type)):
            results.append(binary_type(node, one, other, left.type, right.type))
    result = union(*results)
    displays = [isinstance(side, ListDisplay) for side in (node.left, node.right)]
    if node.operator == "+" and any(displays) and result.kind == "list":
        items = []  # [1] + items is [1, *items] (RUF005)
        for side, is_display, translated in zip(
            (node.left, node.right), displays, (left, right), strict=True
        ):
            if isinstance(side, ListDisplay) and is_display:
                items += [translate(item, scope).source for item in side.items]
            else:
                items.append(f"*{translated.source}")
        return Translation(result, f"[{', '.join(items)}]")
    return Translation(result, f"({left.source} {node.operator} {right.source})")


def _compare(node: Compare, scope: Scope) -> Translation:
    if (
        len(node.operators) == 1
        and node.operators[0] in FLIPPED
        and constant_like(node.left)
        and not constant_like(node.comparators[0])
    ):  # 1 < x is x > 1 (SIM300)
        node = Compare(
            node.offset, node.comparators[0], (FLIPPED[node.operators[0]],), (node.left,)
        )
    left = translate(node.left, scope)
    parts = [left.source]
    current = left
    untyped = left.type.kind == "any"
    for operator, comparator in zip(node.operators, node.comparators, strict=True):
        check_equality(operator, comparator)
        check_membership(operator, comparator)
        right = translate(comparator, scope)
        check_comparison(comparator, operator, current.type, right.type)
        if right.source == "None" and operator in ("==", "!="):
            operator = "is" if operator == "==" else "is not"  # E711
        parts.append(f"{operator} {right.source}")
        current = right
        untyped = untyped or right.type.kind == "any"
    if untyped:  # mypy types a comparison with an Any operand as Any: make it the bool it is
        return Translation(BOOL, call("bool", [" ".join(parts)]))
    return Translation(BOOL, f"({' '.join(parts)})")


def _boolop(node: BoolOp, scope: Scope) -> Translation:
    check_boolop(node)
    values = []
    facts: dict[str, Type] = {}
    for each in node.values:  # each operand knows what the ones before it established
        values.append(translate(each, scope.knowing(facts)))
        facts.update(_facts(each, scope.knowing(facts), node.operator == "and"))
    joined = f" {node.operator} ".join(each.source for each in values)
    # What an operand but the last gives when it decides: ``x or ""`` is never x's None.
    kept = [without_none(v.type) if node.operator == "or" else v.type for v in values[:-1]]
    return Translation(union(*kept, values[-1].type), f"({joined})")


def _ifexp(node: IfExp, scope: Scope) -> Translation:
    test = translate(node.test, scope)
    body = translate(node.body, scope.knowing(_facts(node.test, scope, True)))
    orelse = translate(node.orelse, scope.knowing(_facts(node.test, scope, False)))
    result = union(body.type, orelse.type)
    if body.source == orelse.source:
        raise ExpressionError("both branches of this 'if' are the same", node.offset)
    constants = (node.body, node.orelse)
    if all(isinstance(each, Constant) and isinstance(each.value, bool) for each in constants):
        assert isinstance(node.body, Constant)  # for mypy: checked just above
        if node.body.value:  # True if c else False is bool(c) (SIM210, SIM211)
            return Translation(BOOL, call("bool", [test.source]))
        return Translation(BOOL, f"(not {test.source})")
    if isinstance(node.test, Unary) and node.test.operator == "not":
        tested = translate(node.test.operand, scope)
        if tested.source == orelse.source:  # b if not a else a is a if a else b (SIM212)
            return Translation(result, f"({orelse.source} if {orelse.source} else {body.source})")
    found = _get_form(node, scope, body, orelse)
    if found is not None:
        return Translation(result, found)
    return Translation(result, f"({body.source} if {test.source} else {orelse.source})")


def _get_form(node: IfExp, scope: Scope, body: Translation, orelse: Translation) -> str | None:
    """``c[k] if k in c else d`` as ``c.get(k, d)`` (SIM401), for a mapping; refused for a list
    (whose ``in`` tests items, not indexes)."""
    test = node.test
    if not (isinstance(test, Compare) and len(test.operators) == 1):
        return None
    operator = test.operators[0]
    item, default = (body, orelse) if operator == "in" else (orelse, body)
    key = translate(test.left, scope)
    container = translate(test.comparators[0], scope)
    if operator not in ("in", "not in") or item.source != f"{container.source}[{key.source}]":
        return None
    check_mapping(node, container.type)
    arguments = [key.source] if default.source == "None" else [key.source, default.source]
    return call(f"{container.source}.get", arguments)


def _call(node: Call, scope: Scope) -> Translation:
    if node.function == "In":
        return _in(node, scope)
    arguments = [translate(each, scope) for each in node.arguments]
    result = call_type(node, [each.type for each in arguments])
    if node.arguments and changes_nothing(node.function, node.arguments[0], arguments[0].type):
        return Translation(result, arguments[0].source)  # str("a"), int(len(x))
    return Translation(result, call(node.function, [each.source for each in arguments]))


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
    found = []
    for member in members(value.type):
        if member.kind == "any":
            return Translation(ANY, call(f"{value.source}.get", [a.source for a in arguments]))
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
    given = [each.source for each in arguments]
    if given[1:] == ["None"]:
        given = given[:1]  # .get(k, None) is .get(k) (SIM910)
    return Translation(union(*found, default), call(f"{value.source}.get", given))


def _list(node: ListDisplay, scope: Scope) -> Translation:
    items = [translate(each, scope) for each in node.items]
    item_type = join_display(each.type for each in items) if items else NEVER
    return Translation(Type("list", (item_type,)), f"[{', '.join(each.source for each in items)}]")


def _dict(node: DictDisplay, scope: Scope) -> Translation:
    check_dict_keys(node)
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

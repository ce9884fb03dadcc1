"""The expression language on its own: what parses, what the allowlist refuses (and where), what
the type pass rejects, and the Python each expression becomes. No expression is evaluated here:
the translations are only compiled (``compile``) to prove they are Python."""

from __future__ import annotations

import pytest
from statewright_compiler.expressions.locations import translate_location
from statewright_compiler.expressions.nodes import ExpressionError
from statewright_compiler.expressions.syntax import parse_expression
from statewright_compiler.expressions.translate import Scope, translate, translate_condition
from statewright_compiler.expressions.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NONE,
    STR,
    Type,
    assignable,
    literal,
    union,
)

VERDICT = Type("literal", values=("complete", "continue", "replan"))
PAYLOAD = Type(
    "record", fields=(("code", STR, True), ("verdict", VERDICT, True)), name="UnlockPayload"
)
SCOPE = Scope(
    data={
        "retries": INT,
        "limit": INT,
        "ratio": FLOAT,
        "items": Type("list", (STR,)),
        "numbers": Type("list", (INT,)),
        "table": Type("dict", (INT,)),
        "note": union(STR, NONE),
        "flag": BOOL,
        "anything": ANY,
    },
    event_data=PAYLOAD,
    states={"waiting": "3 in active", "working": "not active.isdisjoint((4, 5))"},
)


@pytest.mark.parametrize(
    ("text", "expected_type", "python"),
    [
        ("retries < limit", "bool", "(data.retries < data.limit)"),
        ("retries + 1", "int", "(data.retries + 1)"),
        ("retries / 2", "float", "(data.retries / 2)"),
        ("retries // 2 + ratio", "float", "((data.retries // 2) + data.ratio)"),
        ("-retries", "int", "(-data.retries)"),
        ("not flag", "bool", "(not data.flag)"),
        ("items[0] + '!'", "str", '(data.items[0] + "!")'),
        ("items[1:]", "list[str]", "data.items[1:]"),
        ("table['a'] * 2", "int", '(data.table["a"] * 2)'),
        ("table.get('a', 0)", "int", 'data.table.get("a", 0)'),
        ("table.get('a')", "int | None", 'data.table.get("a")'),
        ("_event.data.code", "str", 'event.data["code"]'),
        ("_event.data['code']", "str", 'event.data["code"]'),
        ("_event.data.verdict == 'replan'", "bool", '(event.data["verdict"] == "replan")'),
        ("_event.name", "str", "event.name"),
        ("_event.sendid", "str | None", "event.sendid"),
        ("_sessionid", "str", "system.sessionid"),
        ("_name", "str", "system.name"),
        (
            "In('waiting') or In('working')",
            "bool",
            "((3 in active) or (not active.isdisjoint((4, 5))))",
        ),
        ("anything.field", "Any", 'lookup(data.anything, "field")'),
        ("anything.get('k')", "Any", 'data.anything.get("k")'),
        ("[1, 2, 3]", "list[int]", "[1, 2, 3]"),
        ("{'a': 1}", "dict[str, int]", '{"a": 1}'),
        ("[]", "list[Never]", "[]"),
        ("retries if flag else 'no'", "int | Literal['no']", None),
        ("min(retries, limit)", "int", "min(data.retries, data.limit)"),
        ("max(ratio, 1)", "float", "max(data.ratio, 1)"),
        ("str(retries) + 'x'", "str", None),
        ("int('3') + 1", "int", None),
        ("abs(-2)", "int", None),
        ("round(ratio)", "int", None),
        ("'a' in items", "bool", '("a" in data.items)'),
        ("'k' not in table", "bool", None),
        ("2 ** 10", "int", "(2 ** 10)"),
        ("'ab' * 3", "str", None),
        ("hasattr(_event, 'name')", "bool", 'hasattr(event, "name")'),
        ("1 < retries <= limit", "bool", "(1 < data.retries <= data.limit)"),
        ('"it\'s"', 'Literal["it\'s"]', '"it\'s"'),
        ("note is not None and len(note) > 3", "bool", None),
        ("len(note) if note is not None else 0", "int", None),
        ("note is None or len(note) > 3", "bool", None),
        ("note and len(note)", "str | None | int", None),
    ],
)
def test_expressions_get_their_type_and_python(
    text: str, expected_type: str, python: str | None
) -> None:
    translation = translate(parse_expression(text), SCOPE)
    assert str(translation.type) == expected_type
    if python is not None:
        assert translation.source == python
    compile(translation.source, "<translation>", "eval")  # Python, not run


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ("lambda: 1", 0, "a lambda is not allowed"),
        ("[x for x in items]", 0, "a comprehension is not allowed"),
        ("(y := 1)", 1, "an assignment expression (:=) is not allowed"),
        ("f'{retries}'", 0, "an f-string is not allowed"),
        ("__import__('os')", 0, "only these functions may be called"),
        ("open('x')", 0, "only these functions may be called"),
        ("retries.__class__", 0, "attributes starting with '_' are not allowed"),
        ("__builtins__", 0, "names starting with '__' are not allowed"),
        ("len(*items)", 4, "a starred expression is not allowed"),
        ("len(items, key=1)", 15, "keyword arguments are not allowed"),
        ("retries ~ 1", 8, "not an expression"),
        ("~retries", 0, "the operator ~ is not allowed"),
        ("retries & 1", 0, "bitwise and matrix operators are not allowed"),
        ("{1, 2}", 0, "a set is not allowed"),
        ("(1, 2)", 0, "a tuple is not allowed"),
        ("items[::2]", 8, "a slice with a step is not allowed"),
        ("retries is 1", 11, "'is' compares with None only"),
        ("", 0, "the expression is empty"),
        ("retries +", 9, "not an expression"),
        ("x = 1", 2, "not an expression"),
        ("'\\d'", 0, "invalid escape sequence"),  # only a warning in Python, for now
    ],
)
def test_the_allowlist_refuses_everything_else_where_it_is_written(
    text: str, offset: int, message: str
) -> None:
    with pytest.raises(ExpressionError) as info:
        translate(parse_expression(text), SCOPE)
    assert info.value.code == "invalid-expression"
    assert message in str(info.value)
    assert info.value.offset == offset


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ("9 ** 9 ** 9", 5, "the exponent of ** must be a whole number from 0 to 64"),
        ("2 ** retries", 5, "the exponent of ** must be a whole number"),
        ("'x' * 100001", 6, "repeated by a constant count of at most 10000"),
        ("items * retries", 8, "repeated by a constant count"),
        ("1" * 20, 0, "an integer has at most 19 digits"),
        ("'" + "a" * 1001 + "'", 0, "a string has at most 1000 characters"),
        ("(" * 40 + "1" + ")" * 40, 32, "brackets nest more than 32 levels deep"),
        ("retries + " * 300 + "1", 2000, "an expression is at most 2000 characters"),
    ],
)
def test_unbounded_computation_does_not_compile(text: str, offset: int, message: str) -> None:
    with pytest.raises(ExpressionError) as info:
        translate(parse_expression(text), SCOPE)
    assert info.value.code == "limit-exceeded"
    assert message in str(info.value)
    assert info.value.offset == offset


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ("retries + 'x'", 0, "unsupported operand types for +"),
        ("retrys > 1", 0, "'retrys' is not a data field; did you mean 'retries'?"),
        ("_event.data.verdict == 'finished'", 23, "are never equal"),
        ("_event.data.code == 3", 20, "are never equal"),
        ("_event.data.missing", 0, "has no field 'missing'"),
        ("_event.nme", 0, "_event has no field 'nme'"),
        ("retries is None", 11, "int is never None"),
        ("items < 3", 8, "cannot be ordered"),
        ("len(retries)", 0, "len() needs a list, dict or string"),
        ("items['a']", 0, "a list or string index must be"),
        ("table[1]", 0, "a dict key must be str"),
        ("In('nowhere')", 3, "'nowhere' is not a state"),
        ("In(note)", 3, "In() needs a state's name as a constant string"),
        ("retries.get('a')", 0, "int has no method get"),
        ("-note", 1, "unary - needs a number"),
        ("retries[0]", 0, "int cannot be indexed"),
        ("1 in retries", 5, "int cannot hold items"),
        ("min(items, 1)", 0, "min() needs numbers or strings"),
    ],
)
def test_type_errors_are_reported_at_the_expression(text: str, offset: int, message: str) -> None:
    with pytest.raises(ExpressionError) as info:
        translate(parse_expression(text), SCOPE)
    assert info.value.code == "type-error"
    assert message in str(info.value)
    assert info.value.offset == offset


def test_a_multi_line_expression_reports_the_character_offset() -> None:
    text = "retries +\n  'é' +\n  lambda: 1"
    with pytest.raises(ExpressionError) as info:
        parse_expression(f"({text})")
    assert text[info.value.offset - 1 :].startswith("lambda")


def test_locations_are_data_fields_and_their_items() -> None:
    assert translate_location(parse_expression("retries"), SCOPE).source == "data.retries"
    item = translate_location(parse_expression("items[0]"), SCOPE)
    assert (str(item.type), item.source) == ("str", "data.items[0]")
    for text, message in [
        ("_sessionid", "_sessionid is a system variable: it cannot be assigned"),
        ("_event", "_event is a system variable: it cannot be assigned"),
        ("retries + 1", "only a data field or an item of one can be assigned to"),
        ("nothing", "'nothing' is not a data field"),
    ]:
        with pytest.raises(ExpressionError, match=message):
            translate_location(parse_expression(text), SCOPE)


def test_conditions_test_any_value_for_truth() -> None:
    assert translate_condition(parse_expression("items"), SCOPE) == "bool(data.items)"


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        (INT, FLOAT, True),
        (BOOL, INT, True),
        (FLOAT, INT, False),
        (literal("a"), STR, True),
        (literal("a"), Type("literal", values=("a", "b")), True),
        (literal("c"), Type("literal", values=("a", "b")), False),
        (NONE, union(STR, NONE), True),
        (union(STR, NONE), STR, False),
        (Type("list", (INT,)), Type("list", (FLOAT,)), False),
        (Type("list", (Type("never"),)), Type("list", (STR,)), True),
        (ANY, INT, True),
        (INT, ANY, True),
    ],
)
def test_assignability_follows_mypy(source: Type, target: Type, expected: bool) -> None:
    assert assignable(source, target) is expected


@pytest.mark.parametrize(
    ("text", "python"),
    [
        ("not retries == limit", "(data.retries != data.limit)"),  # SIM201
        ("not 'a' in items", '("a" not in data.items)'),  # E713
        ("not note is None", "(data.note is not None)"),  # E714
        ("not not flag", "bool(data.flag)"),  # SIM208
        ("1 < retries", "(data.retries > 1)"),  # SIM300
        ("-1 >= retries", "(data.retries <= (-1))"),
        ("None == note", "(data.note is None)"),  # SIM300, E711
        ("note != None", "(data.note is not None)"),  # E711
        ("--retries", "(+data.retries)"),  # B002
        ("-(+retries)", "(-data.retries)"),
        ("str('a')", '"a"'),  # UP018
        ("int(len(items))", "len(data.items)"),  # RUF046
        ("int(ratio)", "int(data.ratio)"),
        ("['a'] + items", '["a", *data.items]'),  # RUF005
        ("items + ['b']", '[*data.items, "b"]'),
        ("table.get('a', None)", 'data.table.get("a")'),  # SIM910
        ("True if flag else False", "bool(data.flag)"),  # SIM210
        ("False if flag else True", "(not data.flag)"),  # SIM211
        ("limit if not retries else retries", "(data.retries if data.retries else data.limit)"),
        ("table['a'] if 'a' in table else 0", 'data.table.get("a", 0)'),  # SIM401
        ("0 if 'a' not in table else table['a']", 'data.table.get("a", 0)'),
        ("note or ''", '(data.note or "")'),
    ],
)
def test_printed_forms_are_the_ones_ruff_asks_for(text: str, python: str) -> None:
    """What ruff's rules would flag is printed as its plain equivalent, meaning the same."""
    assert translate(parse_expression(text), SCOPE).source == python


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ("True or flag", 0, "this operand is always true"),  # SIM222
        ("flag and 0 and retries", 9, "this operand is always false"),  # SIM223
        ("retries if flag else retries", 0, "both branches of this 'if' are the same"),  # RUF034
        ("flag == True", 8, "compare with a boolean by testing the value itself"),  # E712
        ("{'a': 1, 'a': 2}", 9, "the key 'a' is written twice"),  # F601
        ("retries in []", 11, "'in' an empty collection is always False"),  # RUF060
        ("numbers[0] if 0 in numbers else -1", 0, "reads an index, not that value"),  # SIM401
    ],
)
def test_forms_ruff_would_flag_and_that_say_nothing_are_refused(
    text: str, offset: int, message: str
) -> None:
    with pytest.raises(ExpressionError) as info:
        translate(parse_expression(text), SCOPE)
    assert info.value.code == "invalid-expression"
    assert message in str(info.value)
    assert info.value.offset == offset


def test_or_keeps_a_default_for_none() -> None:
    """``note or ''`` is a ``str``: what decides an ``or`` before its last operand is true."""
    assert str(translate(parse_expression("note or ''"), SCOPE).type) == "str"
    assert str(translate(parse_expression("note and 1"), SCOPE).type) == "str | None | Literal[1]"

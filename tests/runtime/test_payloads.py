"""The payload boundary: untrusted arguments against the spec's types, and the same types as JSON
Schema, held against a real JSON Schema validator (``jsonschema``) by hypothesis."""

from __future__ import annotations

import contextlib
import json
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from statewright._payloads import (
    FieldShape,
    InvalidPayload,
    TypeShape,
    check_payload,
    parse_arguments,
    payload_schema,
)

from tests.fuzz import examples

ORDER: list[FieldShape] = [
    ("amount", ("int",), True),
    ("method", ("literal", ("card", "cash", 1, True, None)), True),
    ("note", ("union", (("str",), ("none",))), False),
    ("items", ("list", ("dict", ("union", (("int",), ("str",))))), False),
    ("price", ("named", "decimal.Decimal"), False),
]


def test_a_valid_payload_is_returned_whole_with_defaults() -> None:
    payload = check_payload("PAY", ORDER, {"amount": 3.0, "method": "card", "price": "1.50"})
    assert payload == {
        "amount": 3,
        "method": "card",
        "note": None,
        "items": None,
        "price": Decimal("1.50"),
    }
    assert type(payload["amount"]) is int


@pytest.mark.parametrize(
    ("arguments", "path", "reason"),
    [
        ({"method": "card"}, ("amount",), "is required"),
        ({"amount": 1, "method": "card", "bogus": 1}, ("bogus",), "is not a field"),
        ({"amount": "1", "method": "card"}, ("amount",), 'expected an integer, got a string "1"'),
        ({"amount": True, "method": "card"}, ("amount",), "expected an integer, got a boolean"),
        ({"amount": 1.5, "method": "card"}, ("amount",), "expected an integer, got a number 1.5"),
        ({"amount": 1, "method": "cheque"}, ("method",), 'expected one of "card", "cash", 1'),
        ({"amount": 1, "method": 1.0, "items": [{"a": 1}, {"b": 2.5}]}, ("items", 1, "b"),
         "expected an integer"),
        ({"amount": 1, "method": "card", "price": "1,5"}, ("price",),
         "not a valid decimal.Decimal"),
        ({"amount": 1, "method": "card", "note": 7}, ("note",), "expected a string"),
    ],
)  # fmt: skip
def test_the_first_problem_is_named_by_its_path(
    arguments: dict[str, Any], path: tuple[str | int, ...], reason: str
) -> None:
    with pytest.raises(InvalidPayload) as raised:
        check_payload("PAY", ORDER, arguments)
    assert raised.value.path == path
    assert reason in raised.value.reason
    assert str(raised.value).startswith("payload of PAY: ")


def test_literal_equality_is_json_equality() -> None:
    fields: list[FieldShape] = [("x", ("literal", (1, True, None, "1")), True)]
    assert check_payload("E", fields, {"x": 1.0}) == {"x": 1}
    assert check_payload("E", fields, {"x": True})["x"] is True
    assert check_payload("E", fields, {"x": None}) == {"x": None}
    with pytest.raises(InvalidPayload):
        check_payload("E", fields, {"x": False})


def test_json_text_is_parsed_and_nan_refused() -> None:
    assert parse_arguments("E", '{"a": [1, 2]}') == {"a": [1, 2]}
    assert parse_arguments("E", None) == {}
    for text, reason in [("[1]", "expected a JSON object"), ('{"a": NaN}', "NaN"), ("{", "JSON")]:
        with pytest.raises(InvalidPayload, match=reason):
            parse_arguments("E", text)
    with pytest.raises(InvalidPayload, match="nests too deeply"):
        parse_arguments("E", "[" * 100_000 + "]" * 100_000)


def test_object_fields_take_any_json_but_not_other_objects() -> None:
    fields: list[FieldShape] = [("data", ("object",), True)]
    assert check_payload("E", fields, {"data": {"a": [1, None]}}) == {"data": {"a": [1, None]}}
    for bad in (object(), math.inf, {"a": {1, 2}}):
        with pytest.raises(InvalidPayload):
            check_payload("E", fields, {"data": bad})


def test_a_named_type_without_a_codec_is_a_clear_error() -> None:
    fields: list[FieldShape] = [("when", ("named", "app.Moment"), True)]
    with pytest.raises(InvalidPayload, match=r"no codec for app\.Moment"):
        check_payload("E", fields, {"when": "now"})


def test_builtin_codecs_decode_their_json_forms() -> None:
    fields: list[FieldShape] = [
        ("at", ("named", "datetime.datetime"), True),
        ("on", ("named", "datetime.date"), True),
        ("id", ("named", "uuid.UUID"), True),
    ]
    payload = check_payload(
        "E", fields, {"at": "2026-01-02T03:04:05+00:00", "on": "2026-01-02", "id": "1" * 32}
    )
    assert payload["at"].year == 2026 and payload["on"].day == 2 and payload["id"].hex == "1" * 32


# -- the schema and the check agree -----------------------------------------------------------

SCALARS: list[TypeShape] = [("str",), ("int",), ("float",), ("bool",), ("none",), ("object",)]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4) | st.sampled_from(["a", "b", "1"]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "x", "y"]), children, max_size=3),
    max_leaves=8,
)  # fmt: skip
literals = st.lists(
    st.sampled_from(["a", "b", "", "1", 0, 1, -5, True, False, None]), min_size=1, max_size=4
)
shapes: st.SearchStrategy[TypeShape] = st.recursive(
    st.sampled_from(SCALARS) | literals.map(lambda values: ("literal", tuple(values))),
    lambda children: (
        children.map(lambda child: ("list", child))
        | children.map(lambda child: ("dict", child))
        | st.lists(children, min_size=2, max_size=3).map(lambda items: ("union", tuple(items)))
    ),
    max_leaves=4,
)
field_lists = st.dictionaries(
    st.sampled_from(["a", "b", "x", "y"]), st.tuples(shapes, st.booleans()), max_size=3
).map(lambda fields: [(name, shape, required) for name, (shape, required) in fields.items()])


def _value_of(shape: TypeShape, data: st.DataObject) -> Any:
    """A value of ``shape`` (mostly): so that the accepting side is exercised too."""
    kind = shape[0]
    strategies: dict[str, st.SearchStrategy[Any]] = {
        "str": st.text(max_size=3), "int": st.integers(), "bool": st.booleans(),
        "float": st.floats(allow_nan=False, allow_infinity=False), "none": st.none(),
        "object": json_values, "any": json_values,
    }  # fmt: skip
    if kind in strategies:
        return data.draw(strategies[kind])
    if kind == "literal":
        return data.draw(st.sampled_from(shape[1]))
    if kind == "list":
        return [_value_of(shape[1], data) for _ in range(data.draw(st.integers(0, 2)))]
    if kind == "dict":
        return {key: _value_of(shape[1], data) for key in data.draw(st.sets(st.sampled_from("ab")))}
    return _value_of(data.draw(st.sampled_from(shape[1])), data)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field_lists, st.data())
def test_the_schema_accepts_exactly_what_the_check_accepts(
    fields: list[FieldShape], data: st.DataObject
) -> None:
    schema = payload_schema(fields)
    Draft202012Validator.check_schema(schema)
    if data.draw(st.booleans(), label="well-typed"):
        arguments = {
            name: _value_of(shape, data)
            for name, shape, required in fields
            if required or data.draw(st.booleans())
        }
    else:
        arguments = data.draw(st.dictionaries(st.sampled_from(["a", "b", "x", "z"]), json_values))
    arguments = json.loads(json.dumps(arguments))  # what a tool call delivers
    valid = Draft202012Validator(schema).is_valid(arguments)
    try:
        check_payload("E", fields, arguments)
    except InvalidPayload:
        assert not valid, (schema, arguments)
    else:
        assert valid, (schema, arguments)


@settings(max_examples=examples(200), deadline=None)
@given(field_lists, st.text() | st.binary() | json_values.map(json.dumps))
def test_any_input_gets_a_payload_or_invalid_payload(fields: list[FieldShape], raw: Any) -> None:
    with contextlib.suppress(InvalidPayload):
        check_payload("E", fields, parse_arguments("E", raw))

"""The JSON Schema ``statewright schema`` prints accepts every spec of the repository (the data
model's keys included) and refuses what the compiler refuses for its shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from statewright_compiler.spec.schema import SCHEMA
from statewright_compiler.spec.toml_compat import tomllib

REPO = Path(__file__).parents[2]
SPECS = sorted(
    [
        *REPO.glob("tests/cases/*/spec.toml"),
        *REPO.glob("spec/*.toml"),
        *REPO.glob("examples/*.toml"),
    ]
)
VALIDATOR = Draft202012Validator(SCHEMA)


def test_the_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("spec", SPECS, ids=[f"{p.parent.name}/{p.stem}" for p in SPECS])
def test_every_spec_of_the_repository_is_valid(spec: Path) -> None:
    document = tomllib.loads(spec.read_text(encoding="utf-8"))
    errors = [error.message for error in VALIDATOR.iter_errors(document)]
    assert not errors, errors


DATA_SPEC = """
[machine]
name = "S"
initial = "a"
binding = "late"
[data]
n = { type = "int", initial = 0 }
[states.a]
on.GO = { to = "a", cond = "n < 3", actions = [
  { assign = "n", expr = "n + 1" },
  { if = "n > 1", then = [{ log = "n", expr = "n" }], elif = [{ if = "n", then = [] }] },
  { foreach = "[1]", item = "n", index = "n", do = [] },
  { eventexpr = "'GO'", delayexpr = "1", idlocation = "n", namelist = ["n"] },
  { send = "GO", data = { x = "n" }, target = "#_internal", typeexpr = "'scxml'" },
  { cancel_expr = "'x'" },
] }
[states.b]
kind = "final"
donedata = { n = "n" }
"""


@pytest.mark.parametrize(
    ("change", "valid"),
    [
        (("", ""), True),
        (("{ cancel_expr = \"'x'\" }", '{ cancel_expr = "\'x\'", cancel = "x" }'), False),
        (("eventexpr = \"'GO'\"", 'send = "GO", eventexpr = "\'GO\'"'), False),
        (('{ type = "int", initial = 0 }', '{ type = "int", intial = 0 }'), False),
        (('binding = "late"', 'binding = "lazy"'), False),
        (('item = "n", index', "index"), False),
    ],
)
def test_the_data_models_keys_are_in_the_schema(change: tuple[str, str], valid: bool) -> None:
    assert change[0] in DATA_SPEC
    document = tomllib.loads(DATA_SPEC.replace(*change))
    assert VALIDATOR.is_valid(document) is valid

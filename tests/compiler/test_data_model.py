"""The data model through the whole compiler: what makes a spec a chart, what ``_event.data`` is
in each slot, how a send's data meets its event's payload, which fields the data class sets, and
that every module is lint-clean and passes ``mypy --strict`` (one mypy run for all of them)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import SpecError
from statewright_compiler.model import AssignStep, Machine, SendStep
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.compiler.soundness import lint_findings
from tests.typing import run_mypy

HEAD = '[machine]\nname = "Counter"\ninitial = "idle"\n'
EVENTS = """
[events]
GO = { payload = { amount = "int", note = "str | None" } }
STOP = { payload = { amount = "int" } }
"""


def machine(text: str) -> Machine:
    compiled, _ = validate_source(parse_spec_text(text, "counter.toml"))
    return compiled


def errors(text: str) -> list[str]:
    with pytest.raises(SpecError) as info:
        validate_source(parse_spec_text(text, "counter.toml"))
    return [f"{d.line}:{d.column}: {d.code}: {d.message}" for d in info.value.diagnostics]


@pytest.mark.parametrize(
    "states",
    [
        '[data]\ncount = { type = "int", initial = 0 }\n[states.idle]\non.GO = "idle"\n',
        '[states.idle]\non.GO = "idle"\n[states.idle.data]\ncount = { type = "int" }\n',
        '[states.idle]\non.GO = { to = "idle", cond = "_event.data.amount > 0" }\n',
        '[states.idle]\non.GO = { to = "idle", actions = [{ log = "n", expr = "1" }] }\n',
    ],
    ids=["data", "state data", "cond", "expression step"],
)
def test_any_data_model_content_makes_the_spec_a_statechart(states: str) -> None:
    assert machine(HEAD + EVENTS + states.replace('type = "int" }', 'type = "int | None" }')).chart


def test_a_spec_without_data_model_stays_flat() -> None:
    assert not machine(HEAD + EVENTS + '[states.idle]\non.GO = "idle"\non.STOP = "idle"\n').chart


def test_each_slot_sees_the_payloads_of_the_events_that_reach_it() -> None:
    compiled = machine(
        HEAD
        + EVENTS
        + """
[data]
total = { type = "int", initial = 0 }
double = { type = "int", expr = "total * 2" }

[states.idle]
entry = [{ assign = "total", expr = "total" }]
on.GO = { to = "busy", cond = "_event.data.amount > 0" }
on.STOP = { to = "busy", actions = [{ assign = "total", expr = "_event.data.amount" }] }

[states.busy]
always = { to = "idle", cond = "total > 10" }
"""
    )
    go, stop = compiled.rules[0], compiled.rules[1]
    assert go.cond is not None and go.cond.event_data == "GoPayload"
    step = stop.steps[0]
    assert isinstance(step, AssignStep) and step.value.event_data == "StopPayload"
    entry = compiled.state("idle").entry[0]  # entered at start and by the eventless transition
    assert isinstance(entry, AssignStep) and entry.value.event_data == "Mapping[str, object]"
    eventless = compiled.rules[2].cond
    assert eventless is not None
    assert eventless.event_data == "GoPayload | StopPayload | Mapping[str, object]"
    double = compiled.data[1].expr
    assert double is not None and double.event_data == "Mapping[str, object]"


def test_event_data_where_no_event_may_be_is_a_type_error_at_its_position() -> None:
    text = (
        HEAD
        + EVENTS
        + """
[data]
total = { type = "int", initial = 0 }

[states.idle]
entry = [{ assign = "total", expr = "_event.data.amount" }]
on.GO = "idle"
on.STOP = "idle"
"""
    )
    [found] = errors(text)
    assert found.startswith("13:38: type-error: in the value: _event.data has no field 'amount'")


def test_a_send_gets_its_events_payload_with_the_optional_fields_left_out_as_none() -> None:
    compiled = machine(
        HEAD
        + EVENTS
        + """
[states.idle]
on.STOP = { to = "idle", actions = [{ send = "GO", data = { amount = "_event.data.amount" } }] }
on.GO = "idle"
"""
    )
    send = compiled.rules[0].steps[0]
    assert isinstance(send, SendStep) and send.data is not None
    assert send.data.python == '{"amount": event.data["amount"], "note": None}'
    assert send.data.returns == "GoPayload"


def test_a_send_must_give_every_required_field_of_its_event() -> None:
    text = (
        HEAD
        + EVENTS
        + """
[states.idle]
on.GO = { to = "idle", actions = [{ send = "STOP", data = { amont = "1" } }] }
on.STOP = "idle"
"""
    )
    found = errors(text)
    assert any("event 'STOP' has no payload field 'amont'" in each for each in found)
    assert any("leaves out its payload field 'amount'" in each for each in found)


DATA_SPEC = """
[machine]
name = "Ledger"
initial = "open"
binding = "late"

[imports]
"decimal" = ["Decimal"]

[data]
rate = { type = "Decimal | None", description = "An imported type: None until assigned." }
balance = { type = "float", initial = 0 }
entries = { type = "list[dict[str, Any]]", initial = [] }
limit = { type = "int", expr = "100" }

[events]
BOOK = { payload = { amount = "float", memo = "Any" } }
CLOSE = {}

[states.open]
on.BOOK = { to = "open", cond = "balance + _event.data.amount <= limit", actions = [
  { assign = "balance", expr = "balance + _event.data.amount" },
  { assign = "entries", expr = "entries + [{'memo': _event.data.memo.text}]" },
] }
on.CLOSE = "closed"

[states.closed]
kind = "final"

[states.closed.data]
closed_with = { type = "float | None" }
"""


def test_the_data_class_sets_the_literal_values_and_late_fields_wait_for_their_state() -> None:
    source = module_source(machine(DATA_SPEC))
    init = source[source.index("def __init__(self) -> None:") :].split("\n\n")[0]
    assert "self.balance = 0" in init and "self.entries = []" in init
    assert "self.limit" not in init and "self.closed_with" not in init
    assert 'data_steps=(Assign("limit", _expr_0, field="limit"),)' in source
    assert 'Assign("closed_with", ' in source  # the closed state's node initializes it
    assert 'lookup(event.data["memo"], "text")' in source  # a field of an Any value
    assert 'binding="late"' in source


def test_an_import_a_data_field_uses_is_imported_and_not_unused() -> None:
    _, warnings = validate_source(parse_spec_text(DATA_SPEC, "ledger.toml"))
    assert warnings == ()
    assert "from decimal import Decimal" in module_source(machine(DATA_SPEC))


def test_the_same_spec_gives_the_same_module() -> None:
    assert module_source(machine(DATA_SPEC)) == module_source(machine(DATA_SPEC))


COND_ONLY = """
[machine]
name = "Gate"
initial = "closed"

[events]
KNOCK = { payload = { times = "int" } }

[states.closed]
on.KNOCK = [{ to = "open", cond = "_event.data.times >= 3 and In('closed')" }, "closed"]

[states.open]
kind = "final"
"""


@pytest.mark.slow
@pytest.mark.main_only  # mypy checks every target Python from the main interpreter
def test_modules_import_only_what_they_use_and_pass_ruff_and_mypy(tmp_path: Path) -> None:
    """A chart with a cond but no data fields has no data class (``data: object``)."""
    sources = {
        "ledger": module_source(machine(DATA_SPEC)),
        "gate": module_source(machine(COND_ONLY.replace('"closed"]', '{ to = "closed" }]'))),
    }
    gate = sources["gate"]
    assert "DataModel" not in gate and "lookup(" not in gate and "data: object" in gate
    for name, source in sources.items():
        assert lint_findings(source) == "", name
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
        module = types.ModuleType(name)
        sys.modules[name] = module
        try:
            exec(compile(source, f"{name}.py", "exec"), module.__dict__)  # the generated module
        finally:
            del sys.modules[name]
    result, messages = run_mypy([f"{name}.py" for name in sources], tmp_path)
    assert result.code == 0 and not messages, result.output

"""Initial data per instance: ``Machine(context, handlers, data={...})`` starts one instance with
data other than the spec's initial values (SCXML's ``<invoke>`` params): a given value replaces
the field's initial value or expression (its initializer does not run for it), is checked
against the field's type and copied, and is in place before the initial configuration is
entered. Bad input is :class:`InvalidData` before anything runs. Run on the golden ``data_task``
module (its computed and late-bound fields) and on hand-built charts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from statewright import (
    AsyncMachine,
    ChartNode,
    ChartTransition,
    InvalidData,
    InvalidPayload,
    Machine,
    MachineOptions,
    SnapshotError,
)

from tests.runtime.data_charts import CLOCK_START, Clock, S, build, options
from tests.runtime.test_data_task import SESSION, Handlers, State, data_task, fields, without_ids

N, T = ChartNode, ChartTransition


def task(data: Any = None, handlers: Handlers | None = None) -> Any:
    opts = MachineOptions(clock=Clock(), instance_id=SESSION)
    return data_task.DataTaskMachine(None, handlers or Handlers(), options=opts, data=data)


# -- given values replace initial values -----------------------------------------------------------
def test_given_values_replace_literal_initial_values_and_the_computed_fields_see_them() -> None:
    machine = task({"max_attempts": 7, "findings": ["seed paper"], "verdict": "rejected"})
    assert machine.state is State.SEARCHING
    data = machine.data
    assert (data.max_attempts, data.findings, data.verdict) == (7, ["seed paper"], "rejected")
    assert data.budget == 17.5  # computed at start from the given max_attempts
    assert data.scores == {"seed": 1} and data.attempts == 1  # the others as the spec says
    assert machine.pending_timers == {data.reminder: CLOCK_START + 17.5}


def test_a_given_computed_field_keeps_its_value_its_expression_does_not_run() -> None:
    machine = task({"budget": 2.0, "owner": "someone"})
    assert (machine.data.budget, machine.data.owner) == (2.0, "someone")
    assert machine.pending_timers == {machine.data.reminder: CLOCK_START + 2.0}  # delayexpr


def test_a_given_late_bound_field_keeps_its_value_when_its_state_is_entered() -> None:
    plain = task({"max_attempts": 1})
    plain.failed(reason="offline")  # no attempt left: summing_up, summary (bound late), done
    assert plain.state is State.DONE and plain.data.summary_seen is True
    machine = task({"max_attempts": 1, "summary_seen": False})
    assert machine.data.summary_seen is False  # set before its state is entered
    machine.failed(reason="offline")
    assert machine.state is State.DONE and machine.data.summary_seen is False
    assert "given" not in machine.snapshot()["chart"]  # its state was entered: nothing to keep


def test_a_given_late_bound_field_survives_a_snapshot_taken_before_its_state_is_entered() -> None:
    machine = task({"max_attempts": 1, "summary_seen": False})
    snapshot = machine.snapshot()
    assert snapshot["chart"]["given"] == ["summary_seen"]
    restored = data_task.DataTaskMachine.restore(snapshot, Handlers())
    restored.failed(reason="offline")
    assert restored.state is State.DONE and restored.data.summary_seen is False


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        (["attempts"], "expected an array of data field names"),
        (["attempts"], "'attempts' is not a data field of a state bound late"),
        (["summary_seen", "summary_seen"], "names the field twice"),
    ],
)
def test_a_malformed_given_list_in_a_snapshot_is_a_snapshot_error(
    given: list[str], reason: str
) -> None:
    snapshot = task({"max_attempts": 1, "summary_seen": False}).snapshot()
    snapshot["chart"]["given"] = "attempts" if reason.startswith("expected") else given
    with pytest.raises(SnapshotError, match=r"chart\.given") as caught:
        data_task.DataTaskMachine.restore(snapshot, Handlers())
    assert reason in str(caught.value)


def test_the_initial_entry_sees_the_given_values() -> None:
    machine = task({"attempts": 10})
    assert machine.data.attempts == 11  # searching's entry: attempts + 1


def test_a_condition_at_start_sees_the_given_values() -> None:
    nodes = (N("idle", "atomic", member=S.IDLE), N("busy", "atomic", member=S.BUSY))
    many = T(0, frozenset(), targets=(1,), cond=lambda data, *_: data.count > 3)
    machine_class = build(nodes, (many,))
    assert machine_class(None, options=options()).state is S.IDLE
    assert machine_class(None, options=options(), data={"count": 5}).state is S.BUSY


def test_given_values_are_copies_and_two_instances_never_share_one() -> None:
    findings = ["a"]
    first = task({"findings": findings})
    second = task({"findings": findings})
    findings.append("b")
    assert first.data.findings == ["a"] == second.data.findings
    assert first.data.findings is not second.data.findings


def test_a_typed_value_is_stored_as_its_json_data() -> None:
    machine = task({"max_attempts": 4, "scores": {"x": 2}, "last_error": None})
    assert machine.data.max_attempts == 4 and machine.data.scores == {"x": 2}
    assert machine.data.last_error is None


# -- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"retries": 1}, "data of DataTask: retries: is not a data field"),
        ({"attempts": "3"}, "data of DataTask: attempts: expected an integer"),
        ({"attempts": True}, "data of DataTask: attempts: expected an integer"),
        ({"findings": ["a", 2]}, "data of DataTask: findings[1]: expected a string"),
        ({"verdict": "maybe"}, "data of DataTask: verdict:"),
        ({"attempts": 2**20_000}, "data of DataTask: attempts: an integer of 20001 bits"),
        ({"budget": float("nan")}, "data of DataTask: budget:"),
        (["attempts"], "data of DataTask: expected a mapping of data field names to values"),
        ({1: 2}, "data of DataTask: 1: is not a data field"),
    ],
)
def test_bad_data_is_invalid_data_before_anything_runs(data: Any, message: str) -> None:
    handlers = Handlers()
    with pytest.raises(InvalidData) as caught:
        task(data, handlers)
    assert str(caught.value).startswith(message), str(caught.value)
    assert isinstance(caught.value, InvalidPayload) and isinstance(caught.value, ValueError)
    assert handlers.calls == []


def test_nothing_runs_before_bad_data_is_refused() -> None:
    ran: list[str] = []

    class Recorder:
        def record(self, context: object, payload: object) -> None:
            ran.append("record")

    nodes = (N("idle", "atomic", member=S.IDLE, entry=("record",)),)
    machine_class = build(nodes, (), handlers=frozenset({"record"}))
    with pytest.raises(InvalidData, match="nope: is not a data field"):
        machine_class(None, Recorder(), options=options(), data={"nope": 1})
    assert ran == []
    assert machine_class(None, Recorder(), options=options(), data={"count": 1}).data.count == 1
    assert ran == ["record"]


def test_data_given_to_a_machine_without_a_data_model_is_invalid_data() -> None:
    from tests.runtime.machines import plain_spec

    chart_class = build((N("idle", "atomic", member=S.IDLE),), (), with_data=False)
    flat_class = type("FlatMachine", (Machine,), {"spec": plain_spec()})
    for machine_class in (chart_class, flat_class):
        with pytest.raises(InvalidData, match="has no data model"):
            machine_class(None, options=options(), data={"count": 1})
        assert machine_class(None, options=options(), data=None).data is None


def test_an_empty_mapping_gives_nothing_and_changes_nothing() -> None:
    assert without_ids(task({})) == without_ids(task())


# -- snapshots and restores ----------------------------------------------------------------------
def test_a_snapshot_of_a_machine_with_given_data_restores_the_same() -> None:
    machine = task({"max_attempts": 5, "findings": ["x"], "budget": 3.0})
    restored = data_task.DataTaskMachine.restore(machine.snapshot(), Handlers())
    assert fields(restored) == fields(machine)
    assert restored.snapshot()["data"] == machine.snapshot()["data"]
    machine.failed(reason="one")
    restored.failed(reason="one")
    assert fields(restored)["attempts"] == fields(machine)["attempts"] == 2


# -- asyncio ---------------------------------------------------------------------------------------
def test_the_asyncio_machine_takes_initial_data_too() -> None:
    nodes = (N("idle", "atomic", member=S.IDLE), N("busy", "atomic", member=S.BUSY))
    many = T(0, frozenset(), targets=(1,), cond=lambda data, *_: data.count > 3)
    machine_class = build(nodes, (many,), flavour=AsyncMachine)
    machine = machine_class(None, options=options(), data={"count": 5, "items": [9]})
    assert machine.data.count == 5  # given before the chart is entered

    async def run() -> Any:
        return await machine.start_chart()

    assert asyncio.run(run()) is S.BUSY
    assert (machine.data.count, machine.data.items) == (5, [9])
    with pytest.raises(InvalidData, match="count: expected an integer"):
        machine_class(None, options=options(), data={"count": "5"})


def test_the_generated_asyncio_machine_takes_initial_data() -> None:
    opts = MachineOptions(clock=Clock(), instance_id=SESSION)
    machine = data_task.DataTaskAsyncMachine(None, Handlers(), options=opts, data={"attempts": 4})

    async def run() -> Any:
        return await machine.start_chart()

    assert asyncio.run(run()) is State.SEARCHING and machine.data.attempts == 5

"""Idempotent sends: ``send_once(key, event)`` applies an event once per key, keeps the keys in
snapshots (a bounded window), checkpoints keyed sends with their key, and a racing duplicate in
another process loses the revision race, reloads and finds the key. Both flavours, flat and
chart machines; format 1 snapshots (no keys) still restore."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_task import AgentTaskAsyncMachine, AgentTaskEvent, AgentTaskMachine, AgentTaskState
from statewright import (
    Conflict,
    InvalidTransition,
    MachineOptions,
    MemoryStore,
    SendResult,
    Snapshot,
    SnapshotError,
)

from tests.runtime.machines import (
    AsyncPlainTaskMachine,
    PlainTaskMachine,
    TaskEvent,
    TaskState,
)

Ev, St = TaskEvent, TaskState


class Handlers:
    def succeeded(self, context: object, payload: Any, /) -> bool:
        return bool(payload["ok"])


def test_a_key_is_applied_once() -> None:
    machine = PlainTaskMachine(None)
    first = machine.send_once("hook-1", Ev.TASK_CREATED, source="webhook")
    assert first == SendResult(St.PLANNING, True, 1)
    machine.send(Ev.PLAN_DONE)
    again = machine.send_once("hook-1", Ev.TASK_CREATED, source="webhook")
    assert again == SendResult(St.PLAN_REVIEW, False, 1)  # today's state, the first event id
    assert machine.total_transitions == 2
    assert machine.dynamic.send_once("hook-2", "PLAN_APPROVED").applied  # type: ignore[arg-type]  # a value, as send takes it
    assert machine.snapshot()["idempotency_keys"] == [["hook-1", 1], ["hook-2", 3]]


def test_rejected_or_failed_sends_keep_no_key() -> None:
    machine = PlainTaskMachine(None)
    with pytest.raises(InvalidTransition):
        machine.send_once("k", Ev.PLAN_DONE)  # not allowed in idle
    assert machine.send_once("k", Ev.TASK_CREATED).applied  # so the retry is applied
    with pytest.raises(ValueError, match="1 to 200 characters"):
        machine.send_once("", Ev.CANCEL)
    with pytest.raises(ValueError, match="1 to 200 characters"):
        machine.send_once("x" * 201, Ev.CANCEL)


def test_the_window_keeps_the_newest_keys_and_survives_snapshots() -> None:
    options = MachineOptions(idempotency_window=2)
    machine = PlainTaskMachine(None, options=options)
    for i in range(3):
        machine.send_once(f"k{i}", Ev.HEARTBEAT)
    assert machine.snapshot()["idempotency_keys"] == [["k1", 2], ["k2", 3]]
    restored = PlainTaskMachine.restore(machine.snapshot(), options=options)
    assert not restored.send_once("k2", Ev.HEARTBEAT).applied
    assert restored.send_once("k0", Ev.HEARTBEAT).applied  # fell out of the window
    narrow = PlainTaskMachine.restore(
        machine.snapshot(), options=MachineOptions(idempotency_window=1)
    )
    assert narrow.snapshot()["idempotency_keys"] == [["k2", 3]]
    none = PlainTaskMachine(None, options=MachineOptions(idempotency_window=0))
    assert none.send_once("k", Ev.HEARTBEAT).applied and none.send_once("k", Ev.HEARTBEAT).applied
    with pytest.raises(ValueError, match="idempotency_window"):
        MachineOptions(idempotency_window=-1)


def test_a_keyed_send_is_checkpointed_with_its_key() -> None:
    store = MemoryStore()
    machine = PlainTaskMachine(None, options=MachineOptions(store=store, instance_id="m"))
    machine.send(Ev.TASK_CREATED)  # a trivial transition: not saved
    assert store.load("m") is None
    assert machine.send_once("k", Ev.PLAN_DONE).applied
    stored = store.load("m")
    assert stored is not None and stored["idempotency_keys"] == [["k", 2]]
    assert machine.revision == 1 and stored["state"] == "plan_review"


def test_a_racing_duplicate_loses_reloads_and_finds_the_key() -> None:
    store = MemoryStore()
    PlainTaskMachine(None, options=MachineOptions(store=store, instance_id="m")).save()
    here = PlainTaskMachine.load(store, "m")
    there = PlainTaskMachine.load(store, "m")
    assert here.send_once("delivery-7", Ev.TASK_CREATED).applied
    with pytest.raises(Conflict):
        there.send_once("delivery-7", Ev.TASK_CREATED)  # durable or not applied: not applied
    assert there.state is St.IDLE
    reloaded = PlainTaskMachine.load(store, "m")
    assert reloaded.send_once("delivery-7", Ev.TASK_CREATED) == SendResult(St.PLANNING, False, 1)
    stored = store.load("m")
    assert stored is not None and stored["total_transitions"] == 1


def test_send_external_takes_a_key() -> None:
    machine = PlainTaskMachine(None)
    assert machine.send_external("TASK_CREATED") is St.PLANNING
    result = machine.send_external("PLAN_DONE", "{}", idempotency_key="tool-call-1")
    assert result == SendResult(St.PLAN_REVIEW, True, 2)
    duplicate = machine.send_external("PLAN_DONE", None, idempotency_key="tool-call-1")
    assert duplicate.applied is False and machine.total_transitions == 2


def test_chart_machines_apply_a_key_once() -> None:
    store = MemoryStore()
    now = [1_767_225_600.0]
    options = MachineOptions(store=store, instance_id="c", clock=lambda: now[0])
    machine: AgentTaskMachine[None] = AgentTaskMachine(None, Handlers(), options=options)
    assert machine.send_once("p", AgentTaskEvent.PLANNED).applied
    assert machine.revision == 1  # checkpointed with the key
    assert not machine.send_once("p", AgentTaskEvent.PLANNED).applied
    assert machine.send_once("t", AgentTaskEvent.TOOL_RESULT, ok=True) == SendResult(
        AgentTaskState.PLANNING, True, 2
    )
    loaded: AgentTaskMachine[None] = AgentTaskMachine.load(store, "c", Handlers(), options=options)
    assert not loaded.send_once("t", AgentTaskEvent.TOOL_RESULT, ok=True).applied


def test_async_machines_apply_a_key_once() -> None:
    async def run() -> list[Any]:
        store = MemoryStore()
        flat = AsyncPlainTaskMachine(None, options=MachineOptions(store=store, instance_id="f"))
        chart: AgentTaskAsyncMachine[None] = AgentTaskAsyncMachine(
            None, Handlers(), options=MachineOptions(store=store, instance_id="c")
        )
        results: list[Any] = [
            await flat.send_once("a", Ev.TASK_CREATED),
            await flat.send_once("a", Ev.TASK_CREATED),
            await flat.send_external("PLAN_DONE", None, idempotency_key="b"),
            await chart.send_once("a", AgentTaskEvent.PLANNED),
            await chart.send_once("a", AgentTaskEvent.PLANNED),
        ]
        stored = store.load("c")
        assert stored is not None
        results.append(stored["idempotency_keys"])
        return results

    assert asyncio.run(run()) == [
        SendResult(St.PLANNING, True, 1),
        SendResult(St.PLANNING, False, 1),
        SendResult(St.PLAN_REVIEW, True, 2),
        SendResult(AgentTaskState.WAITING_FOR_TOOL, True, 1),
        SendResult(AgentTaskState.WAITING_FOR_TOOL, False, 1),
        [["a", 1]],
    ]


def test_format_1_snapshots_restore_without_keys() -> None:
    machine = PlainTaskMachine(None)
    machine.send(Ev.TASK_CREATED)
    old = dict(machine.snapshot(), format="statewright.snapshot/1")
    del old["idempotency_keys"]
    restored = PlainTaskMachine.restore(Snapshot(old))
    assert restored.snapshot() == machine.snapshot()
    assert restored.snapshot()["format"] == "statewright.snapshot/3"


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        ("k", "idempotency_keys"),
        ([["k"]], "idempotency_keys[0]"),
        ([["", 1]], "idempotency_keys[0][0]"),
        ([[5, 1]], "idempotency_keys[0][0]"),
        ([["k", 1], ["k", 2]], "idempotency_keys[1][0]"),
        ([["k", 3]], "idempotency_keys[0][1]"),  # no such event yet
        ([["k", 2], ["j", 1]], "idempotency_keys[1][1]"),  # out of order
        ([["k", "1"]], "idempotency_keys[0][1]"),
    ],
)
def test_broken_keys_are_snapshot_errors_naming_them(keys: Any, field: str) -> None:
    machine = PlainTaskMachine(None)
    machine.send(Ev.TASK_CREATED)
    machine.send(Ev.PLAN_DONE)
    with pytest.raises(SnapshotError) as error:
        PlainTaskMachine.restore(Snapshot(dict(machine.snapshot(), idempotency_keys=keys)))
    assert error.value.field == field


@pytest.mark.parametrize("lateness", [-1.0, "2", None, 1e300, True])
def test_a_broken_lateness_is_a_snapshot_error(lateness: Any) -> None:
    machine = PlainTaskMachine(None)
    machine.send(Ev.TASK_CREATED)
    snapshot = machine.snapshot()
    snapshot["history"][0]["lateness"] = lateness
    with pytest.raises(SnapshotError) as error:
        PlainTaskMachine.restore(snapshot)
    assert error.value.field == "history[0].lateness"
    snapshot["history"][0]["lateness"] = 1.25
    assert PlainTaskMachine.restore(snapshot).history[0].lateness == 1.25

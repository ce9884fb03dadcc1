"""Timers in stores: each save records when the instance's earliest ``fire`` timer falls due,
workers claim due instances under a lease, and ``fire_due_timers`` loads, fires and saves them,
recording how late each timer fired. On every store kind, against the fake clock."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_task import AgentTaskAsyncMachine, AgentTaskEvent, AgentTaskMachine, AgentTaskState
from statewright import (
    MachineOptions,
    MemoryStore,
    Store,
    TimerStore,
    fire_due_timers,
    fire_due_timers_async,
)

from tests.runtime.chart_specs import compile_chart
from tests.runtime.machines import PlainTaskMachine, TaskEvent
from tests.runtime.store_kinds import KINDS, open_kind

START = 1_767_225_600.0


class Handlers:
    def succeeded(self, context: object, payload: Any, /) -> bool:
        return bool(payload["ok"])


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TimerStore]:
    with open_kind(request.param, tmp_path, request) as opened:
        assert isinstance(opened, TimerStore)
        yield opened


def calling(store: Store, clock: Clock, instance_id: str) -> AgentTaskMachine[None]:
    """A task waiting for its tool, its 30 s watchdog running, saved."""
    machine: AgentTaskMachine[None] = AgentTaskMachine(
        None, Handlers(), options=MachineOptions(store=store, instance_id=instance_id, clock=clock)
    )
    machine.planned()
    machine.save()
    return machine


def test_claims_follow_the_earliest_due_timer_and_leases(store: TimerStore) -> None:
    clock = Clock()
    calling(store, clock, "a")
    clock.now += 10
    calling(store, clock, "b")
    flat = PlainTaskMachine(None, options=MachineOptions(store=store, instance_id="flat"))
    flat.send(TaskEvent.TASK_CREATED)
    flat.save()
    assert store.claim_due(START + 29, 10, 60) == []
    assert store.claim_due(START + 45, 10, 60) == ["a", "b"]  # earliest first
    assert store.claim_due(START + 45, 10, 60) == []  # both leased
    store.release("b")
    assert store.claim_due(START + 46, 10, 60) == ["b"]
    assert store.claim_due(START + 100, 10, 60) == []  # leases end at START + 105 and + 106
    assert store.claim_due(START + 200, 1, 60) == ["a"]  # the limit
    store.release("a")
    store.release("b")


def test_a_save_moves_or_removes_the_due_time(store: TimerStore) -> None:
    clock = Clock()
    machine = calling(store, clock, "a")
    clock.now += 5
    machine.suspend()  # leaving calling cancels the watchdog
    machine.save()
    assert store.claim_due(START + 1000, 10, 60) == []
    machine.resume()  # deep history: the watchdog starts again, due 30 s from now
    machine.save()
    assert store.claim_due(START + 34, 10, 60) == []
    assert store.claim_due(START + 35, 10, 60) == ["a"]
    store.release("a")
    assert store.delete("a")
    assert store.claim_due(START + 1000, 10, 60) == []


def test_the_driver_fires_due_timers_once_and_records_lateness(store: TimerStore) -> None:
    clock = Clock()
    calling(store, clock, "a")
    calling(store, clock, "b")
    options = MachineOptions(clock=clock)
    assert (
        fire_due_timers(store, AgentTaskMachine, Handlers(), now=START + 20, options=options) == 0
    )
    clock.now = START + 32.5
    assert fire_due_timers(store, AgentTaskMachine, Handlers(), now=clock.now, options=options) == 2
    for instance_id in ("a", "b"):
        loaded: AgentTaskMachine[None] = AgentTaskMachine.load(
            store, instance_id, Handlers(), options=options
        )
        assert loaded.state is AgentTaskState.FAILED and loaded.revision == 2
        last = loaded.history[-1]
        assert last.event is AgentTaskEvent.AFTER_TICKING_30S and last.lateness == 2.5
        assert loaded.snapshot()["history"][-1]["lateness"] == 2.5
        assert loaded.history[0].lateness is None  # not a timer's
    assert fire_due_timers(store, AgentTaskMachine, Handlers(), now=clock.now, options=options) == 0
    assert store.claim_due(START + 10_000, 10, 60) == []


def test_the_driver_reloads_after_a_lost_race(store: TimerStore) -> None:
    clock = Clock()
    calling(store, clock, "a")
    options = MachineOptions(clock=clock)
    clock.now = START + 31
    # Another process answers the tool first: its save wins, and the watchdog is gone with
    # the region it ran in (the tool result moves the task back to planning).
    other: AgentTaskMachine[None] = AgentTaskMachine.load(store, "a", Handlers(), options=options)
    loaded_before: AgentTaskMachine[None] = AgentTaskMachine.load(
        store, "a", Handlers(), options=options
    )
    other.tool_result(ok=True)
    other.save()
    assert loaded_before.fire_due(clock.now) == 1
    from statewright import Conflict

    with pytest.raises(Conflict):
        loaded_before.save()  # this worker lost: its firing never happened
    assert fire_due_timers(store, AgentTaskMachine, Handlers(), now=clock.now, options=options) == 0
    final: AgentTaskMachine[None] = AgentTaskMachine.load(store, "a", Handlers(), options=options)
    assert final.state is AgentTaskState.PLANNING and final.revision == 2


def test_resume_and_restart_timers_are_not_indexed(tmp_path: Path, store: TimerStore) -> None:
    module = compile_chart(
        tmp_path,
        """
        [machine]
        name = "Policies"
        initial = "waiting"
        [states.waiting]
        after = [
          { delay = "20s", to = "resumed", on_restore = "resume" },
          { delay = "30s", to = "restarted", on_restore = "restart" },
        ]
        [states.resumed]
        kind = "final"
        [states.restarted]
        kind = "final"
        """,
    )
    clock = Clock()
    machine = module.PoliciesMachine(
        None, options=MachineOptions(store=store, instance_id="p", clock=clock)
    )
    machine.save()
    assert machine.next_due == START + 20
    assert store.claim_due(START + 10_000, 10, 60) == []  # their due times move on restore


class AsyncHandlers:
    async def succeeded(self, context: object, payload: Any, /) -> bool:
        return bool(payload["ok"])


class RacingStore:
    """A store where another process saves the instance right after the driver's first load:
    the driver's save then loses the revision and must load again."""

    def __init__(self, inner: TimerStore, clock: Clock) -> None:
        self.inner, self.clock, self.raced, self.loads = inner, clock, False, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        self.loads += 1
        snapshot = self.inner.load(instance_id)
        if not self.raced:
            self.raced = True
            options = MachineOptions(clock=self.clock)
            other: AgentTaskMachine[None] = AgentTaskMachine.load(
                self.inner, instance_id, Handlers(), options=options
            )
            other.tool_result(ok=True)  # back to planning: the watchdog is gone
            other.save()
        return snapshot


def test_the_async_driver_fires_due_timers_once_and_records_lateness(store: TimerStore) -> None:
    clock = Clock()
    calling(store, clock, "a")
    calling(store, clock, "b")
    options = MachineOptions(clock=clock)
    machine_class = AgentTaskAsyncMachine

    async def fire(at: float) -> int:
        return await fire_due_timers_async(
            store, machine_class, AsyncHandlers(), now=at, options=options
        )

    assert asyncio.run(fire(START + 20)) == 0
    clock.now = START + 32.5
    assert asyncio.run(fire(clock.now)) == 2
    for instance_id in ("a", "b"):
        loaded: AgentTaskMachine[None] = AgentTaskMachine.load(
            store, instance_id, Handlers(), options=options
        )
        assert loaded.state is AgentTaskState.FAILED and loaded.revision == 2
        assert loaded.history[-1].lateness == 2.5
    assert asyncio.run(fire(clock.now)) == 0
    assert store.claim_due(START + 10_000, 10, 60) == []


def test_the_async_driver_reloads_after_a_lost_race(store: TimerStore) -> None:
    clock = Clock()
    calling(store, clock, "a")
    clock.now = START + 31
    racing = RacingStore(store, clock)
    options = MachineOptions(clock=clock)
    fired = asyncio.run(
        fire_due_timers_async(
            racing,
            AgentTaskAsyncMachine,
            AsyncHandlers(),
            now=clock.now,
            options=options,
        )
    )
    # The first save lost to the other process; the reload found the watchdog gone.
    assert racing.raced and racing.loads == 2 and fired == 0
    final: AgentTaskMachine[None] = AgentTaskMachine.load(store, "a", Handlers(), options=options)
    assert final.state is AgentTaskState.PLANNING and final.revision == 2
    assert store.claim_due(START + 10_000, 10, 60) == []


def test_the_memory_stores_claims_are_what_sorting_every_due_instance_gives() -> None:
    """The memory store claims from a heap it keeps beside its due-timer index, whose entries go
    stale as saves move or remove due times: against a model that sorts every due instance at
    each claim, over random saves, deletes, releases and claims; and the heap stays within
    twice the index (stale entries are dropped or the heap is built anew)."""
    chooser = random.Random(20_260_101)
    store = MemoryStore()
    due: dict[str, float] = {}
    leases: dict[str, float] = {}
    for _ in range(5000):
        instance_id = f"i{chooser.randrange(40)}"
        step = chooser.random()
        if step < 0.5:  # a save: its due time moved, kept or gone
            when = chooser.choice([None, *(float(t) for t in range(20))])
            with store._lock:
                store._set_due(instance_id, when)
            if when is None:
                due.pop(instance_id, None)
            else:
                due[instance_id] = when
        elif step < 0.6:
            store.release(instance_id)
            leases.pop(instance_id, None)
        elif step < 0.65:
            store.delete(instance_id)
            due.pop(instance_id, None)
            leases.pop(instance_id, None)
        else:
            now, limit, seconds = (
                chooser.randrange(25),
                chooser.randrange(-1, 6),
                chooser.randrange(9),
            )
            free = [
                (when, i) for i, when in due.items() if when <= now and leases.get(i, now) <= now
            ]
            expected = [i for _, i in sorted(free)][: max(0, limit)]
            leases.update(dict.fromkeys(expected, now + seconds))
            assert store.claim_due(now, limit, seconds) == expected
        assert len(store._heap) <= 2 * len(store._due) + 65

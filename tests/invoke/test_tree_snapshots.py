"""A tree of machines saved as one snapshot: its children embedded, restored without running an
entry action or invoking again, through every store; what restoring refuses; the timers of
parent and child fired by ``fire_due`` and by the store-wide driver (``fire_due_timers``), which
delivers ``done.invoke`` to a parent loaded from the store."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from statewright import (
    Invoke,
    MachineOptions,
    SnapshotError,
    SqliteStore,
    TimerStore,
    fire_due_timers,
    fire_due_timers_async,
)

from tests.invoke.support import FLAVOURS, act, new, run
from tests.invoke.trees import (
    CLOCK_START,
    BossEvent,
    BossState,
    Clock,
    WorkerState,
    boss,
    options,
    worker,
)
from tests.runtime.store_kinds import KINDS, open_kind

BOSS = boss()
#: A worker that finishes at its first TICK (its 5 s timer), under a parent.
QUICK = worker(limit=1, name="QuickWorker")
QUICK_BOSS = boss(Invoke(lambda: QUICK[0], lambda: QUICK[1], "worker"), name="QuickBoss")


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TimerStore]:
    with open_kind(request.param, tmp_path, request) as opened:
        assert isinstance(opened, TimerStore)
        yield opened


def tree(machine: Any) -> dict[str, Any]:
    """What a tree is, without its made-up ids: each machine's active states and data."""

    def one(session: Any) -> dict[str, Any]:
        children = {key: one(child) for key, child in session.children.items()}
        data = {name: getattr(session.data, name) for name in type(session.data).__slots__}
        return {"active": sorted(session.active_states), "data": data, "children": children}

    return one(machine)


@FLAVOURS
def test_a_tree_round_trips_through_every_store(flavour: str, store: TimerStore) -> None:
    async def scenario() -> None:
        machine = await new(BOSS, flavour, store=store)
        await act(machine.send(BossEvent.GO))
        await act(machine.send(BossEvent.PING))
        await act(machine.save())
        child = machine.children["worker"]
        sync, asynchronous = BOSS
        cls = sync if flavour == "sync" else asynchronous
        loaded = cls.load(store, "boss-1", options=options())
        assert tree(loaded) == tree(machine)
        restored = loaded.children["worker"]
        assert restored.instance_id == child.instance_id
        assert [r.as_dict() for r in restored.history] == [r.as_dict() for r in child.history]
        assert restored.pending_timers == child.pending_timers
        # nothing ran again: no second `started`, no new invoke
        assert [entry["name"] for entry in loaded.data.log] == ["started", "PONG"]
        # it goes on where it stopped
        await act(loaded.send(BossEvent.PING))
        assert await act(loaded.send(BossEvent.PING)) is BossState.FINISHED
        assert loaded.data.result == {"count": 3, "name": "w1"}
        await act(loaded.save())
        again = cls.load(store, "boss-1", options=options())
        assert again.state is BossState.FINISHED and dict(again.children) == {}

    run(scenario)


def test_a_machine_without_children_writes_no_children() -> None:
    machine = BOSS[0](None, options=options())
    assert "children" not in machine.snapshot()
    machine.send(BossEvent.GO)
    assert set(machine.snapshot()["children"]) == {"worker"}
    machine.send(BossEvent.CANCEL)
    assert "children" not in machine.snapshot()


def test_an_ended_child_is_gone_and_a_failed_one_is_null() -> None:
    machine = QUICK_BOSS[0](None, options=options())
    machine.send(BossEvent.GO)
    machine.children["worker"].send("STOP")  # it finishes: done.invoke leaves running
    assert machine.state is BossState.FINISHED
    assert "children" not in machine.snapshot()
    failing = Invoke(lambda: QUICK[0], lambda: QUICK[1], "worker", params=lambda *_: 1 / 0)
    machine = boss(failing)[0](None, options=options())
    machine.send(BossEvent.GO)  # the start failed: the state keeps its invoke, without child
    entry = machine.snapshot()["children"]["worker"]
    assert entry == {"state": "running", "invoke": 0, "snapshot": None}
    assert boss(failing)[0].restore(machine.snapshot()).state is BossState.RUNNING


def broken(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    """The snapshot of a parent running its worker (which answered one PING), changed."""
    machine = BOSS[0](None, options=options())
    machine.send(BossEvent.GO)
    machine.send(BossEvent.PING)
    snapshot = copy.deepcopy(dict(machine.snapshot()))
    change(snapshot)
    return snapshot


def child(snapshot: dict[str, Any]) -> dict[str, Any]:
    return snapshot["children"]["worker"]["snapshot"]  # type: ignore[no-any-return]


def message(**more: Any) -> dict[str, Any]:
    """A received message, as a snapshot's timer."""
    timer = {"id": "msg-0123456789abcdef", "event": "PONG", "due": CLOCK_START, "delay": 0.0}
    return {**timer, "on_restore": "fire", "origin": "#_scxml_x", **more}


def idle(snapshot: dict[str, Any]) -> None:
    """The parent back in idle (its history forgotten), its child still there."""
    snapshot["state"] = "idle"
    snapshot["history"] = []
    snapshot["chart"]["active"] = ["idle"]
    snapshot["chart"]["timers"] = []


def finished(snapshot: dict[str, Any]) -> None:
    """The worker in its final state."""
    worker_snapshot = child(snapshot)
    worker_snapshot.update(state="done", history=[])
    worker_snapshot["chart"].update(active=["done"], finished=True, timers=[])


RESTORE_ERRORS: list[tuple[Callable[[dict[str, Any]], object], str, str]] = [
    (idle, "children.worker.state", "running is not active"),
    (lambda s: s["children"]["worker"].update(state="idle"), "children.worker.state", "invokes"),
    (lambda s: s.pop("children"), "children", "running is active but its invoke 0 has no"),
    (lambda s: s["children"]["worker"].update(invoke=1), "children.worker.invoke", "position"),
    (lambda s: s["children"].update(other=s["children"].pop("worker")), "children.other", "id"),
    (lambda s: s.update(children=[]), "children", "expected an object"),
    (lambda s: s["children"]["worker"].pop("snapshot"), "children.worker", "expected the keys"),
    (
        lambda s: child(s)["chart"].update(active=["nope"]),
        "children.worker.snapshot.chart.active[0]",
        "is not a state",
    ),
    (lambda s: child(s).update(machine="Boss"), "children.worker.snapshot.machine", "Worker"),
    (lambda s: child(s).update(data=[]), "children.worker.snapshot.data", "expected an object"),
    (finished, "children.worker.snapshot.chart.finished", "is finished"),
    (
        lambda s: s["chart"]["timers"].append(message(invokeid="ghost")),
        "chart.timers[1]",
        "from child 'ghost'",
    ),
    (
        lambda s: s["chart"]["timers"].append(message()),
        "chart.timers[1]",
        "from a parent, but this machine has none",
    ),
    (
        lambda s: s["chart"]["timers"].append(message(target="#_worker", name="PONG.x")),
        "chart.timers[1]",
        "an outgoing message has an event name and a target",
    ),
    (
        lambda s: s["chart"]["timers"].append(message(target="#_parent")),
        "chart.timers[1]",
        "for a parent, but this machine has none",
    ),
    (
        lambda s: s["chart"]["timers"].append(message(target="#_ghost")),
        "chart.timers[1]",
        "for '#_ghost', which is not among children",
    ),
    (
        lambda s: child(s)["chart"]["timers"].append(message(event="NOPE")),
        "children.worker.snapshot.chart.timers[1].event",
        "is not an event of Worker",
    ),
]


@pytest.mark.parametrize(("change", "field", "reason"), RESTORE_ERRORS)
def test_restore_refuses_a_tree_no_run_can_produce(
    change: Callable[[dict[str, Any]], object], field: str, reason: str
) -> None:
    snapshot = broken(change)
    with pytest.raises(SnapshotError) as raised:
        BOSS[0].restore(snapshot)
    assert raised.value.field == field
    assert reason in raised.value.reason


def test_a_machine_without_invokes_has_no_children_field() -> None:
    lone = worker()[0]
    snapshot = dict(lone(None, options=options()).snapshot())
    snapshot["children"] = {}
    with pytest.raises(SnapshotError, match="children: is not a snapshot field"):
        lone.restore(snapshot)


@FLAVOURS
def test_a_parent_timer_and_a_child_timer_fire_in_due_order(flavour: str) -> None:
    clock = Clock()

    async def scenario() -> None:
        machine = await new(BOSS, flavour, clock)
        await act(machine.send(BossEvent.GO))
        child = machine.children["worker"]
        # the worker's 5 s TICK is due before the parent's own 7 s TOCK: the tree's next due
        assert machine.next_due == CLOCK_START + 5
        assert child.pending_timers == {"after.working.5s": CLOCK_START + 5}
        clock.now += 10
        assert await act(machine.fire_due()) == 2
        assert child.data.seen == ["tick"]
        assert child.last_transition.epoch == CLOCK_START + 5
        assert machine.last_transition.epoch == CLOCK_START + 7
        assert machine.data.log[-1]["name"] == "TOCK"

    run(scenario)


@FLAVOURS
def test_a_childs_timer_ends_it_and_its_done_invoke_reaches_the_parent(flavour: str) -> None:
    clock = Clock()

    async def scenario() -> None:
        machine = await new(QUICK_BOSS, flavour, clock)
        await act(machine.send(BossEvent.GO))
        clock.now += 5
        assert await act(machine.fire_due()) == 2  # TICK in the child, done.invoke here
        assert machine.state is BossState.FINISHED
        assert machine.data.result == {"count": 1, "name": ""}
        assert machine.data.log[-1]["name"] == "done.invoke.worker"

    run(scenario)


def test_the_store_driver_fires_a_childs_timer_and_delivers_done_invoke(
    store: TimerStore,
) -> None:
    clock = Clock()
    sync = QUICK_BOSS[0]
    machine = sync(None, options=options(clock, store=store))
    machine.send(BossEvent.GO)
    machine.save()
    # the row is due when the child's timer is (5 s), before the parent's own (7 s)
    assert store.claim_due(CLOCK_START + 4, 10, 30.0) == []
    assert store.claim_due(CLOCK_START + 5, 10, 30.0) == ["boss-1"]
    store.release("boss-1")
    fired = fire_due_timers(store, sync, now=CLOCK_START + 6, options=MachineOptions(clock=clock))
    assert fired == 2
    loaded = sync.load(store, "boss-1", options=options(clock))
    assert loaded.state is BossState.FINISHED and dict(loaded.children) == {}
    assert [entry["name"] for entry in loaded.data.log] == ["started", "done.invoke.worker"]


def test_the_async_store_driver_fires_children_too(tmp_path: Path) -> None:
    clock = Clock()
    asynchronous = QUICK_BOSS[1]

    async def scenario() -> None:
        with SqliteStore(tmp_path / "tree.sqlite") as store:
            machine = asynchronous(None, options=options(clock, store=store))
            await machine.send(BossEvent.GO)
            await machine.save()
            options_ = MachineOptions(clock=clock)
            fired = await fire_due_timers_async(
                store, asynchronous, now=CLOCK_START + 6, options=options_
            )
            assert fired == 2
            loaded = asynchronous.load(store, "boss-1", options=options(clock))
            assert loaded.state is BossState.FINISHED

    run(scenario)


def test_a_restored_tree_delivers_what_its_checkpoint_left() -> None:
    # a snapshot holding a message on its way (saved between a send and its delivery) is
    # delivered by the restored tree's next send
    machine = BOSS[0](None, options=options())
    machine.send(BossEvent.GO)
    snapshot = dict(machine.snapshot())
    worker_snapshot = snapshot["children"]["worker"]["snapshot"]
    worker_snapshot["chart"]["timers"].append(
        {
            "id": "anon-0123456789abcdef",
            "event": "PONG",
            "due": CLOCK_START,
            "delay": 0,
            "on_restore": "fire",
            "data": {"count": 7},
            "target": "#_parent",
        }
    )
    restored = BOSS[0].restore(snapshot, options=options())
    assert restored.children["worker"].state is WorkerState.WORKING
    assert restored.fire_due() == 1
    assert restored.data.log[-1] == {
        "name": "PONG",
        "data": {"count": 7},
        "invokeid": "worker",
        "origin": f"#_scxml_{restored.children['worker'].instance_id}",
        "sendid": None,
    }

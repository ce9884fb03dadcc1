"""Child machines (SCXML ``<invoke>``): started at the end of the macrostep that entered their
state, cancelled when it is left, their done data in ``done.invoke.<id>``, params, made-up ids,
``finalize``, ``autoforward``, ``#_parent`` and ``#_<invokeid>``, a tree of depth 2, on the sync
and the asyncio machine (``tests/invoke/trees.py`` describes the charts)."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest
from statewright import Assign, Invoke, Send, TimerLoop

from tests.invoke.support import FLAVOURS, act, new, run
from tests.invoke.trees import (
    ASYNC_WORKER,
    WORKER,
    BossEvent,
    BossState,
    T,
    WorkerEvent,
    WorkerState,
    boss,
    middle,
    options,
    worker,
)

BOSS = boss()


def names(machine: Any) -> list[str]:
    """The names of the events the parent remembered."""
    return [entry["name"] for entry in machine.data.log]


@FLAVOURS
def test_entering_the_state_starts_the_child_with_its_params(flavour: str) -> None:
    async def scenario() -> None:
        machine = await new(BOSS, flavour)
        assert dict(machine.children) == {}
        assert await act(machine.send(BossEvent.GO)) is BossState.RUNNING
        child = machine.children["worker"]
        assert list(machine.children) == ["worker"]
        assert isinstance(child, WORKER if flavour == "sync" else ASYNC_WORKER)
        assert child.state is WorkerState.WORKING
        assert (child.data.limit, child.data.name, child.data.count) == (3, "w1", 0)
        # its entry sent `started` to #_parent: delivered before send returned, after the
        # invoke's finalize ran with the child's invoke id
        (started,) = machine.data.log
        assert started == {
            "name": "started",
            "data": {"name": "w1"},
            "invokeid": "worker",
            "origin": f"#_scxml_{child.instance_id}",
            "sendid": "hello",
        }
        assert machine.data.finalized == 1
        with pytest.raises(TypeError):
            machine.children["other"] = child  # read-only

    run(scenario)


@FLAVOURS
def test_events_go_both_ways_and_done_invoke_carries_the_done_data(flavour: str) -> None:
    async def scenario() -> None:
        machine = await new(BOSS, flavour)
        await act(machine.send(BossEvent.GO))
        child = machine.children["worker"]
        for expected in (1, 2):
            # PING goes to #_worker, which answers PONG with its count to #_parent
            assert await act(machine.send(BossEvent.PING)) is BossState.RUNNING
            assert child.data.count == expected
            assert machine.data.log[-1]["data"] == {"count": expected}
        # the third PING: the worker answers, reaches its final state, and ends
        assert await act(machine.send(BossEvent.PING)) is BossState.FINISHED
        assert names(machine) == ["started", "PONG", "PONG", "PONG", "done.invoke.worker"]
        assert machine.data.result == {"count": 3, "name": "w1"}
        assert machine.data.log[-1]["invokeid"] == "worker"
        assert dict(machine.children) == {}
        assert child.is_final
        # finalize ran before each event from the child, the done.invoke included
        assert machine.data.finalized == 5

    run(scenario)


@FLAVOURS
def test_leaving_the_state_cancels_the_child(flavour: str) -> None:
    async def scenario() -> None:
        machine = await new(BOSS, flavour)
        await act(machine.send(BossEvent.GO))
        first = machine.children["worker"]
        assert await act(machine.send(BossEvent.CANCEL)) is BossState.IDLE
        assert dict(machine.children) == {}
        # entering again starts a new child, from its initial state
        await act(machine.send(BossEvent.GO))
        second = machine.children["worker"]
        assert second is not first and second.data.count == 0
        assert first.instance_id != second.instance_id

    run(scenario)


@FLAVOURS
def test_what_a_child_sent_before_it_was_cancelled_is_still_processed(flavour: str) -> None:
    async def scenario() -> None:
        machine = await new(BOSS, flavour)
        await act(machine.send(BossEvent.GO))
        # BURST: the worker sends FIRST then SECOND; FIRST takes the parent back to idle,
        # cancelling the worker; SECOND was on the parent's queue before that, so it is
        # processed (SCXML ignores what a cancelled session sends after the cancel; W3C test
        # 236 processes a done.invoke queued before it); nothing is left waiting
        await act(machine.children["worker"].send(WorkerEvent.BURST))
        assert machine.state is BossState.IDLE
        assert names(machine) == ["started", "FIRST", "SECOND"]
        assert machine.pending_timers == {}

    run(scenario)


@FLAVOURS
def test_a_cancelled_child_sends_nothing_more(flavour: str) -> None:
    async def scenario() -> None:
        machine = await new(BOSS, flavour)
        await act(machine.send(BossEvent.GO))
        child = machine.children["worker"]
        await act(machine.send(BossEvent.CANCEL))
        await act(child.send(WorkerEvent.PING))  # it still runs on its own, for nobody
        assert child.data.count == 1
        assert names(machine) == ["started"]

    run(scenario)


@FLAVOURS
def test_a_failing_start_is_error_execution_and_no_child(flavour: str) -> None:
    bad_params = Invoke(
        lambda: WORKER, lambda: ASYNC_WORKER, "worker", params=lambda d, e, s, a: 1 / 0
    )
    wrong_data = Invoke(
        lambda: WORKER, lambda: ASYNC_WORKER, "worker", params=lambda d, e, s, a: {"limit": "x"}
    )
    not_a_chart = Invoke(lambda: int, lambda: int, "worker")

    async def scenario() -> None:
        for invoke in (bad_params, wrong_data, not_a_chart):
            machine = await new(boss(invoke), flavour)
            assert await act(machine.send(BossEvent.GO)) is BossState.RUNNING
            assert names(machine) == ["error.execution"]
            assert dict(machine.children) == {}
            # a send to it is error.communication: no such child runs
            await act(machine.send(BossEvent.PING))
            assert names(machine) == ["error.execution", "error.communication"]

    run(scenario)


@FLAVOURS
def test_an_invoke_without_an_id_makes_one_up_into_its_id_location(flavour: str) -> None:
    invoke = Invoke(lambda: WORKER, lambda: ASYNC_WORKER, id_location="worker_id")

    async def scenario() -> None:
        machine = await new(boss(invoke), flavour)
        await act(machine.send(BossEvent.GO))
        made_up = machine.data.worker_id
        assert re.fullmatch(r"running\.[0-9a-f]{16}", made_up)
        assert list(machine.children) == [made_up]
        # done.invoke.running.<hex> reaches the transition on the `done.invoke` descriptor,
        # its _event.name in full (the parent has no event of that exact name)
        await act(machine.children[made_up].send(WorkerEvent.STOP))
        assert machine.data.log[-1]["name"] == f"done.invoke.{made_up}"
        assert machine.data.log[-1]["invokeid"] == made_up
        # a new start makes a new id
        await act(machine.send(BossEvent.CANCEL))
        await act(machine.send(BossEvent.GO))
        assert machine.data.worker_id != made_up

    run(scenario)


@FLAVOURS
def test_autoforward_sends_the_child_every_external_event(flavour: str) -> None:
    invoke = Invoke(lambda: WORKER, lambda: ASYNC_WORKER, "worker", autoforward=True)

    async def scenario() -> None:
        machine = await new(boss(invoke), flavour)
        await act(machine.send(BossEvent.GO))
        child = machine.children["worker"]
        # NOISE: no transition of the parent takes it, yet it was processed (forwarded)
        assert await act(machine.send(BossEvent.NOISE)) is BossState.RUNNING
        (seen,) = child.data.seen
        assert seen["name"] == "NOISE" and seen["invokeid"] is None
        assert seen["origin"] == "#_scxml_boss-1"
        # what the child records is what took its NOISE transition
        assert [entry["name"] for entry in child.data.seen] == ["NOISE"]

    run(scenario)


@FLAVOURS
def test_sends_to_machines_that_cannot_be_reached(flavour: str) -> None:
    nobody = T(1, frozenset({BossEvent.NOISE}), steps=(Send("PING", "", target="#_nobody"),))
    parent = T(1, frozenset({BossEvent.TOCK}), steps=(Send("PING", "", target="#_parent"),))

    async def scenario() -> None:
        machine = await new(boss(extra=(nobody, parent)), flavour)
        await act(machine.send(BossEvent.GO))
        await act(machine.send(BossEvent.NOISE))  # no child of that id
        await act(machine.send(BossEvent.TOCK))  # a machine nobody invoked has no parent
        assert names(machine) == ["started", "error.communication", "error.communication"]

    run(scenario)


@FLAVOURS
def test_events_the_receiver_has_no_name_for_are_discarded(
    flavour: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        # Middle's events lack `started`: its worker's `started` is discarded
        with caplog.at_level(logging.DEBUG, logger="statewright"):
            machine = await new(middle(), flavour, instance_id="middle-1")
        assert machine.children["inner"].state is WorkerState.WORKING
        assert machine.pending_timers == {}
        assert any(
            "discarded the event started from another machine" in record.getMessage()
            for record in caplog.records
        )

    run(scenario)


@FLAVOURS
def test_a_tree_of_depth_two(flavour: str) -> None:
    middle_classes = middle()
    invoke = Invoke(lambda: middle_classes[0], lambda: middle_classes[1], "middle")
    to_middle = T(1, frozenset({BossEvent.NOISE}), steps=(Send("PING", "", target="#_middle"),))

    async def scenario() -> None:
        machine = await new(boss(invoke, extra=(to_middle,)), flavour)
        await act(machine.send(BossEvent.GO))
        inner = machine.children["middle"].children["inner"]
        assert inner.data.name == "inner"
        # PING to #_middle, forwarded to its worker, whose PONG Middle relays up as RELAY
        await act(machine.send(BossEvent.NOISE))
        assert inner.data.count == 1
        assert machine.data.log[-1]["name"] == "RELAY"
        assert machine.data.log[-1]["data"] == {"count": 1}
        # the second: the worker finishes, so does Middle (its done data is the worker's)
        assert await act(machine.send(BossEvent.NOISE)) is BossState.FINISHED
        assert machine.data.result == {"count": 2, "name": "inner"}
        assert dict(machine.children) == {}

    run(scenario)


@FLAVOURS
def test_events_between_machines_that_never_settle_are_a_loop_error(flavour: str) -> None:
    echo = T(1, frozenset({BossEvent.PONG}), steps=(Send("PING", "", target="#_worker"),))
    many = Invoke(
        lambda: WORKER,
        lambda: ASYNC_WORKER,
        "worker",
        params=lambda d, e, s, a: {"limit": 10**9},
    )

    async def scenario() -> None:
        machine = await new(boss(many, extra=(echo,)), flavour)
        await act(machine.send(BossEvent.GO))
        with pytest.raises(TimerLoop, match=r"worker:PING -> root:PONG -> worker:PING"):
            await act(machine.send(BossEvent.PING))
        # what was processed is kept; the next event is still queued, for the next call
        assert machine.children["worker"].data.count > 1000

    run(scenario)


def test_the_invoke_handlers_give_the_child_its_handlers() -> None:
    seen: list[Any] = []

    def child_handlers(parent_handlers: Any) -> str:
        seen.append(parent_handlers)
        return "child handlers"

    invoke = Invoke(lambda: WORKER, lambda: ASYNC_WORKER, "worker", handlers=child_handlers)
    sync, _ = boss(invoke)
    machine = sync(None, "parent handlers")
    machine.send(BossEvent.GO)
    assert seen == ["parent handlers"]
    assert machine.children["worker"].handlers == "child handlers"
    assert machine.children["worker"].context is machine.context


def test_a_childs_error_stays_in_the_child() -> None:
    failing = Assign("count", lambda d, e, s, a: 1 / 0, "count")
    broken = worker(extra=(T(0, frozenset({WorkerEvent.PING}), steps=(failing,)),))
    invoke = Invoke(lambda: broken[0], lambda: broken[1], "worker")
    machine = boss(invoke)[0](None)
    machine.send(BossEvent.GO)
    child = machine.children["worker"]
    machine.send(BossEvent.PING)  # the worker's assignment fails: its own error.execution
    assert [entry["name"] for entry in child.data.seen] == ["error.execution"]
    assert names(machine) == ["started"]


def test_a_finalize_that_assigns_from_the_event() -> None:
    finalize = (Assign("result", lambda d, e, s, a: e.invokeid, "result"),)
    invoke = Invoke(lambda: WORKER, lambda: ASYNC_WORKER, "worker", finalize=finalize)
    machine = boss(invoke)[0](None)
    machine.send(BossEvent.GO)
    assert machine.data.result == "worker"


def test_a_parent_saves_at_most_child_history_limit_records_of_a_child() -> None:
    endless = Invoke(
        lambda: WORKER, lambda: ASYNC_WORKER, "worker", params=lambda d, e, s, a: {"limit": 99}
    )
    sync = boss(endless)[0]
    machine = sync(None, options=options(child_history_limit=2))
    machine.send(BossEvent.GO)
    for _ in range(5):
        machine.send(BossEvent.PING)
    child = machine.children["worker"]
    # while it runs, a child keeps its history as its parent does (history_limit)
    assert child.total_transitions == 5 and len(child.history) == 5
    assert child.options.store is None and child.options.history_limit == 1000
    # its parent's snapshot keeps the newest two
    saved = machine.snapshot()["children"]["worker"]["snapshot"]
    assert [record["event_id"] for record in saved["history"]] == [4, 5]
    restored = sync.restore(machine.snapshot(), options=options()).children["worker"]
    assert restored.total_transitions == 5
    assert [record.event_id for record in restored.history] == [4, 5]
    with pytest.raises(ValueError, match="child_history_limit"):
        options(child_history_limit=-1)


@FLAVOURS
def test_a_childs_action_may_send_to_its_parent_while_the_tree_delivers(flavour: str) -> None:
    poking = worker(extra=(T(0, frozenset({WorkerEvent.PING}), steps=("poke",)),))
    invoke = Invoke(lambda: poking[0], lambda: poking[1], "worker", handlers=lambda parent: parent)

    class Handlers:
        def poke(self, context: dict[str, Any], payload: Any) -> Any:
            return context["parent"].send(BossEvent.TOCK)  # awaited by the asyncio child

    async def scenario() -> None:
        context: dict[str, Any] = {}
        sync, asynchronous = boss(invoke)
        cls = sync if flavour == "sync" else asynchronous
        machine = cls(context, Handlers(), options=options())
        context["parent"] = machine
        await act(machine.send(BossEvent.GO))
        # PING reaches the worker while the tree delivers (under its lock): its action sends
        # the parent TOCK, which takes the lock again instead of waiting for itself
        await asyncio.wait_for(act(machine.send(BossEvent.PING)), 10)
        assert names(machine) == ["started", "TOCK"]

    run(scenario)

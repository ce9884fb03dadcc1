"""Timers that terminate: a timer fired at its due time *t* runs its macrostep at *t* (the timers
it starts are due at *t + delay*, whatever the clock says), one ``fire_due`` call fires at most
:data:`~statewright._timers.MAX_TIMER_FIRINGS` timers and then raises :class:`TimerLoop` naming
the cycle, and the store driver saves what fired and releases its claim.

Each loop of issue #18 is reproduced here. Before the fix these calls never returned, so each runs
under :func:`finishes`: in a thread with a deadline, so that a regression fails instead of hanging
the suite.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest
from statewright import MachineOptions, MemoryStore, fire_due_timers, fire_due_timers_async
from statewright._errors import StatewrightError, TimerLoop
from statewright._timers import MAX_TIMER_FIRINGS

from tests.runtime.chart_specs import compile_chart

START = 1_767_225_600.0
#: Seconds a call that terminates takes at most here (10,000 firings take about one).
DEADLINE = 60.0
T = TypeVar("T")

ECHO = """
[machine]
name = "Echo"
initial = "a"
[events]
PING = {}
[states.a]
entry = [{ send = "PING", id = "ping", delay = "0s" }]
on.PING = "a"
"""
CYCLE = """
[machine]
name = "Cycle"
initial = "l1"
[events]
STOP = {}
[states.l1]
after = { delay = "30s", to = "l2" }
on.STOP = "done"
[states.l2]
after = { delay = "1h", to = "l1" }
[states.done]
kind = "final"
"""
PING_PONG = """
[machine]
name = "PingPong"
initial = "ping"
[events]
STOP = {}
[states.ping]
after = { delay = "1s", to = "pong" }
on.STOP = "done"
[states.pong]
after = { delay = "1s", to = "ping" }
[states.done]
kind = "final"
"""


def finishes(call: Callable[[], T], seconds: float = DEADLINE) -> T:
    """``call()``'s result, or the exception it raised; a test failure if it is still running
    after ``seconds`` (the thread is a daemon: it cannot keep the suite alive)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"did not return within {seconds:.0f} s: the timers loop")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]  # what call() returned


class Clock:
    """A frozen clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def echo(tmp_path: Path) -> ModuleType:
    return compile_chart(tmp_path, ECHO, "echo")


@pytest.fixture
def cycle(tmp_path: Path) -> ModuleType:
    return compile_chart(tmp_path, CYCLE, "cycle")


@pytest.fixture
def ping_pong(tmp_path: Path) -> ModuleType:
    return compile_chart(tmp_path, PING_PONG, "ping_pong")


def test_a_zero_delay_self_send_is_a_timer_loop_naming_the_cycle(echo: ModuleType) -> None:
    """What import-scxml writes for a plain ``<send>`` with a self-transition: on any clock it
    re-arms itself at the due time it fired at. The bound stops it; what fired is kept."""
    for clock in (Clock(), None):  # frozen, and the real one
        options = MachineOptions() if clock is None else MachineOptions(clock=clock)
        machine = echo.EchoMachine(None, options=options)
        with pytest.raises(TimerLoop) as caught:
            finishes(machine.fire_due)
        error = caught.value
        assert isinstance(error, StatewrightError)
        assert error.fired == MAX_TIMER_FIRINGS and error.cycle == ("ping",)
        assert str(error).startswith(
            f"timers did not settle after {MAX_TIMER_FIRINGS} firings in one fire_due call: "
            "ping -> ping repeats"
        )
        assert machine.total_transitions == MAX_TIMER_FIRINGS  # each firing was committed
        assert list(machine.pending_timers) == ["ping"]  # the next one waits, not lost
        assert machine.snapshot()["chart"]["timers"][0]["id"] == "ping"


def test_an_after_cycle_stops_at_now(cycle: ModuleType) -> None:
    """l1 -30s-> l2 -1h-> l1 with ``fire_due(now=clock + 10_000)``: the timers due by then fire,
    each at its due time (the history shows it), and the one due after ``now`` waits."""
    clock = Clock()
    machine = cycle.CycleMachine(None, options=MachineOptions(clock=clock))
    fired = finishes(lambda: machine.fire_due(now=clock.now + 10_000))
    assert fired == 5  # due at +30, +3630, +3660, +7260, +7290
    assert machine.state is cycle.CycleState.L2
    assert [record.epoch - START for record in machine.history] == [30, 3630, 3660, 7260, 7290]
    assert [record.lateness for record in machine.history] == [9970, 6370, 6340, 2740, 2710]
    assert machine.pending_timers == {"after.l2.1h": START + 10_890}


def test_a_frozen_clock_ping_pong_fires_each_timer_at_its_due_time(ping_pong: ModuleType) -> None:
    clock = Clock()
    machine = ping_pong.PingPongMachine(None, options=MachineOptions(clock=clock))
    assert finishes(lambda: machine.fire_due(now=START + 5)) == 5
    assert machine.state is ping_pong.PingPongState.PONG
    assert [record.epoch - START for record in machine.history] == [1, 2, 3, 4, 5]
    assert machine.pending_timers == {"after.pong.1s": START + 6}
    clock.now = START + 5.5  # the clock caught up: nothing more is due
    assert machine.fire_due() == 0
    clock.now = START + 7
    assert machine.fire_due() == 2 and machine.next_due == START + 8


def test_the_async_machine_has_the_same_rule_and_bound(echo: ModuleType, cycle: ModuleType) -> None:
    async def run() -> tuple[int, TimerLoop]:
        clock = Clock()
        timed = cycle.CycleAsyncMachine(None, options=MachineOptions(clock=clock))
        fired = await timed.fire_due(now=clock.now + 10_000)
        assert [record.epoch - START for record in timed.history] == [30, 3630, 3660, 7260, 7290]
        looping = echo.EchoAsyncMachine(None, options=MachineOptions(clock=clock))
        try:
            await looping.fire_due()
        except TimerLoop as error:
            assert looping.total_transitions == MAX_TIMER_FIRINGS
            return fired, error
        raise AssertionError("no TimerLoop")

    fired, error = finishes(lambda: asyncio.run(run()))
    assert fired == 5 and error.cycle == ("ping",)


def test_the_bound_names_a_longer_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two zero-delay sends that answer each other: the cycle is both ids."""
    from statewright import _timers

    module = compile_chart(
        tmp_path,
        """
        [machine]
        name = "Relay"
        initial = "a"
        [events]
        TO_A = {}
        TO_B = {}
        [states.a]
        entry = [{ send = "TO_B", id = "to_b", delay = "0s" }]
        on.TO_B = "b"
        [states.b]
        entry = [{ send = "TO_A", id = "to_a", delay = "0s" }]
        on.TO_A = "a"
        """,
        "relay",
    )
    monkeypatch.setattr(_timers, "MAX_TIMER_FIRINGS", 50)
    machine = module.RelayMachine(None, options=MachineOptions(clock=Clock()))
    with pytest.raises(TimerLoop, match="fire_due call: to_b -> to_a -> to_b repeats") as caught:
        finishes(machine.fire_due)
    assert caught.value.fired == 50 and machine.total_transitions == 50


def test_the_store_driver_saves_what_fired_and_releases_its_claim(
    echo: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    store = MemoryStore()
    options = MachineOptions(clock=clock)
    machine = echo.EchoMachine(None, options=MachineOptions(clock=clock, instance_id="loop"))
    machine.save(store)
    with caplog.at_level(logging.ERROR, logger="statewright"):
        fired = finishes(
            lambda: fire_due_timers(store, echo.EchoMachine, now=START, options=options)
        )
    assert fired == MAX_TIMER_FIRINGS
    saved = store.load("loop")
    assert saved is not None and saved["total_transitions"] == MAX_TIMER_FIRINGS
    assert "ping -> ping repeats" in caplog.text
    assert store.claim_due(START, 10, 60) == ["loop"]  # released: due again, claimable
    store.release("loop")

    async def run() -> int:
        return await fire_due_timers_async(store, echo.EchoAsyncMachine, now=START, options=options)

    assert finishes(lambda: asyncio.run(run())) == MAX_TIMER_FIRINGS
    saved = store.load("loop")
    assert saved is not None and saved["total_transitions"] == 2 * MAX_TIMER_FIRINGS
    assert store.claim_due(START, 10, 60) == ["loop"]

"""Errors (``on_error = "event"`` and ``"raise"``), eventless loops and the asyncio machine, on
small charts with the exact calls they make (see :mod:`tests.charts.test_semantics`)."""

from __future__ import annotations

import asyncio

import pytest
from statewright import ActionFailed, StatewrightError

from tests.charts.harness import (
    Handlers,
    Script,
    compile_chart,
    run_async_machine,
    run_machine,
    run_reference,
)
from tests.charts.scenarios import COMPOUND, REGIONS, calls, chart, run

# -- errors ---------------------------------------------------------------------------------------
ERRORS = """
[states.s]
entry = ["en_s"]
on.GO = { to = "t", guard = "check", actions = ["first", "second"] }
on.OTHER = { to = "t", actions = ["step", { raise = "BACK" }, "after_step"] }
on.error = { to = "failed", actions = ["on_error"] }
on.BACK = { to = [], actions = ["on_back"] }
[states.t]
entry = ["en_t"]
[states.failed]
"""


def test_on_error_event_a_raising_guard_is_false_and_raises_error_execution() -> None:
    spec = chart(ERRORS, initial='"s"', on_error="event")
    _, go = run(spec, ["GO"], guards={"check": ["raise"]})
    # No transition took GO, but the guard raised: GO counts as processed and error.execution
    # is handled (on.error in s), as SCXML does.
    assert go.outcome == "taken"
    assert calls(go) == ["check=raise", "on_error"]
    assert go.leaves == {"failed"}


def test_on_error_event_a_raising_guard_of_a_taken_event_raises_error_execution() -> None:
    spec = chart(
        """
[states.s]
on.GO = [{ to = "t", guard = "check" }, { to = "u", actions = ["fallback"] }]
[states.t]
[states.u]
always = { to = "t", guard = "ready" }
on."error.execution" = { to = "failed", actions = ["on_error"] }
[states.failed]
""",
        initial='"s"',
        on_error="event",
    )
    _, go = run(spec, ["GO"], guards={"check": ["raise"], "ready": ["raise"]})
    # check raised: the next alternative is taken, then error.execution after the eventless
    # selection (whose guard raised too: a second error.execution, which failed ignores).
    assert calls(go) == ["check=raise", "fallback", "ready=raise", "on_error"]
    assert go.leaves == {"failed"}


def test_on_error_event_a_raising_action_ends_its_block_and_raises_error_execution() -> None:
    spec = chart(ERRORS, initial='"s"', on_error="event")
    _, other = run(spec, ["OTHER"], failures={"step": frozenset({0})})
    # The rest of the transition's block is skipped (the raise of BACK too), t is entered, and
    # error.execution finds no transition in t: it is discarded.
    assert calls(other) == ["step!", "en_t"]
    assert other.leaves == {"t"}
    _, go = run(spec, ["GO"], guards={"check": [True]}, failures={"second": frozenset({0})})
    assert calls(go) == ["check=True", "first", "second!", "en_t"]


def test_on_error_event_error_execution_is_handled_like_any_event() -> None:
    spec = chart(
        """
[states.s]
on.GO = { to = "t", actions = ["go", { raise = "BACK" }] }
[states.t]
entry = ["en_t", "not_reached"]
on.BACK = { to = [], actions = ["on_back"] }
on."error.*" = { to = "failed", actions = ["on_error"] }
[states.failed]
""",
        initial='"s"',
        on_error="event",
    )
    _, go = run(spec, ["GO"], failures={"en_t": frozenset({0})})
    assert calls(go) == ["go", "en_t!", "on_back", "on_error"]  # in the order they were raised
    assert go.leaves == {"failed"}


def test_on_error_raise_leaves_the_machine_as_it_was() -> None:
    spec = chart(
        ERRORS.replace('on.error = { to = "failed", actions = ["on_error"] }\n', ""), initial='"s"'
    )
    _, go, again = run(spec, ["GO", "GO"], guards={"check": ["raise", True]})
    assert go.outcome == "guard-error"
    assert go.leaves == {"s"}
    assert again.outcome == "taken"
    _, other, retry = run(spec, ["OTHER", "OTHER"], failures={"after_step": frozenset({0})})
    assert other.outcome == "action-error"
    assert calls(other) == ["step", "after_step!"]
    assert other.leaves == {"s"}  # and BACK, raised before the failure, was dropped with it
    assert calls(retry) == ["step", "after_step", "en_t"]  # BACK is raised again: t ignores it
    assert retry.leaves == {"t"}


# -- eventless loops ------------------------------------------------------------------------------
LOOP = """
[states.a]
on.GO = "b"
[states.b]
always = { to = "c", actions = ["to_c"] }
[states.c]
always = { to = "b", actions = ["to_b"] }
"""


def test_an_eventless_loop_fails_the_macrostep_naming_the_cycle() -> None:
    module = compile_chart(chart(LOOP, initial='"a"'))
    machine = module.RandomMachine(None, Handlers(Script()))
    with pytest.raises(StatewrightError) as caught:
        machine.send(module.RandomEvent.GO)
    assert str(caught.value) == (
        "eventless transitions did not settle after 10000 microsteps: c -> b -> c repeats"
    )
    assert machine.state is module.RandomState.A  # nothing of the macrostep was kept


def test_the_reference_stops_an_eventless_loop_where_the_machine_does() -> None:
    _, go = run(chart(LOOP, initial='"a"'), ["GO"])  # the real bound, in both
    assert go.outcome == "loop"
    assert len(go.calls) == 10_000  # one action per microstep, none after the bound


# -- the asyncio machine --------------------------------------------------------------------------
def test_the_async_machine_agrees_with_the_sync_one() -> None:
    spec = chart(
        REGIONS
        + """
[states.out]
entry = ["en_out", { raise = "OTHER" }]
on.BACK = "deep"
on.OTHER = { to = [], guard = "g", actions = ["on_other"] }
[states.deep]
parent = "p"
kind = "history"
history = "deep"
[[transitions]]
from = "*"
event = "OTHER"
to = "out"
guard = "not in(out)"
then = ["left"]
""",
        initial='"p"',
    )
    events = ["GO", "OTHER", "BACK", "OTHER", "GO", "BACK"]
    script = Script({"g": [True, False, "raise"]}, {"en_a2": frozenset({1})})
    module = compile_chart(spec)
    sync = run_machine(module, script.fresh(), events)
    assert run_async_machine(module, script.fresh(), events) == sync
    assert sync == run_reference(spec, script.fresh(), events)
    assert [observation.outcome for observation in sync] == [
        "started", "taken", "taken", "action-error", "rejected", "rejected", "taken"
    ]  # fmt: skip
    assert sync[-1].leaves == {"a2", "b2"}  # deep history, restored once en_a2 succeeds


def test_the_async_machine_starts_on_start_chart_or_with_its_first_event() -> None:
    module = compile_chart(chart(COMPOUND.replace("TYPE", "internal"), initial='"s"'))
    script = Script()
    machine = module.RandomAsyncMachine(None, Handlers(script))
    assert script.trace == []  # a constructor cannot await: nothing entered yet
    assert machine.state is module.RandomState.S1

    async def first_event() -> None:
        await machine.send(module.RandomEvent.GO)

    asyncio.run(first_event())
    assert [call[1] for call in script.trace] == ["en_s", "en_s1", "ex_s1", "t", "en_s2"]
    started = Script()
    machine = module.RandomAsyncMachine(None, Handlers(started))

    async def start_twice() -> None:
        await machine.start_chart()
        await machine.start_chart()  # once only

    asyncio.run(start_twice())
    assert [call[1] for call in started.trace] == ["en_s", "en_s1"]


def test_a_failing_error_handler_names_the_event_and_state_that_failed() -> None:
    """An action fails, then the error handler's own action fails: the event fails naming the
    event and the state it was sent in (as a flat machine does), never the internal route."""
    spec = chart(
        """
[states.s]
on.GO = { to = "t", actions = ["first"] }
[states.t]
[states.failed]

[[error_handlers]]
from = "*"
to = "failed"
actions = ["recover"]
""",
        initial='"s"',
    )
    module = compile_chart(spec)
    script = Script({}, {"first": frozenset({0}), "recover": frozenset({0})})
    machine = module.RandomMachine(None, Handlers(script))
    with pytest.raises(ActionFailed) as info:
        machine.send(module.RandomEvent.GO)
    failure = info.value
    assert (failure.event, failure.state, failure.action) == ("GO", "s", "recover")
    assert "ERROR_ROUTE" not in str(failure) and "in state s" in str(failure)
    assert machine.state is module.RandomState.S  # nothing was applied


def test_a_failing_transition_action_names_the_state_the_event_found() -> None:
    """Without an error handler, a transition action fails after its source was exited; the
    failure still names the state the machine stays in, not the configuration mid-transition."""
    module = compile_chart(
        chart('[states.s]\non.GO = { to = "t", actions = ["first"] }\n[states.t]\n', initial='"s"')
    )
    machine = module.RandomMachine(None, Handlers(Script({}, {"first": frozenset({0})})))
    with pytest.raises(ActionFailed) as info:
        machine.send(module.RandomEvent.GO)
    assert (info.value.event, info.value.state, info.value.action) == ("GO", "s", "first")
    assert str(info.value).endswith("the machine stays in s")

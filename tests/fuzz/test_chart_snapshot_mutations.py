"""Statechart snapshots under mutation: history memory, timers, the internal queue, the
configuration and the numbers in them.

Random walks (events, and the clock moved with ``fire_due`` between them) over random charts
(:mod:`tests.charts.strategies`, with ``after`` timers added to some states), over the chart seeds
and over :data:`TIMED` (sends with a delay handler or none, timers with each restore policy and
an explicit id, history inside and around a parallel state). Two properties:

* every snapshot a walk takes restores exactly: the restored machine's snapshot is the same (the
  time it was taken aside, and the due times ``resume`` and ``restart`` timers move by design);
* a snapshot with a chart part mutated (memory: siblings, nothing, pseudo-states, another time's;
  timers: of other states, with other ids, events, delays, due times and policies, dropped or
  doubled; a queued event; another configuration or ``finished``; hostile numbers) either raises
  :class:`SnapshotError` on restore, or gives a machine whose own snapshot restores exactly and
  which goes on running (events, ``fire_due``) raising nothing but :class:`StatewrightError`.

``STATEWRIGHT_FUZZ_BUDGET`` scales the examples and ``STATEWRIGHT_FUZZ_SEED`` seeds them, as for
the rest of the fuzz suite.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from statewright import Machine, MachineOptions, SnapshotError, StatewrightError, _chart, _timers
from statewright._chart_spec import MAX_DELAY
from statewright._clock import MAX_EPOCH, MIN_EPOCH
from statewright_compiler.diagnostics import SpecError
from statewright_compiler.spec.toml_compat import tomllib  # tomllib, or tomli on Python 3.10

from tests.charts.harness import Handlers, compile_chart
from tests.charts.strategies import ChartCase, chart_cases
from tests.fuzz import budget, seed
from tests.runtime.own_paths import assert_trusted_paths_agree

SUPPRESSED: Final = [HealthCheck.too_slow, HealthCheck.data_too_large]
SEEDS: Final = ("agent_task", "approval_workflow", "remem", "pegasus_task")
#: Bounds that keep a looping chart cheap here (the real ones are tested elsewhere).
LOOP_BOUND: Final = 40
TIMER_BOUND: Final = 40
NUMBERS: Final[list[Any]] = [
    0, 1, -1, 0.5, 5, 30, 30.0, 3600, MAX_DELAY, MAX_DELAY + 1, 10**30, 1e300, -1e300,
    MIN_EPOCH, MAX_EPOCH, MAX_EPOCH + 1, 1_767_225_600, 1_767_225_600.25, 2**63, True, None,
    "30", [], {},
]  # fmt: skip
POLICIES: Final[list[Any]] = ["fire", "resume", "restart", "Fire", "", None, {}, []]
DELAYS: Final = [0, 0.5, 1, 5, 30, 3600, -1, 1e300, MAX_DELAY * 2, "soon", None]
STEPS: Final = [0.0, 0.25, 1.0, 5.0, 30.0, 600.0, 3600.0, 86400.0]

TIMED: Final = """
[machine]
name = "Timed"
initial = "work"
[events]
GO = {}
PAUSE = {}
RESUME = {}
BACK = {}
PING = {}
DONE = {}
[states.work]
kind = "parallel"
on.PAUSE = "paused"
[states.left]
parent = "work"
initial = "l1"
[states.l1]
parent = "left"
after = [
  { delay = "30s", to = "l2", guard = "ready" },
  { id = "slow", delay = "30s", to = "l1", on_restore = "resume" },
]
on.GO = { to = "l2", actions = [{ send = "PING", id = "ping", delay_handler = "how_long" }] }
[states.l2]
parent = "left"
after = { delay = "1h", to = "l1", on_restore = "restart" }
on.PING = { to = "l1", actions = [{ send = "PING", id = "ping", delay = "0s" }] }
[states.left_hist]
kind = "history"
parent = "left"
[states.right]
parent = "work"
initial = "r1"
[states.r1]
parent = "right"
on.GO = "r2"
[states.r2]
parent = "right"
after = { delay_handler = "how_long", to = "r1" }
on.DONE = { to = "finished", actions = [{ raise = "PING" }] }
[states.work_hist]
kind = "history"
parent = "work"
history = "deep"
[states.paused]
on.RESUME = "work_hist"
on.BACK = "left_hist"
[states.finished]
kind = "final"
"""


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class RandomHandlers:
    """Guards answer at random; delay handlers answer seconds (sometimes impossible ones);
    other actions sometimes raise."""

    def __init__(self, chooser: random.Random) -> None:
        self.chooser = chooser

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)

        def handler(context: Any, payload: Any, /) -> Any:
            roll = self.chooser.random()
            if name == "how_long":
                return self.chooser.choice(DELAYS)
            if name == "ready":
                return roll < 0.5
            if roll < 0.05:
                raise RuntimeError(f"{name} failed")
            return roll < 0.65

        return handler


@contextlib.contextmanager
def cheap_loops() -> Iterator[None]:
    with (
        mock.patch.object(_chart, "MAX_MICROSTEPS", LOOP_BOUND),
        mock.patch.object(_timers, "MAX_TIMER_FIRINGS", TIMER_BOUND),
    ):
        yield


def normalized(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Without what a snapshot writes anew: the spec hash, the order of counts, the time it was
    taken, and the due times a restore moves by design (``resume`` and ``restart`` timers)."""
    out = copy.deepcopy(snapshot)
    out["spec_hash"] = None
    out["counts"] = sorted(out["counts"], key=json.dumps)
    out["chart"]["saved_at"] = None
    for timer in out["chart"]["timers"]:
        if timer["on_restore"] != "fire":
            timer["due"] = None
    return out


def options(clock: Clock, chooser: random.Random) -> MachineOptions:
    return MachineOptions(
        clock=clock,
        history_limit=chooser.choice([None, 3]),
        record_history=chooser.random() < 0.7,
        log_transitions=False,
    )


def walk(
    cls: Any, handlers: object, chooser: random.Random, steps: int
) -> tuple[Machine[Any, Any, Any], Clock, list[dict[str, Any]]]:
    """A machine after ``steps`` random events and clock moves (each followed by
    ``fire_due``), and the snapshot taken after each step."""
    clock = Clock(chooser.choice([1_767_225_600.0, 1e9 + 0.5]))
    machine = cls(None, handlers, options=options(clock, chooser))
    events = list(cls.spec.event_type)
    taken: list[dict[str, Any]] = [dict(machine.snapshot())]
    for _ in range(steps):
        with contextlib.suppress(StatewrightError):  # rejections, failures, loops
            if chooser.random() < 0.6:
                machine.dynamic.send(chooser.choice(events))
            else:
                clock.now += chooser.choice(STEPS)
                machine.fire_due()
        taken.append(dict(machine.snapshot()))
    return machine, clock, taken


def restores_exactly(
    cls: Any, snapshot: dict[str, Any], handlers: object, clock: Clock
) -> Machine[Any, Any, Any]:
    options = MachineOptions(clock=clock)
    restored: Machine[Any, Any, Any] = cls.restore(snapshot, handlers, options=options)
    assert normalized(restored.snapshot()) == normalized(snapshot)
    assert_trusted_paths_agree(cls, snapshot, restored, handlers, options)
    return restored


def mutate(
    snapshot: dict[str, Any], others: list[dict[str, Any]], cls: Any, chooser: random.Random
) -> str:
    """Change one chart part of ``snapshot`` in place; returns what was done (for the report)."""
    chart = snapshot["chart"]
    nodes = [node.name for node in cls.spec.chart.nodes]
    histories = [node.name for node in cls.spec.chart.nodes if node.kind in ("shallow", "deep")]
    events = [str(event) for event in cls.spec.event_type]
    timer_ids = [timer.id for node in cls.spec.chart.nodes for timer in node.timers]
    other = chooser.choice(others)["chart"]
    kind = chooser.randrange(6)
    if kind == 0 and histories:
        history = chooser.choice(histories)
        remembered: Any = chooser.choice(
            [
                chooser.sample(nodes, chooser.randrange(min(4, len(nodes)) + 1)),
                other["memory"].get(history, []),
                [],
                chooser.choice(NUMBERS),
            ]
        )
        if chooser.random() < 0.2:
            chart["memory"].pop(history, None)
            return f"memory.{history} dropped"
        chart["memory"][history] = remembered
        return f"memory.{history} = {remembered!r}"
    if kind == 1:
        timers = chart["timers"]
        action = chooser.randrange(5)
        if action == 0 and timers:
            del timers[chooser.randrange(len(timers))]
        elif action == 1 and timers:
            timers.append(copy.deepcopy(chooser.choice(timers)))
        elif action == 2 and other["timers"]:
            timers.append(copy.deepcopy(chooser.choice(other["timers"])))
        elif action == 3 and timers:
            timer = chooser.choice(timers)
            key = chooser.choice(["id", "event", "due", "delay", "on_restore"])
            timer[key] = chooser.choice(
                {
                    "id": [*timer_ids, "ping", "nope", 7],
                    "event": [*events, "NOPE", 7],
                    "due": NUMBERS,
                    "delay": NUMBERS,
                    "on_restore": POLICIES,
                }[key]
            )
        else:
            timer_id = chooser.choice([*timer_ids, "ping", "nope"])
            timers.append(
                {
                    "id": timer_id,
                    "event": chooser.choice([timer_id, *events]),
                    "due": chooser.choice(NUMBERS),
                    "delay": chooser.choice(NUMBERS),
                    "on_restore": chooser.choice(POLICIES),
                }
            )
        return f"timers = {timers!r}"
    if kind == 2:
        chart["queue"].append([chooser.choice(events), {}])
        return f"queue = {chart['queue']!r}"
    if kind == 3:
        action = chooser.randrange(3)
        if action == 0:
            chart["active"] = copy.deepcopy(other["active"])
            states = {str(state) for state in cls.spec.state_type}
            leaves = [name for name in other["active"] if name in states]
            if leaves and chooser.random() < 0.7:
                snapshot["state"] = min(leaves, key=nodes.index)
        elif action == 1:
            chart["active"] = chooser.sample(nodes, chooser.randrange(min(5, len(nodes)) + 1))
        else:
            chart["finished"] = not chart["finished"]
        return f"active = {chart['active']!r}, finished = {chart['finished']!r}"
    if kind == 4:
        where = chooser.choice(["saved_at", "due", "delay"])
        value = chooser.choice(NUMBERS)
        if where == "saved_at" or not chart["timers"]:
            chart["saved_at"] = value
        else:
            chooser.choice(chart["timers"])[where] = value
        return f"{where} = {value!r}"
    chart["memory"] = copy.deepcopy(other["memory"])
    chart["timers"] = copy.deepcopy(other["timers"])
    return "memory and timers from another snapshot"


def check_mutations(
    cls: Any, handlers: object, chooser: random.Random, taken: list[dict[str, Any]], clock: Clock
) -> None:
    """Mutated snapshots restore (exactly, and run on) or raise SnapshotError."""
    for _ in range(8):
        mutated = copy.deepcopy(chooser.choice(taken))
        done = [mutate(mutated, taken, cls, chooser) for _ in range(chooser.randint(1, 3))]
        try:
            restored = cls.restore(mutated, handlers, options=MachineOptions(clock=clock))
        except SnapshotError:
            continue
        except Exception as error:  # pragma: no cover - what the fuzzer is looking for
            raise AssertionError(f"{done}: {type(error).__name__}: {error}") from error
        note(f"accepted after {done}")
        own = restored.snapshot()
        restores_exactly(cls, own, handlers, clock)
        events = list(cls.spec.event_type)
        for _ in range(3):  # it runs on: nothing but the runtime's own errors
            with contextlib.suppress(StatewrightError):
                restored.dynamic.send(chooser.choice(events))
            with contextlib.suppress(StatewrightError):
                restored.fire_due(clock.now + chooser.choice(STEPS))
            restores_exactly(cls, restored.snapshot(), handlers, clock)


def with_timers(case: ChartCase, chooser: random.Random) -> str:
    """``case``'s spec with ``after`` timers on some of its states (the spec as it is when the
    compiler refuses them, for example where an earlier ``*`` rule makes a timer dead)."""
    states = tomllib.loads(case.toml)["states"]
    timed = [
        name
        for name, body in states.items()
        if body.get("kind") not in ("final", "history") and chooser.random() < 0.4
    ]
    targets = [name for name, body in states.items() if body.get("kind") != "history"]
    lines = case.toml.splitlines()
    for name in timed:
        header = lines.index(f"[states.{name}]")
        delays = chooser.sample(["1s", "5s", "1m", "1h"], chooser.randint(1, 2))
        timers = ", ".join(
            f'{{ delay = "{delay}", to = "{chooser.choice(targets)}" }}' for delay in delays
        )
        lines.insert(header + 1, f"after = [{timers}]")
    return "\n".join(lines) + "\n"


@settings(max_examples=max(1, budget(12)), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(chart_cases(size=12, max_events=12), st.randoms(use_true_random=False))
def test_random_chart_snapshots_restore_exactly_and_mutations_restore_or_raise(
    case: ChartCase, chooser: random.Random
) -> None:
    text = with_timers(case, chooser)
    try:
        module = compile_chart(text)
    except SpecError:
        text = case.toml
        module = compile_chart(text)
    note(f"STATEWRIGHT_FUZZ_SEED={seed()}, spec:\n{text}")
    cls = module.RandomMachine
    handlers = Handlers(case.script())
    with cheap_loops():
        try:
            _, clock, taken = walk(cls, handlers, chooser, 12)
        except StatewrightError:
            return  # the start itself failed (a failing entry action, a loop): nothing to save
        for snapshot in taken:
            restores_exactly(cls, snapshot, handlers, clock)
        check_mutations(cls, handlers, chooser, taken, clock)


def fixed_charts() -> list[Any]:
    types: list[Any] = []
    for name in SEEDS:
        module = importlib.import_module(name)
        types += [
            value
            for key, value in vars(module).items()
            if key.endswith("Machine")
            and not key.endswith("AsyncMachine")
            and isinstance(value, type)
            and vars(value).get("spec") is not None
            and vars(value)["spec"].chart is not None
        ]
    types.append(compile_chart(TIMED, "timed").TimedMachine)
    return types


FIXED: Final = fixed_charts()


@pytest.mark.parametrize("cls", FIXED, ids=[cls.__name__ for cls in FIXED])
@settings(max_examples=max(1, budget(15)), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(chooser=st.randoms(use_true_random=False))
def test_timer_chart_snapshots_restore_exactly_and_mutations_restore_or_raise(
    cls: Any, chooser: random.Random
) -> None:
    note(f"STATEWRIGHT_FUZZ_SEED={seed()}")
    handlers = RandomHandlers(chooser)
    with cheap_loops():
        try:
            _, clock, taken = walk(cls, handlers, chooser, 20)
        except StatewrightError:
            return
        for snapshot in taken:
            restores_exactly(cls, snapshot, handlers, clock)
        check_mutations(cls, handlers, chooser, taken, clock)


def test_the_timed_chart_is_a_statechart_with_every_timer_kind() -> None:
    """What the fixed chart above is for: timers of each policy, sends by id, history."""
    chart = FIXED[-1].spec.chart
    assert chart is not None
    timers = [timer for node in chart.nodes for timer in node.timers]
    assert {timer.on_restore for timer in timers} == {"fire", "resume", "restart"}
    assert any(timer.handler for timer in timers)
    assert "after.l1.slow" in {timer.id for timer in timers}
    assert {node.kind for node in chart.nodes} >= {"parallel", "shallow", "deep", "final"}
    assert Path(__file__).name == "test_chart_snapshot_mutations.py"

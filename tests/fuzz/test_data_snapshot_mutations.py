"""Snapshots of a machine with a data model under mutation: its data, what late binding
initialized, and pending timers' data and made-up ids.

Random walks (events with random payloads, and the clock moved with ``fire_due`` between them)
over :data:`LEDGER`, a chart whose data grows and is read by conditions, sends, ``foreach`` and
done data, in both error modes. Two properties, as for the chart's other parts
(:mod:`tests.fuzz.test_chart_snapshot_mutations`):

* every snapshot a walk takes restores exactly (its restored machine's snapshot is the same);
* a snapshot with its data-model parts mutated (a field's value of another type, nesting or
  size, a field dropped or added, an item changed, a timer's data added, dropped or changed, a
  timer's id made up of the other kind, the initialized states changed, the data of another
  snapshot) either raises :class:`SnapshotError` on restore, or gives a machine whose own
  snapshot restores exactly and which goes on running raising nothing but
  :class:`StatewrightError`.

``STATEWRIGHT_FUZZ_BUDGET`` scales the examples and ``STATEWRIGHT_FUZZ_SEED`` seeds them.
"""

from __future__ import annotations

import contextlib
import copy
import json
import random
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from statewright import (
    Assign,
    Cancel,
    ChartNode,
    ChartTransition,
    Foreach,
    If,
    MachineOptions,
    Raise,
    Send,
    SnapshotError,
    StatewrightError,
)

from tests.fuzz import budget, seed
from tests.runtime.data_charts import Clock, E, S, build, field
from tests.runtime.own_paths import assert_trusted_paths_agree

N, T = ChartNode, ChartTransition
SUPPRESSED: Final = [HealthCheck.too_slow, HealthCheck.data_too_large]
STEPS: Final = [0.0, 0.5, 1.0, 5.0, 60.0]


def _deep(depth: int) -> Any:
    nested: Any = "bottom"
    for _ in range(depth):
        nested = [nested]
    return nested


#: Values a mutation puts where data was: of every JSON type, some out of bounds.
VALUES: Final[list[Any]] = [
    0, -1, 7, 2**64, 2**12_000, 1.5, -0.0, 1e300, True, False, None, "", "x", "PING",
    "x" * 2_000_000, [], [1, 2], [1, "a"], [None], [[1]], {}, {"a": 1}, {"a": "b"}, {"": 0},
    {"k": [1, {"n": None}]}, _deep(10), _deep(40), list(range(200_000)),
]  # fmt: skip


def _items_text(data: Any, *_: Any) -> str:
    return ",".join(str(item) for item in data.items)


def ledger(on_error: str) -> Any:
    """A chart whose data grows and feeds conditions, sends, ``foreach`` and done data."""
    count_up = Assign("count", lambda data, *_: data.count + 1, "count")
    nodes = (
        N("outer", "compound", initial=(1,), done=E.DONE_OUTER),
        N("idle", "atomic", parent=0, member=S.IDLE),
        N("busy", "atomic", parent=0, member=S.BUSY, entry=(count_up,), data_steps=(
            Assign("label", lambda data, *_: f"bound at {data.count}", "label"),
        )),
        N("end", "final", parent=0, member=S.END, donedata=lambda data, *_: {"n": data.count}),
        N("two", "atomic", member=S.TWO),
    )  # fmt: skip
    go = T(1, frozenset({E.GO}), targets=(2,), steps=(
        Assign("items", lambda data, *_: [*data.items[-5:], data.count], "items"),
        Send(E.PING, "", id_location="sendid", data=lambda data, event, *_: {
            "n": data.count, "from": event.data,
        }, delay_expr=lambda data, *_: ["0s", "1s", 5][data.count % 3]),
    ))  # fmt: skip
    ping = T(2, frozenset({E.PING}), targets=(1,), steps=(
        Foreach(field("items"), "item", "index", (
            Assign("table[item]", field("index"), container=field("table"),
                   key=lambda data, *_: str(data.item)),
        )),
        If(((lambda data, *_: data.count % 2 == 1, (Send(E.PONG, "", delay=5.0),)),),
           (Raise(E.BACK),)),
    ))  # fmt: skip
    pong = T(0, frozenset({E.PONG}), steps=(
        Assign("seen", lambda data, event, *_: [*data.seen[-3:], event.sendid], "seen"),
    ))  # fmt: skip
    back = T(1, frozenset({E.BACK}), targets=(3,), cond=lambda data, *_: data.count > 3)
    cancel = T(2, frozenset({E.BACK}), steps=(Cancel("", field("sendid")),))
    done = T(0, frozenset({E.DONE_OUTER}), targets=(4,), steps=(
        Assign("event", lambda data, event, *_: event.data, "event"),
    ))  # fmt: skip
    again = T(4, frozenset({E.GO}), targets=(0,), steps=(
        Send(None, "named", event_expr=lambda data, *_: ["PING", "PONG", "BACK"][data.count % 3],
             delay=1.0),
        Assign("label", _items_text, "label"),
    ))  # fmt: skip
    fail = T(0, frozenset({E.FAIL}), steps=(
        Assign("count", lambda data, *_: data.count // (data.count % 2), "count"),
    ))  # fmt: skip
    errors = T(0, frozenset({E.ERROR}), steps=(
        Assign("seen", lambda data, event, *_: [*data.seen[-3:], event.name], "seen"),
    ))  # fmt: skip
    transitions = (go, ping, pong, back, cancel, done, again, fail, errors)
    return build(nodes, transitions, on_error=on_error, binding="late", name="Ledger")


LEDGERS: Final = {mode: ledger(mode) for mode in ("event", "raise")}


def normalized(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Without what a snapshot writes anew: the order of counts and the time it was taken
    (every timer here keeps its due time: ``fire``)."""
    out = copy.deepcopy(snapshot)
    out["counts"] = sorted(out["counts"], key=json.dumps)
    out["chart"]["saved_at"] = None
    return out


def walk(cls: Any, chooser: random.Random, steps: int) -> tuple[Any, Clock, list[dict[str, Any]]]:
    clock = Clock()
    options = MachineOptions(
        clock=clock, record_history=chooser.random() < 0.5, log_transitions=False
    )
    machine = cls(None, options=options)
    taken = [dict(machine.snapshot())]
    for _ in range(steps):
        with contextlib.suppress(StatewrightError):
            if chooser.random() < 0.6:
                payload = chooser.choice([{}, {"k": chooser.choice(VALUES[:12])}])
                machine.dynamic.send(chooser.choice(list(E)), **payload)
            else:
                clock.now += chooser.choice(STEPS)
                machine.fire_due()
        taken.append(dict(machine.snapshot()))
    return machine, clock, taken


def restores_exactly(cls: Any, snapshot: dict[str, Any], clock: Clock) -> Any:
    options = MachineOptions(clock=clock, log_transitions=False)
    restored = cls.restore(snapshot, options=options)
    assert normalized(restored.snapshot()) == normalized(snapshot)
    assert_trusted_paths_agree(cls, snapshot, restored, None, options)
    return restored


def mutate(snapshot: dict[str, Any], others: list[dict[str, Any]], chooser: random.Random) -> str:
    """Change one data-model part of ``snapshot`` in place; returns what was done."""
    data, chart = snapshot["data"], snapshot["chart"]
    kind = chooser.randrange(7)
    if kind == 0 and data:
        name = chooser.choice(list(data))
        data[name] = copy.deepcopy(chooser.choice(VALUES))
        return f"data.{name} = {data[name]!r:.80}"
    if kind == 1:
        if data and chooser.random() < 0.5:
            name = chooser.choice(list(data))
            del data[name]
            return f"data.{name} dropped"
        data[chooser.choice(["extra", "Count", "_event"])] = 1
        return "a data field added"
    if kind == 2:
        container = data.get(chooser.choice(["items", "table", "seen"]))
        if isinstance(container, list) and container:
            container[chooser.randrange(len(container))] = chooser.choice(VALUES)
        elif isinstance(container, dict):
            container[chooser.choice(["a", "1", "new"])] = chooser.choice(VALUES)
        return "an item changed"
    timers = chart["timers"]
    if kind == 3 and timers:
        timer = chooser.choice(timers)
        if "data" in timer and chooser.random() < 0.4:
            del timer["data"]
            return "a timer's data dropped"
        timer["data"] = copy.deepcopy(chooser.choice(VALUES))
        return f"a timer's data = {timer['data']!r:.80}"
    if kind == 4 and timers:
        timer = chooser.choice(timers)
        prefix = chooser.choice(["send-", "anon-", "sent-", ""])
        timer["id"] = prefix + chooser.choice(["0" * 16, "f" * 15, "named", "A" * 16])
        return f"a timer's id = {timer['id']!r}"
    if kind == 5:
        names = ["outer", "idle", "busy", "end", "two"]
        if chooser.random() < 0.2:
            chart.pop("initialized", None)
            return "initialized dropped"
        chart["initialized"] = chooser.sample(names, chooser.randrange(3))
        return f"initialized = {chart['initialized']!r}"
    snapshot["data"] = copy.deepcopy(chooser.choice(others)["data"])
    return "the data of another snapshot"


@pytest.mark.parametrize("mode", list(LEDGERS))
@settings(max_examples=max(1, budget() // 10), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(chooser=st.randoms(use_true_random=False))
def test_data_model_snapshots_restore_exactly_and_mutations_restore_or_raise(
    mode: str, chooser: random.Random
) -> None:
    note(f"STATEWRIGHT_FUZZ_SEED={seed()}")
    cls = LEDGERS[mode]
    _, clock, taken = walk(cls, chooser, 16)
    for snapshot in taken:
        restores_exactly(cls, snapshot, clock)
    for _ in range(8):
        mutated = copy.deepcopy(chooser.choice(taken))
        done = [mutate(mutated, taken, chooser) for _ in range(chooser.randint(1, 3))]
        try:
            restored = cls.restore(mutated, options=MachineOptions(clock=clock))
        except SnapshotError:
            continue
        except Exception as error:  # pragma: no cover - what the fuzzer is looking for
            raise AssertionError(f"{done}: {type(error).__name__}: {error}") from error
        note(f"accepted after {done}")
        restores_exactly(cls, restored.snapshot(), clock)
        for _ in range(4):  # it runs on: nothing but the runtime's own errors
            with contextlib.suppress(StatewrightError):
                restored.dynamic.send(chooser.choice(list(E)))
            with contextlib.suppress(StatewrightError):
                restored.fire_due(clock.now + chooser.choice(STEPS))
            restores_exactly(cls, restored.snapshot(), clock)


def test_the_walks_reach_what_the_mutations_change() -> None:
    """The walks are not vacuous: they grow the data, leave timers with data and made-up ids
    pending, and initialize states late."""
    chooser = random.Random(seed())
    seen_timer_data = seen_made_up = seen_bound = False
    for _ in range(20):
        _, _, taken = walk(LEDGERS["event"], chooser, 16)
        for snapshot in taken:
            timers = snapshot["chart"]["timers"]
            seen_timer_data |= any("data" in timer for timer in timers)
            seen_made_up |= any(timer["id"].startswith(("send-", "anon-")) for timer in timers)
            seen_bound |= "busy" in snapshot["chart"]["initialized"]
    assert seen_timer_data and seen_made_up and seen_bound

"""Property: a tree of machines restored from its snapshot after every step goes on exactly as
the tree that was never saved. Random steps: events to the parent, events sent straight to a
running child, and the clock moving on with ``fire_due``; the tree is a parent running a worker
and a Middle (which runs a worker of its own with ``autoforward``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from statewright import InvalidTransition, Invoke, Send

from tests.fuzz import examples
from tests.invoke.trees import BossEvent, Clock, T, WorkerEvent, boss, middle, options

MIDDLE = middle()
TREE = boss(
    extra=(T(1, frozenset({BossEvent.NOISE}), steps=(Send("PING", "", target="#_middle"),)),),
    more=(Invoke(lambda: MIDDLE[0], lambda: MIDDLE[1], "middle"),),
    name="Tree",
)
PARENT_EVENTS = [BossEvent.GO, BossEvent.CANCEL, BossEvent.PING, BossEvent.NOISE, BossEvent.FIRST]
CHILD_EVENTS = [WorkerEvent.PING, WorkerEvent.BURST, WorkerEvent.STOP, WorkerEvent.NOISE]
steps = st.one_of(
    st.tuples(st.just("send"), st.sampled_from(PARENT_EVENTS)),
    st.tuples(st.just("child"), st.sampled_from(CHILD_EVENTS)),
    st.tuples(st.just("time"), st.sampled_from([1.0, 3.0, 6.0])),
)


def configuration(machine: Any) -> dict[str, Any]:
    """The tree as it runs: each machine's active states, data and pending timers (due times
    and events; ids and the sessions' random ids left out), its children's by invoke id."""
    data = {}
    for name in type(machine.data).__slots__:
        value = getattr(machine.data, name)
        if name == "log":  # an event's origin names the sender's random session id
            value = [{k: v for k, v in entry.items() if k != "origin"} for entry in value]
        data[name] = value
    chart = machine._chart
    timers = sorted((t.due, str(t.event)) for t in chart.timers.values())
    return {
        "active": sorted(machine.active_states),
        "data": data,
        "timers": timers,
        "children": {key: configuration(child) for key, child in machine.children.items()},
    }


def step(machine: Any, clock: Clock, action: tuple[str, Any]) -> str:
    kind, argument = action
    try:
        if kind == "send":
            return str(machine.send(argument))
        if kind == "child":
            child = machine.children.get("worker")
            return "no child" if child is None else str(child.send(argument))
        clock.now += argument
        return f"fired {machine.fire_due()}"
    except InvalidTransition:
        return "rejected"


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(steps, max_size=25))
def test_restoring_after_every_step_changes_nothing(actions: list[tuple[str, Any]]) -> None:
    clock = Clock()
    sync = TREE[0]
    kept = sync(None, options=options(clock))
    saved = sync(None, options=options(clock))
    assert configuration(saved) == configuration(kept)
    for action in actions:
        saved = sync.restore(saved.snapshot(), options=options(clock))
        assert configuration(saved) == configuration(kept)
        assert step(saved, clock, action) == step_again(kept, clock, action)
        assert configuration(saved) == configuration(kept)


def step_again(machine: Any, clock: Clock, action: tuple[str, Any]) -> str:
    """:func:`step` on the second machine at the same time (the clock moved once already)."""
    if action[0] != "time":
        return step(machine, clock, action)
    try:
        return f"fired {machine.fire_due()}"
    except InvalidTransition:
        return "rejected"

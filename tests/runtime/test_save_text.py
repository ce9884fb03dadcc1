"""A machine's own save as text (``statewright._snapshot_text``): byte for byte the canonical
text of the dicts the machine builds for a snapshot, so that what a store writes, and what its
checksums cover, do not depend on which of the two a save took. Flat machines with a context,
payloads of every kind and idempotency keys, and a tree of machines with data and children."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from agent_task import AgentTaskMachine
from hypothesis import given, settings
from hypothesis import strategies as st
from statewright import Invoke, MachineOptions, MemoryStore
from statewright._history import format_timestamp
from statewright._snapshot import history_json
from statewright._snapshot_text import _timestamp, history_texts, own_text
from statewright._stores.codec import canonical, earliest_due, stored_texts
from statewright._stores.protocol import SnapshotUpdate

from tests.fuzz import examples
from tests.invoke.trees import BossEvent, BossState, boss, middle
from tests.invoke.trees import options as tree_options
from tests.runtime.machines import (
    HAPPY_PATH,
    FakeClock,
    PlainTaskMachine,
    TaskContext,
    TaskEvent,
    TaskHandlers,
    TaskMachine,
)

MIDDLE = middle()
#: A parent with two children, one of which (``middle``) has a child of its own.
DEEP = boss(more=(Invoke(lambda: MIDDLE[0], lambda: MIDDLE[1], "middle"),), name="DeepBoss")


class Colour(enum.Enum):
    RED = "red"


def texts_of_dicts(machine: Any, after: int) -> tuple[str, list[str]]:
    """The head (with revision 7) and records as the dict path encodes them."""
    head = machine._build_snapshot(None)
    head["revision"] = 7
    return canonical(head), [canonical(record) for record in machine._history_json(after)]


def assert_same_text(machine: Any) -> None:
    for after in range(max(0, machine.total_transitions - 4), machine.total_transitions + 1):
        text = own_text(machine, after)
        head, records = texts_of_dicts(machine, after)
        assert f"{text.before}7{text.after}" == head
        assert text.records == records
        assert text.total == machine.total_transitions
        assert text.revision == machine._revision
        assert text.due == earliest_due(machine._build_snapshot(None))


def flat_machines() -> Iterator[Any]:
    options = MachineOptions(clock=FakeClock(), instance_id="t-1", idempotency_window=3)
    machine = TaskMachine(TaskContext(task_id="t-1"), TaskHandlers(), options=options)
    for i, (event, payload) in enumerate(HAPPY_PATH[:6]):
        machine.send(event, idempotency_key=f"key-{i}", **payload)
        yield machine
    plain = PlainTaskMachine(None, options=MachineOptions(instance_id="p-1"))
    for event in (TaskEvent.TASK_CREATED, TaskEvent.PLAN_DONE, TaskEvent.PLAN_APPROVED):
        plain.send(event)
    for payload in (
        {"i": 1, "tool": 's\u00f6k "q"', "ok": True, "none": None, "x": 1.5},
        {"nested": {"a": [1, 2]}, "n": math.nan},
        {"colour": Colour.RED, "inf": math.inf, "big": 10**5000},
        {},
    ):
        plain.send(TaskEvent.HEARTBEAT, **payload)
        yield plain


def test_a_flat_machine_writes_what_its_dicts_encode() -> None:
    for machine in flat_machines():
        assert_same_text(machine)


@pytest.mark.parametrize("limit", [1, 2])
def test_a_tree_writes_what_its_dicts_encode(limit: int) -> None:
    """At every step, the children's records written as their window slides (a child's
    record texts are kept between saves, and only the new ones encoded)."""
    machine = DEEP[0](None, options=tree_options(child_history_limit=limit))
    assert_same_text(machine)
    machine.send(BossEvent.GO)
    assert_same_text(machine)
    assert len(machine._chart.children) == 2  # the tree is tested with its children running
    assert machine._chart.children["middle"][2]._chart.children  # and a grandchild
    worker = machine._chart.children["worker"][2]
    while machine.state is BossState.RUNNING:  # the worker finishes at its third PING
        machine.send(BossEvent.PING)
        assert_same_text(machine)
    assert worker.total_transitions > limit  # its window slid


def test_a_chart_writes_what_its_dicts_encode() -> None:
    """The README's chart at every step: parallel regions, a pending watchdog timer (and none),
    a deep history's memory, the timer fired."""

    class Handlers:
        def succeeded(self, context: object, payload: Any, /) -> bool:
            return bool(payload["ok"])

    clock = FakeClock(step=0.0)  # a snapshot's time is the clock's
    machine: AgentTaskMachine[None] = AgentTaskMachine(
        None, Handlers(), options=MachineOptions(clock=clock)
    )
    assert_same_text(machine)
    steps: list[Callable[[], object]] = [
        machine.planned,
        lambda: machine.tool_result(ok=True),
        machine.planned,
        machine.suspend,
        machine.resume,
        lambda: machine.fire_due(clock.now + 60),
    ]
    for step in steps:
        step()
        assert_same_text(machine)
    assert machine._chart is not None and machine._chart.memory  # the history remembered
    assert machine.state == "failed"  # and the watchdog fired


def test_the_memory_store_splices_what_it_would_encode() -> None:
    for machine in flat_machines():
        after = machine.total_transitions - 1
        retained = len(machine._history)
        as_text = SnapshotUpdate.of_text(own_text(machine, after), retained, after)
        as_dicts = SnapshotUpdate(
            machine._build_snapshot(None), machine._history_json(after), retained, after
        )
        as_dicts._own = True
        assert stored_texts("t-1", as_text, 4) == stored_texts("t-1", as_dicts, 4)


@pytest.mark.parametrize("attribute", ["head", "records"])
def test_a_text_update_still_shows_its_head_and_records(attribute: str) -> None:
    """A store that reads ``update.head`` or ``update.records`` of a machine's own text update
    gets the dicts the text holds."""
    machine = next(iter(flat_machines()))
    after = machine.total_transitions - 1
    update = SnapshotUpdate.of_text(own_text(machine, after), len(machine._history), after)
    head = machine._build_snapshot(None)
    assert update.head == head
    assert update.records == machine._history_json(after)
    assert update.total == machine.total_transitions
    setattr(update, attribute, getattr(update, attribute))  # a dict update from now on
    assert update._text is None
    assert (update.head, update.records) == (head, machine._history_json(after))
    store = MemoryStore()
    assert store.save_update("t-1", update, 0) == 1
    assert store.load("t-1") is not None


def test_records_of_every_shape_are_written_as_their_dicts_encode() -> None:
    """Error routes' errors, timers' lateness, records restored from another spec (or from
    before fingerprints), and values of unusual types, each as ``history_json`` makes them."""
    machine = PlainTaskMachine(None)
    table = machine._spec_table
    payload = {"ok": True}
    epoch = 1_800_000_000.123456
    raw: list[tuple[Any, ...]] = [
        (0, epoch, payload),
        (1, epoch, payload, "boom \u00e9"),
        (2, epoch, payload, None, 0.25),
        (0, epoch, payload, "late and failed", 1.5),
        (1, epoch, payload, None, None, "f" * 64),
        (2, epoch, payload, None, None, None),
        (0, epoch, payload, {"not": "a string"}),
        (2, epoch, payload, None, 3),
        (0, 1_800_000_000, payload),
        (2, -0.0, {}),
    ]
    total = 40
    after = total - len(raw)
    spec_hash = table.spec.spec_hash
    texts = history_texts(machine, table.triples, raw, total, after, spec_hash)
    records = history_json(table.triples, raw, total, after, spec_hash)
    assert texts == [canonical(record) for record in records]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.one_of(
        st.floats(min_value=0.0, max_value=2.0**34),
        # a whole second and a fraction at or next to half a microsecond: the rounding's edge
        st.builds(
            lambda second, half: second + half / 2e6,
            st.integers(min_value=0, max_value=2**34),
            st.integers(min_value=0, max_value=2 * 10**6),
        ),
        st.builds(
            lambda second, tenth: second + tenth / 1e7,
            st.integers(min_value=0, max_value=2**34),
            st.integers(min_value=0, max_value=10**7),
        ),
    )
)
def test_a_records_timestamp_is_what_datetime_writes(epoch: float) -> None:
    """The record writer keeps the text of the second it last wrote and adds the microseconds
    itself: rounded half to even, carried into the next second, as ``datetime`` does."""
    assert _timestamp(epoch) == format_timestamp(epoch)
    assert _timestamp(epoch) == format_timestamp(epoch)  # from the kept second

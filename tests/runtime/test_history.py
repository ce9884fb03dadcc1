"""History records, statistics, listeners, logging and thread safety."""

from __future__ import annotations

import gc
import logging
import threading
import tracemalloc
from collections.abc import Mapping
from typing import Any

import pytest
from statewright import Machine, MachineOptions, TransitionRecord

from tests.runtime.machines import (
    TASK_TABLE,
    FakeClock,
    PlainTaskMachine,
    TaskContext,
    TaskEvent,
    TaskHandlers,
    TaskMachine,
    TaskState,
)

St, Ev = TaskState, TaskEvent


def test_records_have_all_fields(clock: FakeClock) -> None:
    m = PlainTaskMachine(None, options=MachineOptions(clock=clock))
    m.send(Ev.TASK_CREATED, task_id="t-1", n=3)
    m.send(Ev.PLAN_DONE)
    first, second = m.history
    assert isinstance(first, TransitionRecord)
    assert first.as_dict() == {
        "from": "idle",
        "event": "TASK_CREATED",
        "to": "planning",
        "timestamp": "2026-01-01T00:00:00.000000+00:00",
        "event_id": 1,
        "payload": {"task_id": "t-1", "n": 3},
    }
    assert second.timestamp == "2026-01-01T00:00:01.500000+00:00"
    assert second.event_id == 2
    assert m.last_transition == second
    with pytest.raises(AttributeError):
        first.source = St.DONE  # type: ignore[misc]  # records are frozen


def test_payload_json_form() -> None:
    m = PlainTaskMachine(None)
    m.send(Ev.TASK_CREATED, state=St.DONE, items=(1, 2), tags={"b", "a"}, obj=object)
    payload = m.history[0].as_dict()["payload"]
    assert payload["state"] == "done"
    assert payload["items"] == [1, 2]
    assert payload["tags"] == ["a", "b"]
    assert isinstance(payload["obj"], str)


def test_history_limit_keeps_newest_and_event_ids_continue() -> None:
    m = PlainTaskMachine(None, options=MachineOptions(history_limit=3))
    for _ in range(5):
        m.send(Ev.HEARTBEAT)
    assert [r.event_id for r in m.history] == [3, 4, 5]
    assert m.total_transitions == 5


def test_history_can_be_switched_off_but_counters_remain() -> None:
    for options in (MachineOptions(record_history=False), MachineOptions(history_limit=0)):
        m = PlainTaskMachine(None, options=options)
        m.send(Ev.TASK_CREATED)
        assert m.history == () and m.last_transition is None
        assert m.total_transitions == 1
        assert m.transition_counts() == {(St.IDLE, Ev.TASK_CREATED, St.PLANNING): 1}


class QuietHandlers(TaskHandlers):
    """The task machine's handlers, keeping nothing (so that only history grows)."""

    def _log(self, name: str, payload: Mapping[str, Any]) -> None:
        pass


def _bytes_per_record(machine: Machine[Any, Any, Any], events: list[TaskEvent]) -> float:
    """Bytes allocated, per record added to the default history (1,000 records), while
    ``machine`` takes ``events``."""
    for event in events[:2]:  # warm: anything built on first use is built now
        machine.send(event)
    kept = len(machine.history)
    gc.collect()  # also empties the free lists, so that every record is a traced allocation
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for event in events[2:]:
            machine.send(event)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    added = len(machine.history) - kept
    assert added > 900
    return (after - before) / added


def test_a_record_without_a_payload_costs_at_most_96_bytes() -> None:
    """A record with an empty payload is a small tuple, its timestamp and a slot in the deque,
    whether the event was committed inline or took the general path (issue #22: 160 bytes, 64
    of them the record's own empty payload dict); read back, its payload is an empty dict."""
    plain = PlainTaskMachine(None)
    assert _bytes_per_record(plain, [Ev.HEARTBEAT] * 1_000) <= 96
    handled = TaskMachine(TaskContext(), QuietHandlers())
    handled.task_created(task_id="t-1")
    handled.send(Ev.PLAN_DONE, steps=["a"])
    handled.send(Ev.PLAN_APPROVED)
    # PAUSE is committed inline, RESUME (back to the previous state) takes the general path
    assert _bytes_per_record(handled, [Ev.PAUSE, Ev.RESUME] * 500) <= 96
    for machine in (plain, handled):
        last = machine.history[-1]
        assert last.payload == {} and type(last.payload) is dict
        assert last.as_dict()["payload"] == {}
        assert machine.snapshot()["history"][-1]["payload"] == {}


def test_unbounded_history() -> None:
    m = PlainTaskMachine(None, options=MachineOptions(history_limit=None))
    for _ in range(1500):
        m.send(Ev.HEARTBEAT)
    assert len(m.history) == 1500


def test_fsm_record_shape(clock: FakeClock) -> None:
    m = PlainTaskMachine(None, options=MachineOptions(clock=clock))
    assert m.fsm_record() == {
        "state": "idle",
        "last_transition": None,
        "timestamp": None,
        "history": [],
    }
    m.send(Ev.TASK_CREATED)
    m.send(Ev.PLAN_DONE)
    record = m.fsm_record()
    assert record["state"] == "plan_review"
    assert record["last_transition"] == "PLAN_DONE -> plan_review"
    assert record["timestamp"] == "2026-01-01T00:00:01.500000+00:00"
    assert record["history"] == [
        {
            "from": "idle",
            "event": "TASK_CREATED",
            "to": "planning",
            "timestamp": "2026-01-01T00:00:00.000000+00:00",
        },
        {
            "from": "planning",
            "event": "PLAN_DONE",
            "to": "plan_review",
            "timestamp": "2026-01-01T00:00:01.500000+00:00",
        },
    ]


def test_statistics() -> None:
    m = PlainTaskMachine(None)
    for event in [Ev.TASK_CREATED, Ev.HEARTBEAT, Ev.HEARTBEAT, Ev.PLAN_DONE, Ev.PLAN_REJECTED]:
        m.send(event)
    assert m.transition_counts() == {
        (St.IDLE, Ev.TASK_CREATED, St.PLANNING): 1,
        (St.PLANNING, Ev.HEARTBEAT, St.PLANNING): 2,
        (St.PLANNING, Ev.PLAN_DONE, St.PLAN_REVIEW): 1,
        (St.PLAN_REVIEW, Ev.PLAN_REJECTED, St.PLANNING): 1,
    }
    assert m.iteration_counts == {St.IDLE: 1, St.PLANNING: 4, St.PLAN_REVIEW: 1}
    probs = m.transition_probabilities()
    assert probs[St.PLANNING] == {
        (Ev.HEARTBEAT, St.PLANNING): pytest.approx(2 / 3),
        (Ev.PLAN_DONE, St.PLAN_REVIEW): pytest.approx(1 / 3),
    }
    assert probs[St.IDLE] == {(Ev.TASK_CREATED, St.PLANNING): 1.0}
    stats = m.statistics()
    assert stats["total_transitions"] == 5
    assert stats["visits"]["planning"] == 4


def test_listeners_get_records_in_order_and_failures_are_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = PlainTaskMachine(None)
    seen: list[TransitionRecord] = []

    def bad(record: TransitionRecord) -> None:
        raise RuntimeError("listener bug")

    m.add_listener(seen.append)
    m.add_listener(bad)
    with caplog.at_level(logging.ERROR, logger="statewright"):
        m.send(Ev.TASK_CREATED, a=1)
        m.send(Ev.PLAN_DONE)
    assert [(r.event_id, r.target) for r in seen] == [(1, St.PLANNING), (2, St.PLAN_REVIEW)]
    assert seen[0].payload == {"a": 1}
    assert m.state is St.PLAN_REVIEW
    assert any("listener" in r.getMessage() for r in caplog.records)
    m.remove_listener(bad)
    m.send(Ev.PLAN_APPROVED)
    assert len(seen) == 3


def test_listener_without_history_still_gets_records() -> None:
    m = PlainTaskMachine(None, options=MachineOptions(record_history=False))
    seen: list[TransitionRecord] = []
    m.add_listener(seen.append)
    m.send(Ev.TASK_CREATED)
    assert seen[0].event_id == 1 and seen[0].target is St.PLANNING


def test_logging_info_per_transition_and_debug_per_rejection(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = PlainTaskMachine(None, options=MachineOptions(instance_id="job-1"))
    with caplog.at_level(logging.DEBUG, logger="statewright"):
        m.send(Ev.TASK_CREATED)
        m.try_send(Ev.TASK_CREATED)
    infos = [r for r in caplog.records if r.levelno == logging.INFO]
    debugs = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert len(infos) == 1 and "idle --TASK_CREATED--> planning" in infos[0].getMessage()
    assert "job-1" in infos[0].getMessage()
    # A rejection is an answer (try_send returns False), not a warning.
    assert len(debugs) == 1 and "TASK_CREATED" in debugs[0].getMessage()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_logging_level_changes_are_honoured(caplog: pytest.LogCaptureFixture) -> None:
    m = PlainTaskMachine(None)
    logger = logging.getLogger("statewright")
    with caplog.at_level(logging.WARNING, logger="statewright"):
        m.send(Ev.TASK_CREATED)  # INFO disabled: the logger's cache says so
    assert not caplog.records
    with caplog.at_level(logging.INFO, logger="statewright"):
        m.send(Ev.PLAN_DONE)
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert logger.level == logging.NOTSET or logger.level >= 0


def test_log_transitions_off_and_custom_logger(caplog: pytest.LogCaptureFixture) -> None:
    quiet = PlainTaskMachine(None, options=MachineOptions(log_transitions=False))
    own = logging.getLogger("myapp.fsm")
    custom = PlainTaskMachine(None, options=MachineOptions(logger=own))
    with caplog.at_level(logging.INFO):
        quiet.send(Ev.TASK_CREATED)
        custom.send(Ev.TASK_CREATED)
    assert [r.name for r in caplog.records] == ["myapp.fsm"]


def test_threads_never_lose_or_duplicate_transitions() -> None:
    m = PlainTaskMachine(None, options=MachineOptions(history_limit=None))
    for event in (Ev.TASK_CREATED, Ev.PLAN_DONE, Ev.PLAN_APPROVED):
        m.send(event)  # acting: HEARTBEAT loops, PAUSE/RESUME go round
    seen: list[int] = []
    m.add_listener(lambda r: seen.append(r.event_id))
    applied: list[int] = []
    cycle = [Ev.HEARTBEAT, Ev.PAUSE, Ev.RESUME]

    def work() -> None:
        ok = 0
        for i in range(600):
            ok += m.try_send(cycle[i % 3])  # races make some of these invalid: that is fine
        applied.append(ok)

    problems: list[BaseException] = []
    running = True

    def read() -> None:
        # Readers must never see a half-applied transition or a deque mutated mid-iteration.
        while running:
            try:
                snap = m.snapshot()
                assert snap["total_transitions"] == len(snap["history"])
                m.fsm_record()
                m.transition_counts()
            except BaseException as exc:  # collected and re-raised in the main thread
                problems.append(exc)
                return

    threads = [threading.Thread(target=work, daemon=True) for _ in range(4)]
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)  # a starving lock must fail the test, not hang the suite
    starved = [t for t in threads if t.is_alive()]
    running = False
    reader.join(60)
    assert not starved, "senders never got the lock while a reader looped"
    assert problems == []
    history = m.history
    assert m.total_transitions - 3 == sum(applied) == len(seen)
    assert len(history) == m.total_transitions
    assert seen == list(range(4, m.total_transitions + 1))
    state = St.IDLE
    for record in history:
        assert record.source is state
        assert TASK_TABLE[state][record.event] is record.target
        state = record.target
    assert state is m.state

"""The per-machine lock: transitions wait for each other, user code may read, the lock never leaks.

Every test that could hang on a broken lock runs its body in a worker thread and fails, instead of
hanging the suite, when the worker does not finish in time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from statewright import ClockError, MachineOptions, StatewrightError, UnknownEvent

from tests.runtime.machines import (
    TASK_TABLE,
    PlainTaskMachine,
    TaskContext,
    TaskEvent,
    TaskHandlers,
    TaskMachine,
    TaskState,
)

St, Ev = TaskState, TaskEvent
#: Generous: only a deadlock gets anywhere near it.
DEADLINE = 30.0


def finishes(body: Callable[[], object]) -> None:
    """Run ``body`` in a thread; fail if it deadlocks, re-raise what it raised."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            body()
        except BaseException as exc:  # handed to the test thread below
            errors.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert not worker.is_alive(), "deadlock: the machine's lock was never released"
    if errors:
        raise errors[0]


def test_listener_may_read_the_machine_during_a_trivial_transition() -> None:
    m = PlainTaskMachine(None)
    seen: list[tuple[int, int, str]] = []

    def read(record: Any) -> None:
        seen.append((len(m.history), m.total_transitions, m.snapshot()["state"]))

    m.add_listener(read)
    finishes(lambda: (m.send(Ev.TASK_CREATED), m.send(Ev.PLAN_DONE)))
    assert seen == [(1, 1, "planning"), (2, 2, "plan_review")]


def test_actions_and_guards_may_read_the_machine() -> None:
    handlers = TaskHandlers()
    seen: list[tuple[str, int]] = []
    record_plan = handlers.record_plan

    def reading_action(context: TaskContext, payload: Any, /) -> None:
        seen.append((m.state, len(m.snapshot()["history"])))
        record_plan(context, payload)

    handlers.record_plan = reading_action  # type: ignore[method-assign]  # spy on the action
    m = TaskMachine(TaskContext(), handlers)
    finishes(lambda: (m.send(Ev.TASK_CREATED, task_id="t"), m.send(Ev.PLAN_DONE)))
    assert seen == [(St.PLANNING, 1)]
    assert m.state is St.PLAN_REVIEW and m.can_send(Ev.PLAN_APPROVED)


@pytest.mark.parametrize("event", [["TASK_CREATED"], {"a": 1}, 42, None])
def test_non_events_are_refused_and_release_the_lock(event: Any) -> None:
    m = PlainTaskMachine(None)
    with pytest.raises(UnknownEvent):
        m.send(event)
    finishes(lambda: m.send(Ev.TASK_CREATED))
    assert m.state is St.PLANNING


def test_a_failing_clock_changes_nothing_and_releases_the_lock() -> None:
    ticks = iter([1.0])
    m = PlainTaskMachine(None, options=MachineOptions(clock=lambda: next(ticks)))
    m.send(Ev.TASK_CREATED)
    with pytest.raises(ClockError) as info:
        m.send(Ev.PLAN_DONE)
    assert isinstance(info.value.__cause__, StopIteration)
    assert m.state is St.PLANNING and m.total_transitions == len(m.history) == 1
    assert m.previous_state is St.IDLE
    ticks = iter([2.0])
    finishes(lambda: m.send(Ev.PLAN_DONE))
    assert [r.epoch for r in m.history] == [1.0, 2.0]


def test_a_trivial_send_waits_for_a_transition_running_user_code() -> None:
    handlers = TaskHandlers()
    other: list[threading.Thread] = []
    record_plan = handlers.record_plan

    def slow_action(context: TaskContext, payload: Any, /) -> None:
        # While this action holds the machine, a trivial event from another thread must wait.
        waiter = threading.Thread(target=lambda: m.send(Ev.PLAN_APPROVED), daemon=True)
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive(), "a send from another thread did not wait for the lock"
        other.append(waiter)
        record_plan(context, payload)

    handlers.record_plan = slow_action  # type: ignore[method-assign]  # blocks inside the lock
    m = TaskMachine(TaskContext(), handlers)
    m.send(Ev.TASK_CREATED, task_id="t")
    m.send(Ev.PLAN_DONE)
    other[0].join(DEADLINE)
    assert not other[0].is_alive()
    steps = [(r.source, r.event, r.target) for r in m.history]
    assert steps[1:] == [
        (St.PLANNING, Ev.PLAN_DONE, St.PLAN_REVIEW),
        (St.PLAN_REVIEW, Ev.PLAN_APPROVED, TASK_TABLE[St.PLAN_REVIEW][Ev.PLAN_APPROVED]),
    ]


@pytest.mark.parametrize("thread_safe", [True, False])
def test_reentrant_send_from_an_action_is_refused_with_or_without_the_lock(
    thread_safe: bool,
) -> None:
    handlers = TaskHandlers()
    errors: list[BaseException] = []
    m = TaskMachine(TaskContext(), handlers, options=MachineOptions(thread_safe=thread_safe))

    def reenter(context: TaskContext, payload: Any, /) -> None:
        try:
            m.send(Ev.HEARTBEAT)  # a trivial transition, were it allowed
        except StatewrightError as exc:
            errors.append(exc)

    handlers.record_plan = reenter  # type: ignore[method-assign]  # action that re-enters send
    m = TaskMachine(TaskContext(), handlers, options=MachineOptions(thread_safe=thread_safe))
    finishes(lambda: (m.send(Ev.TASK_CREATED, task_id="t"), m.send(Ev.PLAN_DONE)))
    assert len(errors) == 1 and "re-entrantly" in str(errors[0])
    assert m.state is St.PLAN_REVIEW and m.total_transitions == 2

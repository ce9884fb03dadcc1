"""The asyncio flavour: same semantics, awaitable guards/actions, per-instance asyncio.Lock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from statewright import ActionFailed, InvalidTransition, MachineOptions, MemoryStore, Snapshot

from tests.runtime.machines import (
    HAPPY_PATH,
    TASK_TABLE,
    AsyncPlainTaskMachine,
    AsyncTaskMachine,
    TaskContext,
    TaskEvent,
    TaskHandlers,
    TaskMachine,
    TaskState,
)

St, Ev = TaskState, TaskEvent


class AsyncHandlers(TaskHandlers):
    """Same recording handlers, but the guard and two actions are coroutines that yield."""

    async def plan_has_more_steps(self, context: TaskContext, payload: Any, /) -> bool:  # type: ignore[override]  # async variant on purpose
        await asyncio.sleep(0)
        return super().plan_has_more_steps(context, payload)

    async def record_plan(self, context: TaskContext, payload: Any, /) -> None:  # type: ignore[override]  # async variant on purpose
        await asyncio.sleep(0)
        super().record_plan(context, payload)

    async def on_enter_acting(self, context: TaskContext, payload: Any, /) -> None:  # type: ignore[override]  # async variant on purpose
        await asyncio.sleep(0)
        super().on_enter_acting(context, payload)


def test_async_happy_path_matches_sync() -> None:
    async def main() -> AsyncTaskMachine:
        m = AsyncTaskMachine(TaskContext(), AsyncHandlers())
        for event, payload in HAPPY_PATH:
            await m.send(event, **payload)
        return m

    am = asyncio.run(main())
    sm = TaskMachine(TaskContext(), TaskHandlers())
    for event, payload in HAPPY_PATH:
        sm.send(event, **payload)
    assert am.state is sm.state is St.DONE
    assert [(r.source, r.event, r.target) for r in am.history] == [
        (r.source, r.event, r.target) for r in sm.history
    ]
    assert am.context == sm.context
    assert am.transition_counts() == sm.transition_counts()


def test_async_rejections_and_queries() -> None:
    async def main() -> None:
        m = AsyncTaskMachine(TaskContext(), AsyncHandlers())
        with pytest.raises(InvalidTransition):
            await m.send(Ev.PLAN_DONE)
        assert await m.try_send(Ev.PLAN_DONE) is False
        assert await m.can_send(Ev.TASK_CREATED, task_id="x") is True
        assert await m.can_send(Ev.TASK_CREATED) is False
        assert m.allowed_events() == {Ev.TASK_CREATED, Ev.CANCEL, Ev.HEARTBEAT}
        assert await m.try_send("TASK_CREATED", task_id="x") is True  # type: ignore[arg-type]  # untyped callers may pass the value
        assert m.state is St.PLANNING

    asyncio.run(main())


def test_async_action_failure_and_error_route() -> None:
    async def main() -> None:
        handlers = AsyncHandlers(fail_on="record_plan")
        m = AsyncTaskMachine(TaskContext(), handlers)
        await m.send(Ev.TASK_CREATED, task_id="t")
        with pytest.raises(ActionFailed):
            await m.send(Ev.PLAN_DONE)
        assert m.state is St.PLANNING
        handlers.fail_on = ""
        await m.send(Ev.PLAN_DONE, steps=["a"])
        await m.send(Ev.PLAN_APPROVED)
        handlers.fail_on = "on_enter_acting"
        assert await m.send(Ev.HEARTBEAT) is St.FAILED
        assert m.last_transition is not None and m.last_transition.error

    asyncio.run(main())


def test_concurrent_tasks_serialise_transitions() -> None:
    async def main() -> AsyncPlainTaskMachine:
        m = AsyncPlainTaskMachine(None, options=MachineOptions(history_limit=None))
        for event in (Ev.TASK_CREATED, Ev.PLAN_DONE, Ev.PLAN_APPROVED):
            await m.send(event)

        async def worker() -> None:
            for i in range(60):
                await m.try_send([Ev.HEARTBEAT, Ev.PAUSE, Ev.RESUME][i % 3])
                await asyncio.sleep(0)

        await asyncio.gather(*(worker() for _ in range(5)))
        return m

    m = asyncio.run(main())
    state = St.IDLE
    for record in m.history:
        assert record.source is state and TASK_TABLE[state][record.event] is record.target
        state = record.target
    assert state is m.state and len(m.history) == m.total_transitions


def test_async_checkpoint_snapshot_and_listeners() -> None:
    store = MemoryStore()

    async def main() -> None:
        m = AsyncTaskMachine(
            TaskContext(), AsyncHandlers(), options=MachineOptions(store=store, instance_id="a1")
        )
        seen: list[str] = []
        m.add_listener(lambda r: seen.append(str(r.target)))
        await m.send(Ev.TASK_CREATED, task_id="t")
        await m.send(Ev.PLAN_DONE, steps=["x"])  # checkpoint
        assert seen == ["planning", "plan_review"]
        stored = store.load("a1")
        assert stored is not None and stored["state"] == "plan_review"
        assert await m.save() == 2
        loaded = AsyncTaskMachine.load(store, "a1", AsyncHandlers())
        assert loaded.snapshot() == m.snapshot()
        # Same spec, same format both ways; the classes differ, so the snapshot is re-wrapped.
        restored = TaskMachine.restore(Snapshot(m.snapshot()), TaskHandlers())
        assert restored.state is St.PLAN_REVIEW

    asyncio.run(main())


def test_async_guard_errors_and_reentrancy() -> None:
    from statewright import GuardFailed, StatewrightError

    class Exploding(AsyncHandlers):
        async def plan_has_more_steps(self, context: TaskContext, payload: Any, /) -> bool:  # type: ignore[override]  # async variant on purpose
            raise KeyError("guard bug")

    async def main() -> None:
        m = AsyncTaskMachine(TaskContext(), Exploding())
        for event, payload in HAPPY_PATH[:4]:
            await m.send(event, **payload)
        with pytest.raises(GuardFailed):
            await m.send(Ev.TOOL_CALL_COMPLETED, result="r")
        assert m.state is St.WAITING_TOOL

        handlers = AsyncHandlers()
        inner: list[BaseException] = []
        r = AsyncTaskMachine(TaskContext(), handlers)

        async def reenter(context: Any, payload: Any) -> None:
            try:
                await r.send(Ev.HEARTBEAT)
            except StatewrightError as exc:
                inner.append(exc)

        r._calls["record_plan"] = reenter
        await r.send(Ev.TASK_CREATED, task_id="t")
        await r.send(Ev.PLAN_DONE)
        assert len(inner) == 1 and "re-entrantly" in str(inner[0])

    asyncio.run(main())


def test_coroutine_listeners_are_awaited_after_the_lock_and_may_send() -> None:
    async def main() -> AsyncPlainTaskMachine:
        m = AsyncPlainTaskMachine(None)
        seen: list[str] = []

        async def chain(record: Any) -> None:
            seen.append(str(record.target))
            if record.target is St.PLANNING:
                await m.send(Ev.PLAN_DONE)

        m.add_listener(chain)
        await m.send(Ev.TASK_CREATED)
        assert seen == ["planning", "plan_review"]
        return m

    assert asyncio.run(main()).state is St.PLAN_REVIEW


def test_sync_machine_refuses_coroutine_listeners() -> None:
    from tests.runtime.machines import PlainTaskMachine

    m = PlainTaskMachine(None)

    async def listener(record: Any) -> None:
        return None

    m.add_listener(listener)
    with pytest.raises(TypeError, match="AsyncMachine"):
        m.send(Ev.TASK_CREATED)
    assert m.state is St.PLANNING  # applied; only the listener was refused

"""Hand-built specs for the runtime tests and the benchmark (no generator involved).

``TASK_TABLE`` is a seed-000-like agent task machine: 14 states, 22 events. ``plain_spec`` uses it
as is (no guards or actions, the benchmark's shape); ``task_spec`` adds guards, transition, entry
and exit actions, checkpoints, a PREVIOUS target and an error route, like generated code would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from statewright import (
    PREVIOUS,
    Alternative,
    AsyncMachine,
    ErrorRoute,
    Machine,
    MachineOptions,
    MachineSpec,
    StrEnum,
)


class TaskState(StrEnum):
    IDLE = "idle"
    PLANNING = "planning"
    PLAN_REVIEW = "plan_review"
    ACTING = "acting"
    WAITING_TOOL = "waiting_tool"
    OBSERVING = "observing"
    REFLECTING = "reflecting"
    PAUSED = "paused"
    RETRYING = "retrying"
    SUMMARIZING = "summarizing"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"


class TaskEvent(StrEnum):
    TASK_CREATED = "TASK_CREATED"
    PLAN_DONE = "PLAN_DONE"
    PLAN_APPROVED = "PLAN_APPROVED"
    PLAN_REJECTED = "PLAN_REJECTED"
    ACT = "ACT"
    TOOL_CALLED = "TOOL_CALLED"
    TOOL_CALL_COMPLETED = "TOOL_CALL_COMPLETED"
    TOOL_FAILED = "TOOL_FAILED"
    OBSERVED = "OBSERVED"
    REFLECT_DONE = "REFLECT_DONE"
    NEXT_STEP = "NEXT_STEP"
    REPLAN = "REPLAN"
    PAUSE = "PAUSE"
    RESUME = "RESUME"
    RETRY = "RETRY"
    RETRY_EXHAUSTED = "RETRY_EXHAUSTED"
    SUMMARIZE = "SUMMARIZE"
    SUMMARY_DONE = "SUMMARY_DONE"
    CANCEL = "CANCEL"
    TIMEOUT = "TIMEOUT"
    FAIL = "FAIL"
    HEARTBEAT = "HEARTBEAT"


St, Ev = TaskState, TaskEvent

#: ``TASK_TABLE[state][event] = target`` for the plain machine (the benchmark's floor uses it).
TASK_TABLE: dict[TaskState, dict[TaskEvent, TaskState]] = {
    St.IDLE: {Ev.TASK_CREATED: St.PLANNING, Ev.CANCEL: St.CANCELLED, Ev.HEARTBEAT: St.IDLE},
    St.PLANNING: {
        Ev.PLAN_DONE: St.PLAN_REVIEW,
        Ev.FAIL: St.FAILED,
        Ev.CANCEL: St.CANCELLED,
        Ev.TIMEOUT: St.TIMED_OUT,
        Ev.HEARTBEAT: St.PLANNING,
    },
    St.PLAN_REVIEW: {
        Ev.PLAN_APPROVED: St.ACTING,
        Ev.ACT: St.ACTING,
        Ev.PLAN_REJECTED: St.PLANNING,
        Ev.CANCEL: St.CANCELLED,
    },
    St.ACTING: {
        Ev.TOOL_CALLED: St.WAITING_TOOL,
        Ev.SUMMARIZE: St.SUMMARIZING,
        Ev.PAUSE: St.PAUSED,
        Ev.FAIL: St.FAILED,
        Ev.CANCEL: St.CANCELLED,
        Ev.HEARTBEAT: St.ACTING,
    },
    St.WAITING_TOOL: {
        Ev.TOOL_CALL_COMPLETED: St.OBSERVING,
        Ev.TOOL_FAILED: St.RETRYING,
        Ev.TIMEOUT: St.TIMED_OUT,
        Ev.PAUSE: St.PAUSED,
        Ev.CANCEL: St.CANCELLED,
    },
    St.OBSERVING: {Ev.OBSERVED: St.REFLECTING, Ev.CANCEL: St.CANCELLED},
    St.REFLECTING: {
        Ev.REFLECT_DONE: St.ACTING,
        Ev.NEXT_STEP: St.ACTING,
        Ev.REPLAN: St.PLANNING,
        Ev.SUMMARIZE: St.SUMMARIZING,
    },
    St.PAUSED: {Ev.RESUME: St.ACTING, Ev.CANCEL: St.CANCELLED},
    St.RETRYING: {Ev.RETRY: St.ACTING, Ev.RETRY_EXHAUSTED: St.FAILED},
    St.SUMMARIZING: {Ev.SUMMARY_DONE: St.DONE, Ev.FAIL: St.FAILED},
}
FINAL = frozenset({St.DONE, St.FAILED, St.CANCELLED, St.TIMED_OUT})
ACTIVE = frozenset(TaskState) - FINAL - {St.IDLE, St.PAUSED}


def plain_spec(
    name: str = "PlainTask", version: int = 1, spec_hash: str = "0" * 64
) -> MachineSpec[TaskState, TaskEvent]:
    return MachineSpec(
        name=name,
        version=version,
        spec_hash=spec_hash,
        state_type=TaskState,
        event_type=TaskEvent,
        initial=St.IDLE,
        final_states=FINAL,
        transitions={
            s: {e: (Alternative(target=t),) for e, t in row.items()}
            for s, row in TASK_TABLE.items()
        },
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={"active": ACTIVE, "final": FINAL},
    )


class PlainTaskMachine(Machine[TaskState, TaskEvent, Any]):
    spec: ClassVar[MachineSpec[Any, Any]] = plain_spec()


class AsyncPlainTaskMachine(AsyncMachine[TaskState, TaskEvent, Any]):
    spec: ClassVar[MachineSpec[Any, Any]] = plain_spec()


@dataclasses.dataclass
class TaskContext:
    task_id: str = ""
    steps_left: int = 0
    plan: list[str] = dataclasses.field(default_factory=list)
    results: list[str] = dataclasses.field(default_factory=list)


HANDLER_NAMES = frozenset(
    {
        "plan_has_more_steps",
        "record_plan",
        "record_tool_result",
        "on_enter_acting",
        "on_exit_planning",
        "record_failure",
    }
)


def task_spec(version: int = 1, spec_hash: str = "1" * 64) -> MachineSpec[TaskState, TaskEvent]:
    transitions: dict[TaskState, dict[TaskEvent, tuple[Alternative[TaskState], ...]]] = {
        s: {e: (Alternative(target=t),) for e, t in row.items()} for s, row in TASK_TABLE.items()
    }
    transitions[St.PLANNING][Ev.PLAN_DONE] = (
        Alternative(target=St.PLAN_REVIEW, actions=("record_plan",), checkpoint=True),
    )
    transitions[St.WAITING_TOOL][Ev.TOOL_CALL_COMPLETED] = (
        Alternative(
            target=St.OBSERVING,
            guard=lambda h, c, p: h.plan_has_more_steps(c, p),
            actions=("record_tool_result",),
            checkpoint=True,
        ),
        Alternative(target=St.SUMMARIZING, actions=("record_tool_result",)),
    )
    transitions[St.PAUSED][Ev.RESUME] = (Alternative(target=PREVIOUS),)
    transitions[St.IDLE][Ev.TASK_CREATED] = (
        Alternative(target=St.PLANNING, guard=lambda h, c, p: bool(p.get("task_id"))),
    )
    return MachineSpec(
        name="PegasusTask",
        version=version,
        spec_hash=spec_hash,
        state_type=TaskState,
        event_type=TaskEvent,
        initial=St.IDLE,
        final_states=FINAL,
        transitions=transitions,
        entry_actions={St.ACTING: ("on_enter_acting",)},
        exit_actions={St.PLANNING: ("on_exit_planning",)},
        error_routes={St.ACTING: ErrorRoute(target=St.FAILED, actions=("record_failure",))},
        tags={"active": ACTIVE, "final": FINAL},
        handler_names=HANDLER_NAMES,
    )


class TaskHandlers:
    """Records every call; ``fail_on`` names an action that raises RuntimeError."""

    def __init__(self, fail_on: str = "") -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail_on = fail_on

    def _log(self, name: str, payload: Mapping[str, Any]) -> None:
        self.calls.append((name, dict(payload)))
        if name == self.fail_on:
            raise RuntimeError(f"{name} exploded")

    def plan_has_more_steps(self, context: TaskContext, payload: Mapping[str, Any], /) -> bool:
        self.calls.append(("plan_has_more_steps", dict(payload)))
        return context.steps_left > 1

    def record_plan(self, context: TaskContext, payload: Mapping[str, Any], /) -> None:
        self._log("record_plan", payload)
        context.plan = list(payload.get("steps", []))
        context.steps_left = len(context.plan)

    def record_tool_result(self, context: TaskContext, payload: Mapping[str, Any], /) -> None:
        self._log("record_tool_result", payload)
        context.results.append(str(payload.get("result", "")))
        context.steps_left -= 1

    def on_enter_acting(self, context: TaskContext, payload: Mapping[str, Any], /) -> None:
        self._log("on_enter_acting", payload)

    def on_exit_planning(self, context: TaskContext, payload: Mapping[str, Any], /) -> None:
        self._log("on_exit_planning", payload)

    def record_failure(self, context: TaskContext, payload: Mapping[str, Any], /) -> None:
        self._log("record_failure", payload)


class TaskMachine(Machine[TaskState, TaskEvent, TaskContext]):
    spec: ClassVar[MachineSpec[Any, Any]] = task_spec()

    def __init__(
        self,
        context: TaskContext,
        handlers: TaskHandlers | None = None,
        *,
        options: MachineOptions | None = None,
    ) -> None:
        super().__init__(context, handlers, options=options)

    def task_created(self, *, task_id: str) -> TaskState:
        return self.send(TaskEvent.TASK_CREATED, task_id=task_id)


class AsyncTaskMachine(AsyncMachine[TaskState, TaskEvent, TaskContext]):
    spec: ClassVar[MachineSpec[Any, Any]] = task_spec()


class FakeClock:
    """Deterministic clock: starts at 2026-01-01T00:00:00Z and advances 1.5 s per call."""

    def __init__(self, start: float = 1767225600.0, step: float = 1.5) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value


#: A valid path through the task machine with its payloads (ends in DONE).
HAPPY_PATH: list[tuple[TaskEvent, dict[str, Any]]] = [
    (Ev.TASK_CREATED, {"task_id": "t-1"}),
    (Ev.PLAN_DONE, {"steps": ["a", "b"]}),
    (Ev.PLAN_APPROVED, {}),
    (Ev.TOOL_CALLED, {"tool": "search"}),
    (Ev.TOOL_CALL_COMPLETED, {"result": "r1"}),
    (Ev.OBSERVED, {}),
    (Ev.REFLECT_DONE, {}),
    (Ev.TOOL_CALLED, {"tool": "write"}),
    (Ev.TOOL_CALL_COMPLETED, {"result": "r2"}),
    (Ev.SUMMARY_DONE, {}),
]

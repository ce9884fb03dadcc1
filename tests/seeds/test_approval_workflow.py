"""Seed 003 — 8.2 状态机与工作流引擎 (Lobster), played through ``generated/approval_workflow.py``.

Covers: the chapter's approval example (valid input -> side-effect pause -> approval -> applied),
invalid input -> rejected, approval refused -> rejected, the retry loop (attempt counter,
max_retries, increment on the transition, exhaustion -> error handling), the wildcard error
handlers (an action that raises sends the machine to error_state, or to rejected while
validating), timeouts, resubmission after manual intervention, deterministic execution, and
checkpoint / restore mid-run with a SqliteStore.

The chapter's engine is eventless; here each condition evaluation is an event carrying the
result it tests (docs/seeds.md). The chapter's conditions, its ``variables`` (max_retries) and the
retry counter ``attempt`` are the spec's data model (``workflow.data``); the ``Handlers`` below are
the chapter's actions with side effects, and the context is the chapter's ``context``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from approval_workflow import (
    AfterReviewing5mPayload,
    ApplyResultPayload,
    ApprovalWorkflowEvent,
    ApprovalWorkflowMachine,
    ApprovalWorkflowState,
    ApprovePayload,
    RejectPayload,
    ResubmitPayload,
    TimeoutPayload,
    ValidatedPayload,
)
from statewright import (
    ActionFailed,
    InvalidTransition,
    MachineOptions,
    SqliteStore,
    Store,
)

from tests.seeds.support import FakeClock, RecordingStore

St, Ev = ApprovalWorkflowState, ApprovalWorkflowEvent


@dataclass
class WorkflowContext:
    """The chapter's context (max_retries and attempt are the machine's data)."""

    request: str = "change prod config"
    timeout: int = 300
    pending_approvals: list[str] = field(default_factory=list)
    executed: list[str] = field(default_factory=list)
    backoff_delays: list[float] = field(default_factory=list)
    notifications: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    killed: bool = False


class Handlers:
    """Implements ``ApprovalWorkflowHandlers[WorkflowContext]``; ``failing`` actions raise."""

    def __init__(self, *failing: str) -> None:
        self.failing = set(failing)
        self.calls: list[str] = []

    def _run(self, name: str) -> None:
        self.calls.append(name)
        if name in self.failing:
            raise RuntimeError(f"{name} exploded")

    # actions (the chapter's conditions and increment_variable are the spec's cond and assign)
    def request_approval(self, context: WorkflowContext, payload: ValidatedPayload, /) -> None:
        self._run("request_approval")
        context.pending_approvals.append("apply_changes")  # side_effect: true -> pause

    def apply_changes(self, context: WorkflowContext, payload: ApprovePayload, /) -> None:
        self._run("apply_changes")
        context.pending_approvals.remove(payload["action_id"] or "apply_changes")
        context.executed.append("apply_changes(target=production)")

    def retry_with_backoff(self, context: WorkflowContext, payload: ApplyResultPayload, /) -> None:
        self._run("retry_with_backoff")
        # 1 s, 2 s, 4 s, ... per retry (not slept in tests)
        context.backoff_delays.append(float(2 ** len(context.backoff_delays)))
        context.executed.append("apply_changes(target=production)")

    def kill_workflow(
        self, context: WorkflowContext, payload: TimeoutPayload | AfterReviewing5mPayload, /
    ) -> None:
        self._run("kill_workflow")
        context.killed = True

    def log_error(
        self,
        context: WorkflowContext,
        payload: ApprovePayload
        | RejectPayload
        | ApplyResultPayload
        | TimeoutPayload
        | ResubmitPayload
        | AfterReviewing5mPayload,
        /,
    ) -> None:
        self.calls.append("log_error")
        context.errors.append(str(payload.get("error") or "action failed"))

    def notify_requester(
        self,
        context: WorkflowContext,
        payload: ValidatedPayload | RejectPayload | TimeoutPayload,
        /,
    ) -> None:
        self._run("notify_requester")
        errors: Any = payload.get("errors") or payload.get("reason") or "validation error"
        context.notifications.append(f"rejected: {errors}")

    def revive_workflow(self, context: WorkflowContext, payload: ResubmitPayload, /) -> None:
        self._run("revive_workflow")
        context.killed = False


Workflow = ApprovalWorkflowMachine[WorkflowContext]


def new_workflow(
    handlers: Handlers | None = None,
    *,
    store: Store | None = None,
    max_retries: int = 3,
    instance_id: str = "wf-1",
) -> Workflow:
    options = MachineOptions(instance_id=instance_id, store=store, clock=FakeClock())
    # The chapter's variables.max_retries for this run: the instance's initial data.
    return ApprovalWorkflowMachine(
        WorkflowContext(),
        handlers or Handlers(),
        options=options,
        data={"max_retries": max_retries},
    )


def get_status(workflow: Workflow) -> dict[str, object]:
    """The chapter's ``get_status()``."""
    return {
        "current_state": str(workflow.state),
        "is_paused": bool(workflow.context.pending_approvals),
        "pending_approvals": list(workflow.context.pending_approvals),
        "history_length": len(workflow.history),
    }


def trace(workflow: Workflow) -> list[str]:
    return [f"{r.source} --{r.event}--> {r.target}" for r in workflow.history]


# ----------------------------------------------------------------------------- 使用示例


def test_approval_example() -> None:
    workflow = new_workflow()
    # executor.initialize("submitted", context={"valid": True}); executor.run()
    assert workflow.validated(valid=True) is St.REVIEWING
    assert get_status(workflow) == {
        "current_state": "reviewing",
        "is_paused": True,
        "pending_approvals": ["apply_changes"],
        "history_length": 1,
    }
    assert workflow.context.executed == []  # nothing with a side effect ran yet
    # executor.context["approved"] = True; executor.approve_action("apply_changes"); run()
    assert workflow.approve(action_id="apply_changes", approver="ops") is St.APPLYING
    assert workflow.context.executed == ["apply_changes(target=production)"]
    assert workflow.apply_result(success=True, output="ok") is St.APPROVED
    assert get_status(workflow) == {
        "current_state": "approved",
        "is_paused": False,
        "pending_approvals": [],
        "history_length": 3,
    }
    assert workflow.is_final
    assert trace(workflow) == [
        "submitted --VALIDATED--> reviewing",
        "reviewing --APPROVE--> applying",
        "applying --APPLY_RESULT--> approved",
    ]
    with pytest.raises(InvalidTransition, match="the state is final"):
        workflow.approve()


def test_invalid_input_is_rejected() -> None:
    workflow = new_workflow()
    assert workflow.validated(valid=False, errors=["missing field: target"]) is St.REJECTED
    assert workflow.context.notifications == ["rejected: ['missing field: target']"]
    assert workflow.context.pending_approvals == []
    assert workflow.is_final
    assert workflow.history[0].payload == {"valid": False, "errors": ["missing field: target"]}


def test_refused_approval_is_rejected() -> None:
    workflow = new_workflow()
    workflow.validated(valid=True)
    assert workflow.reject(approver="lead", reason="too risky") is St.REJECTED
    assert workflow.context.notifications == ["rejected: too risky"]
    assert workflow.context.executed == []


def test_approval_needs_the_pause_first() -> None:
    workflow = new_workflow()
    assert workflow.try_send(Ev.APPROVE) is False
    assert workflow.allowed_events() == {Ev.VALIDATED, Ev.TIMEOUT}


# ----------------------------------------------------------------------------- retry loop


@pytest.mark.parametrize(
    ("failures", "final", "attempt"),
    [
        (0, St.APPROVED, 0),
        (1, St.APPROVED, 1),
        (3, St.APPROVED, 3),
        (4, St.ERROR_STATE, 3),  # 3 retries used up: the 4th failure goes to error handling
    ],
)
def test_retry_loop(failures: int, final: ApprovalWorkflowState, attempt: int) -> None:
    workflow = new_workflow()
    workflow.validated(valid=True)
    workflow.approve()
    for number in range(failures):
        workflow.apply_result(success=False, error=f"failure {number + 1}")
    if workflow.state is St.APPLYING:
        workflow.apply_result(success=True)
    assert workflow.state is final
    ctx = workflow.context
    assert workflow.data.attempt == attempt
    assert ctx.backoff_delays == [float(2**i) for i in range(attempt)]
    assert len(ctx.executed) == 1 + attempt  # the first run plus one per retry
    retries = (St.APPLYING, Ev.APPLY_RESULT, St.APPLYING)
    assert workflow.transition_counts().get(retries, 0) == attempt
    if final is St.ERROR_STATE:
        assert ctx.errors == ["failure 4"]
        assert trace(workflow)[-1] == "applying --APPLY_RESULT--> error_state"


def test_max_retries_is_a_variable() -> None:
    workflow = new_workflow(max_retries=1)
    workflow.validated(valid=True)
    workflow.approve()
    assert workflow.apply_result(success=False) is St.APPLYING
    assert workflow.apply_result(success=False) is St.ERROR_STATE
    assert workflow.data.attempt == 1


def test_resubmit_after_manual_intervention() -> None:
    workflow = new_workflow(max_retries=0)
    workflow.validated(valid=True)
    workflow.approve()
    assert workflow.apply_result(success=False, error="tool failure") is St.ERROR_STATE
    assert workflow.allowed_events() == {Ev.RESUBMIT}
    assert workflow.resubmit(note="fixed credentials") is St.SUBMITTED
    assert workflow.data.attempt == 0
    workflow.validated(valid=True)
    workflow.approve()
    assert workflow.apply_result(success=True) is St.APPROVED


# ----------------------------------------------------------------------------- error handlers


def test_action_error_falls_back_to_error_state(caplog: pytest.LogCaptureFixture) -> None:
    store = RecordingStore()
    handlers = Handlers("apply_changes")
    workflow = new_workflow(handlers, store=store)
    workflow.validated(valid=True)
    with caplog.at_level(logging.WARNING, logger="statewright"):
        assert workflow.approve() is St.ERROR_STATE  # on_state "*": log_error -> error_state
    assert handlers.calls == ["request_approval", "apply_changes", "log_error"]
    assert workflow.context.errors == ["action failed"]
    last = workflow.history[-1]
    assert (last.source, last.event, last.target) == ("reviewing", "APPROVE", "error_state")
    assert last.error == "apply_changes: RuntimeError: apply_changes exploded"
    assert last.as_dict()["error"] == last.error
    assert "taking error route to error_state" in caplog.text
    # The APPROVE transition is a checkpoint, also when it ends in the error state.
    assert [(state, event) for state, event, _ in store.saves] == [
        ("reviewing", "VALIDATED"),
        ("error_state", "APPROVE"),
    ]


def test_retry_action_error_falls_back_to_error_state() -> None:
    handlers = Handlers("retry_with_backoff")
    workflow = new_workflow(handlers)
    workflow.validated(valid=True)
    workflow.approve()
    assert workflow.apply_result(success=False) is St.ERROR_STATE
    assert handlers.calls[-3:] == ["apply_changes", "retry_with_backoff", "log_error"]
    assert workflow.data.attempt == 0  # the failed retry's increment was undone with it
    assert workflow.transition_counts() == {
        (St.SUBMITTED, Ev.VALIDATED, St.REVIEWING): 1,
        (St.REVIEWING, Ev.APPROVE, St.APPLYING): 1,
        (St.APPLYING, Ev.APPLY_RESULT, St.ERROR_STATE): 1,
    }


def test_validation_error_notifies_and_rejects() -> None:
    """on_state validate, validation_error -> notify_requester -> rejected."""
    handlers = Handlers("request_approval")
    workflow = new_workflow(handlers)
    assert workflow.validated(valid=True) is St.REJECTED
    assert handlers.calls == ["request_approval", "notify_requester"]
    assert workflow.context.notifications == ["rejected: validation error"]
    assert workflow.history[-1].error == "request_approval: RuntimeError: request_approval exploded"


def test_error_in_error_state_stays_there() -> None:
    handlers = Handlers("revive_workflow")
    workflow = new_workflow(handlers, max_retries=0)
    workflow.validated(valid=True)
    workflow.approve()
    workflow.apply_result(success=False)
    assert workflow.resubmit() is St.ERROR_STATE
    assert workflow.history[-1].error is not None


def test_error_in_the_error_route_itself_propagates() -> None:
    handlers = Handlers("request_approval", "notify_requester")
    workflow = new_workflow(handlers)
    with pytest.raises(ActionFailed) as info:
        workflow.validated(valid=True)
    assert info.value.action == "notify_requester"
    assert workflow.state is St.SUBMITTED and workflow.history == ()


# ----------------------------------------------------------------------------- timeout


@pytest.mark.parametrize("state", [St.SUBMITTED, St.REVIEWING, St.APPLYING], ids=str)
def test_timeout_kills_the_workflow(state: ApprovalWorkflowState) -> None:
    store = RecordingStore()
    workflow = new_workflow(store=store)
    if state is not St.SUBMITTED:
        workflow.validated(valid=True)
    if state is St.APPLYING:
        workflow.approve()
    assert workflow.state is state
    assert workflow.timeout(elapsed_seconds=301.0) is St.ERROR_STATE
    assert workflow.context.killed
    assert store.saves[-1][:2] == ("error_state", "TIMEOUT")
    assert workflow.try_send(Ev.TIMEOUT) is False  # error_state has no timeout row


def test_the_approval_wait_has_a_five_minute_deadline() -> None:
    """The approval wait's deadline is a spec timer (`after` on reviewing), fired by the fake
    clock through the normal send path: its kill_workflow action and its checkpoint apply."""
    store = RecordingStore()
    clock = FakeClock(step=0.0)
    options = MachineOptions(instance_id="wf-t", store=store, clock=clock)
    workflow = ApprovalWorkflowMachine(WorkflowContext(), Handlers(), options=options)
    workflow.validated(valid=True)
    (deadline,) = workflow.pending_timers.values()
    assert deadline == clock.now + 300.0
    clock.advance(299.0)
    assert workflow.fire_due() == 0 and workflow.is_in(St.REVIEWING)
    clock.advance(1.0)
    assert workflow.fire_due() == 1
    assert workflow.is_in(St.ERROR_STATE) and workflow.context.killed
    assert store.saves[-1][:2] == ("error_state", "after.reviewing.5m")
    assert workflow.pending_timers == {}


def test_an_approval_in_time_cancels_the_deadline() -> None:
    clock = FakeClock(step=0.0)
    options = MachineOptions(instance_id="wf-u", clock=clock)
    workflow = ApprovalWorkflowMachine(WorkflowContext(), Handlers(), options=options)
    workflow.validated(valid=True)
    clock.advance(120.0)
    workflow.approve()
    assert workflow.pending_timers == {}
    clock.advance(600.0)
    assert workflow.fire_due() == 0 and workflow.state is St.APPLYING


def test_timeout_action_error_in_submitted_uses_the_validation_handler() -> None:
    workflow = new_workflow(Handlers("kill_workflow"))
    assert workflow.timeout() is St.REJECTED


# ----------------------------------------------------------------------------- determinism


def test_same_inputs_same_path() -> None:
    def run() -> dict[str, Any]:
        workflow = new_workflow()
        workflow.validated(valid=True)
        workflow.approve(action_id="apply_changes")
        workflow.apply_result(success=False)
        workflow.apply_result(success=True)
        return workflow.snapshot()

    assert run() == run()


# ----------------------------------------------------------------------------- checkpoints


def test_checkpoint_and_restore_mid_run(tmp_path: Path) -> None:
    database = tmp_path / "workflows.sqlite"
    with SqliteStore(database) as store:
        workflow = new_workflow(store=store, instance_id="wf-42")
        workflow.validated(valid=True)  # checkpoint: paused for approval
        assert workflow.revision == 1
        saved = store.load("wf-42")
        assert saved is not None
        assert saved["state"] == "reviewing" and saved["revision"] == 1
        assert saved["context"]["pending_approvals"] == ["apply_changes"]
        assert saved["data"] == {"attempt": 0, "max_retries": 3}
    del workflow  # the process stops while the approval is pending

    with SqliteStore(database) as store:
        handlers = Handlers()
        resumed: Workflow = ApprovalWorkflowMachine.load(store, "wf-42", handlers)
        assert resumed.state is St.REVIEWING
        assert resumed.context == WorkflowContext(pending_approvals=["apply_changes"])
        assert (resumed.data.attempt, resumed.data.max_retries) == (0, 3)
        assert get_status(resumed)["is_paused"] is True
        assert resumed.approve(approver="ops") is St.APPLYING  # checkpoint
        assert resumed.revision == 2
        assert resumed.apply_result(success=False) is St.APPLYING  # retry: no checkpoint
        assert resumed.revision == 2
        stored = store.load("wf-42")
        assert stored is not None and stored["state"] == "applying"
        assert stored["data"]["attempt"] == 0  # the retry happened after the checkpoint
        assert resumed.apply_result(success=True) is St.APPROVED  # checkpoint
        assert resumed.revision == 3
        assert handlers.calls == ["apply_changes", "retry_with_backoff"]
        assert resumed.data.attempt == 1
        final = store.load("wf-42")
        assert final is not None
        assert final["state"] == "approved" and final["revision"] == 3
        assert [h["event"] for h in final["history"]] == [
            "VALIDATED",
            "APPROVE",
            "APPLY_RESULT",
            "APPLY_RESULT",
        ]
        assert [h["event_id"] for h in final["history"]] == [1, 2, 3, 4]
        assert final["data"]["attempt"] == 1
        assert store.list_ids() == ["wf-42"]

"""The approval workflow (seed 003): pause before a side effect, approve, retry, checkpoint.

The run stops while the approval is pending; a second "process" loads the checkpoint from
SQLite, approves, survives one failed attempt (retry with backoff) and ends in `approved`. The
retry counter and max_retries are the spec's data model (`machine.data`); the handlers below are
the actions with side effects.
Run (after `make setup`): .venv/bin/python examples/approval_demo.py
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from approval_workflow import (
    AfterReviewing5mPayload,
    ApplyResultPayload,
    ApprovalWorkflowMachine,
    ApprovePayload,
    RejectPayload,
    ResubmitPayload,
    TimeoutPayload,
    ValidatedPayload,
)
from statewright import MachineOptions, SqliteStore


@dataclass
class Request:
    change: str = "raise the rate limit"
    pending: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)


class Engine:
    """The actions (implements ApprovalWorkflowHandlers[Request])."""

    def request_approval(self, r: Request, p: ValidatedPayload, /) -> None:
        r.pending.append("apply_changes")

    def apply_changes(self, r: Request, p: ApprovePayload, /) -> None:
        r.pending.clear()
        r.log.append(f"applying {r.change!r} (approved by {p['approver']})")

    def retry_with_backoff(self, r: Request, p: ApplyResultPayload, /) -> None:
        r.log.append(f"retry after {p['error']}, with backoff")

    def kill_workflow(self, r: Request, p: TimeoutPayload | AfterReviewing5mPayload, /) -> None:
        r.log.append("killed by timeout")  # TIMEOUT, or the approval deadline's timer

    def log_error(
        self,
        r: Request,
        p: ApprovePayload
        | RejectPayload
        | ApplyResultPayload
        | TimeoutPayload
        | ResubmitPayload
        | AfterReviewing5mPayload,
        /,
    ) -> None:
        r.log.append(f"error: {p}")

    def notify_requester(
        self, r: Request, p: ValidatedPayload | RejectPayload | TimeoutPayload, /
    ) -> None:
        r.log.append("requester notified")

    def revive_workflow(self, r: Request, p: ResubmitPayload, /) -> None:
        r.log.append("resubmitted")


def main(database: Path) -> None:
    with SqliteStore(database) as store:
        options = MachineOptions(instance_id="req-7", store=store)
        first = ApprovalWorkflowMachine(Request(), Engine(), options=options)
        print("validated ->", first.validated(valid=True), "| pending:", first.context.pending)
        print("checkpoint revision:", first.revision)

    with SqliteStore(database) as store:  # later, another process
        wf: ApprovalWorkflowMachine[Request] = ApprovalWorkflowMachine.load(
            store, "req-7", Engine()
        )
        print("loaded in state:", wf.state)
        print("approve ->", wf.approve(approver="ops-lead"))
        print("failed result ->", wf.apply_result(success=False, error="HTTP 503"))
        print("good result ->", wf.apply_result(success=True))
        print(f"attempts: {wf.data.attempt} of max_retries {wf.data.max_retries}")
        for line in wf.context.log:
            print("  log:", line)
        print("stored revision:", (store.load("req-7") or {})["revision"])


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        main(Path(folder) / "workflows.sqlite")

"""Seed 000 — Notebook-BCC 状态机协议规范 v2.0, played through ``generated/notebook_bcc_v2.py``.

Covers: the normal workflow with its NEXT_ACTION / NEXT_BEHAVIOR / NEXT_STEP / NEXT_STAGE loops,
the four 典型场景示例, every row of 错误和取消转移 (and the states that table leaves out),
恢复转移, invalid transitions (False + a log line), ``is_running`` and the ``context.FSM`` record.

The spec names no guards or actions, so the seed's Client is a small class around the machine
(``Client`` below): ``transition(event) -> bool`` and ``is_running()`` as in 实现指南, and the
location bookkeeping (``behavior_iteration``) as a transition listener.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from notebook_bcc_v2 import (
    TAG_RUNNING,
    TRANSITIONS,
    NotebookBccV2Event,
    NotebookBccV2Machine,
    NotebookBccV2State,
    allowed_events,
    transition_targets,
)
from statewright import (
    InvalidTransition,
    JsonFileStore,
    MachineOptions,
    TransitionRecord,
    UnknownEvent,
)

from tests.seeds.support import SEED_000_EPOCH, FakeClock, iso, shortest_path

St, Ev = NotebookBccV2State, NotebookBccV2Event

#: The seed's ``is_running()``: ``self._state not in ["idle", "error", "cancelled",
#: "workflow_completed"]``.
NOT_RUNNING = {"idle", "error", "cancelled", "workflow_completed"}
#: The seed's client logs what it could not do (``logger.warning("Invalid transition ...")``).
CLIENT_LOG = logging.getLogger("notebook_client")


@dataclass
class Location:
    """``observation.location.current`` as the seed's StateMachine keeps it."""

    stage_id: str | None = None
    step_id: str | None = None
    behavior_id: str | None = None
    behavior_iteration: int = 0
    entered: list[str] = field(default_factory=list)


class Client:
    """The seed's Client-side ``StateMachine`` (实现指南) on top of the generated machine."""

    def __init__(self, clock: FakeClock | None = None, instance_id: str = "nb-1") -> None:
        options = MachineOptions(clock=clock or FakeClock(), instance_id=instance_id)
        self.machine = NotebookBccV2Machine(Location(), options=options)
        self.machine.add_listener(self._track)

    @staticmethod
    def attach(machine: NotebookBccV2Machine[Location]) -> Client:
        client = Client.__new__(Client)
        client.machine = machine
        machine.add_listener(client._track)
        return client

    def _track(self, record: TransitionRecord) -> None:
        # 场景 2: "[behavior_running] behavior_iteration += 1"; a new step starts from 0.
        location = self.machine.context
        location.entered.append(record.target)
        if record.target == St.STEP_RUNNING:
            location.behavior_iteration = 0
        elif record.target == St.BEHAVIOR_RUNNING:
            location.behavior_iteration += 1

    def get_state(self) -> str:
        return str(self.machine.state)

    def is_running(self) -> bool:
        return self.machine.in_tag("running")

    def transition(self, event: str) -> bool:
        """The seed's ``transition(event)``: an event name from the protocol; an invalid one
        returns False and is logged at WARNING (the client's own log: to the runtime a
        rejection is an answer, logged at DEBUG)."""
        try:
            self.machine.send_external(event)
        except InvalidTransition as rejection:  # an unknown name (UnknownEvent) is one too
            CLIENT_LOG.warning("%s: invalid transition: %s", self.machine.instance_id, rejection)
            return False
        return True

    def walk(self, *events: str) -> None:
        for event in events:
            assert self.transition(event), f"{event} rejected in {self.get_state()}"


def trace(machine: NotebookBccV2Machine[Location]) -> list[str]:
    return [f"{r.source} --{r.event}--> {r.target}" for r in machine.history]


def client_in(state: NotebookBccV2State) -> Client:
    """A client driven from idle to ``state`` along the shortest path of the table."""
    client = Client()
    client.walk(*shortest_path(TRANSITIONS, St.IDLE, state))
    assert client.machine.state == state
    return client


# ----------------------------------------------------------------------------- 正常工作流

#: A workflow template: stages -> steps -> behaviours -> actions.
TEMPLATE: list[list[list[list[str]]]] = [
    [  # stage 1
        [["load csv", "print shape"], ["describe"]],  # step 1: two behaviours
        [],  # step 2: Planning says targetAchieved right away
    ],
    [  # stage 2
        [[]],  # step 1: one behaviour without actions
    ],
]


def run_template(client: Client, template: list[list[list[list[str]]]]) -> None:
    """The Client's navigation as 实现指南 describes it (Planning first, then Generating)."""
    client.walk("START_WORKFLOW")
    for stage_index, stage in enumerate(template):
        if stage_index:
            client.walk("NEXT_STAGE")
        for step_index, behaviours in enumerate(stage):
            client.walk("START_STEP" if step_index == 0 else "NEXT_STEP")
            if not behaviours:  # check_step_goal -> targetAchieved: true
                client.walk("COMPLETE_STEP")
                continue
            for behaviour_index, actions in enumerate(behaviours):
                client.walk("START_BEHAVIOR" if behaviour_index == 0 else "NEXT_BEHAVIOR")
                if actions:
                    client.walk("START_ACTION")
                    for action_index, _ in enumerate(actions):
                        client.walk("COMPLETE_ACTION")
                        if action_index < len(actions) - 1:
                            client.walk("NEXT_ACTION")
                client.walk("COMPLETE_BEHAVIOR")
            client.walk("COMPLETE_STEP")
        client.walk("COMPLETE_STAGE")
    client.walk("COMPLETE_WORKFLOW")


def test_normal_workflow_with_every_loop() -> None:
    client = Client()
    assert client.get_state() == "idle" and not client.is_running()
    run_template(client, TEMPLATE)
    assert client.get_state() == "workflow_completed"
    assert not client.is_running()
    assert trace(client.machine) == [
        "idle --START_WORKFLOW--> stage_running",
        "stage_running --START_STEP--> step_running",
        "step_running --START_BEHAVIOR--> behavior_running",
        "behavior_running --START_ACTION--> action_running",
        "action_running --COMPLETE_ACTION--> action_completed",
        "action_completed --NEXT_ACTION--> action_running",
        "action_running --COMPLETE_ACTION--> action_completed",
        "action_completed --COMPLETE_BEHAVIOR--> behavior_completed",
        "behavior_completed --NEXT_BEHAVIOR--> behavior_running",
        "behavior_running --START_ACTION--> action_running",
        "action_running --COMPLETE_ACTION--> action_completed",
        "action_completed --COMPLETE_BEHAVIOR--> behavior_completed",
        "behavior_completed --COMPLETE_STEP--> step_completed",
        "step_completed --NEXT_STEP--> step_running",
        "step_running --COMPLETE_STEP--> step_completed",
        "step_completed --COMPLETE_STAGE--> stage_completed",
        "stage_completed --NEXT_STAGE--> stage_running",
        "stage_running --START_STEP--> step_running",
        "step_running --START_BEHAVIOR--> behavior_running",
        "behavior_running --COMPLETE_BEHAVIOR--> behavior_completed",
        "behavior_completed --COMPLETE_STEP--> step_completed",
        "step_completed --COMPLETE_STAGE--> stage_completed",
        "stage_completed --COMPLETE_WORKFLOW--> workflow_completed",
    ]
    assert [r.event_id for r in client.machine.history] == list(range(1, 24))
    visits = client.machine.iteration_counts
    assert visits[St.ACTION_RUNNING] == 3 and visits[St.BEHAVIOR_RUNNING] == 3
    assert visits[St.STAGE_RUNNING] == 2 and visits[St.WORKFLOW_COMPLETED] == 1
    # workflow_completed is not final: RESET goes back to idle and a new run can start.
    assert not client.machine.is_final
    client.walk("RESET")
    assert client.get_state() == "idle"
    client.walk("START_WORKFLOW")
    assert client.get_state() == "stage_running"
    assert client.machine.total_transitions == 25


def test_stage_may_complete_directly_from_stage_running() -> None:
    client = Client()
    client.walk("START_WORKFLOW", "COMPLETE_STAGE", "COMPLETE_WORKFLOW")
    assert client.get_state() == "workflow_completed"


# ----------------------------------------------------------------------------- 典型场景示例


def test_scenario_1_normal_step_execution(caplog: pytest.LogCaptureFixture) -> None:
    client = client_in(St.STEP_RUNNING)
    # 1. Planning: targetAchieved false -> START_BEHAVIOR
    assert client.transition("START_BEHAVIOR") and client.get_state() == "behavior_running"
    # 2. Generating returns actions -> START_ACTION
    assert client.transition("START_ACTION") and client.get_state() == "action_running"
    # 3. first action done
    assert client.transition("COMPLETE_ACTION") and client.get_state() == "action_completed"
    # 4. more actions queued -> NEXT_ACTION, repeat 3
    assert client.transition("NEXT_ACTION") and client.get_state() == "action_running"
    assert client.transition("COMPLETE_ACTION") and client.get_state() == "action_completed"
    # 5. all actions done; the scenario fires COMPLETE_STEP here, but the transition table has
    #    no action_completed --COMPLETE_STEP--> row (docs/seeds.md, contradiction 4): rejected.
    with caplog.at_level(logging.WARNING, logger=CLIENT_LOG.name):
        assert client.transition("COMPLETE_STEP") is False
    assert client.get_state() == "action_completed"
    assert "COMPLETE_STEP" in caplog.text and "action_completed" in caplog.text
    #    The table's walk: COMPLETE_BEHAVIOR, then Planning's targetAchieved -> COMPLETE_STEP.
    assert client.transition("COMPLETE_BEHAVIOR") and client.get_state() == "behavior_completed"
    assert client.transition("COMPLETE_STEP") and client.get_state() == "step_completed"
    # 6. steps remain -> NEXT_STEP
    assert client.transition("NEXT_STEP") and client.get_state() == "step_running"
    assert client.is_running()


def test_scenario_2_behavior_iteration() -> None:
    client = client_in(St.STEP_RUNNING)
    client.walk("START_BEHAVIOR", "START_ACTION", "COMPLETE_ACTION", "COMPLETE_BEHAVIOR")
    assert client.machine.context.behavior_iteration == 1
    # 1. feedback: transition.continue_behaviors true -> NEXT_BEHAVIOR
    assert client.transition("NEXT_BEHAVIOR") and client.get_state() == "behavior_running"
    # 2. behavior_iteration += 1, then Generating -> Actions -> execution again
    assert client.machine.context.behavior_iteration == 2
    client.walk("START_ACTION", "COMPLETE_ACTION", "COMPLETE_BEHAVIOR", "NEXT_BEHAVIOR")
    assert client.machine.context.behavior_iteration == 3
    assert (
        client.machine.transition_counts()[
            (St.BEHAVIOR_COMPLETED, Ev.NEXT_BEHAVIOR, St.BEHAVIOR_RUNNING)
        ]
        == 2
    )
    # A new step starts counting afresh.
    client.walk("COMPLETE_BEHAVIOR", "COMPLETE_STEP", "NEXT_STEP", "START_BEHAVIOR")
    assert client.machine.context.behavior_iteration == 1


@pytest.mark.parametrize(
    "answer", ["UPDATE_WORKFLOW_CONFIRMED", "UPDATE_WORKFLOW_REJECTED"], ids=["confirm", "reject"]
)
def test_scenario_3_dynamic_workflow_update(answer: str) -> None:
    client = client_in(St.ACTION_RUNNING)
    # 1. Planning suggested context_update.workflow_update -> UPDATE_WORKFLOW
    assert client.transition("UPDATE_WORKFLOW")
    assert client.get_state() == "workflow_update_pending"
    assert client.machine.in_tag("update_pending") and client.is_running()
    # 2. The client pauses: nothing but the user's answer (or CANCEL) moves on. The table's
    #    COMPLETE_ACTION placeholder keeps it pending.
    assert client.transition("COMPLETE_ACTION")
    assert client.get_state() == "workflow_update_pending"
    assert client.transition("NEXT_ACTION") is False
    assert client.machine.allowed_events() == {
        Ev.UPDATE_WORKFLOW_CONFIRMED,
        Ev.UPDATE_WORKFLOW_REJECTED,
        Ev.COMPLETE_ACTION,
        Ev.CANCEL,
    }
    assert client.transition(answer) and client.get_state() == "action_completed"
    # 3. normal flow continues
    client.walk("COMPLETE_BEHAVIOR", "COMPLETE_STEP")
    assert trace(client.machine)[-5:] == [
        "action_running --UPDATE_WORKFLOW--> workflow_update_pending",
        "workflow_update_pending --COMPLETE_ACTION--> workflow_update_pending",
        f"workflow_update_pending --{answer}--> action_completed",
        "action_completed --COMPLETE_BEHAVIOR--> behavior_completed",
        "behavior_completed --COMPLETE_STEP--> step_completed",
    ]


@pytest.mark.parametrize(
    ("answer", "target"),
    [
        ("UPDATE_STEP_CONFIRMED", "action_completed"),
        ("UPDATE_STEP_REJECTED", "error"),  # asymmetric, as the table and diagram say
        ("CANCEL", "cancelled"),
    ],
)
def test_step_update(answer: str, target: str) -> None:
    client = client_in(St.ACTION_RUNNING)
    client.walk("UPDATE_STEP")
    assert client.get_state() == "step_update_pending"
    # No placeholder row for the step update: COMPLETE_ACTION is rejected here.
    assert client.transition("COMPLETE_ACTION") is False
    assert client.transition(answer) and client.get_state() == target


def test_workflow_update_cancel() -> None:
    client = client_in(St.WORKFLOW_UPDATE_PENDING)
    assert client.transition("CANCEL") and client.get_state() == "cancelled"


@pytest.mark.parametrize(
    ("option", "target"),
    [
        ("RESET", "idle"),
        ("START_WORKFLOW", "stage_running"),
        ("START_BEHAVIOR", "behavior_running"),
    ],
)
def test_scenario_4_error_recovery(option: str, target: str) -> None:
    client = client_in(St.ACTION_RUNNING)
    # 1. the action fails -> FAIL
    assert client.transition("FAIL") and client.get_state() == "error"
    assert not client.is_running()
    assert client.machine.allowed_events() == {Ev.RESET, Ev.START_WORKFLOW, Ev.START_BEHAVIOR}
    # 2. one of the three options
    assert client.transition(option) and client.get_state() == target
    assert client.is_running() is (target != "idle")
    last = client.machine.last_transition
    assert last is not None and (last.source, last.event, last.target) == ("error", option, target)


def test_cancelled_only_resets() -> None:
    client = client_in(St.STEP_RUNNING)
    client.walk("CANCEL")
    assert client.machine.allowed_events() == {Ev.RESET}
    for event in ("START_WORKFLOW", "START_BEHAVIOR", "FAIL", "CANCEL"):
        assert client.transition(event) is False
    assert client.transition("RESET") and client.get_state() == "idle"


# ----------------------------------------------------------------------------- 错误和取消转移

#: 错误和取消转移, row by row: (当前状态, 事件, 下一状态, 说明).
ERROR_AND_CANCEL_ROWS = [
    ("stage_running", "FAIL", "error", "Stage 执行失败"),
    ("stage_running", "CANCEL", "cancelled", "用户取消 Stage"),
    ("step_running", "FAIL", "error", "Step 执行失败"),
    ("step_running", "CANCEL", "cancelled", "用户取消 Step"),
    ("behavior_running", "FAIL", "error", "Behavior 执行失败"),
    ("behavior_running", "CANCEL", "cancelled", "用户取消 Behavior"),
    ("action_running", "FAIL", "error", "Action 执行失败"),
    ("action_running", "CANCEL", "cancelled", "用户取消 Action"),
    ("action_completed", "FAIL", "error", "验证失败"),
    ("action_completed", "CANCEL", "cancelled", "用户取消"),
    ("behavior_completed", "FAIL", "error", "Behavior 完成后验证失败"),
    ("behavior_completed", "CANCEL", "cancelled", "用户取消"),
    ("step_completed", "FAIL", "error", "Step 完成后验证失败"),
    ("step_completed", "CANCEL", "cancelled", "用户取消"),
    ("stage_completed", "CANCEL", "cancelled", "用户取消"),
    ("workflow_update_pending", "CANCEL", "cancelled", "用户取消更新"),
    ("step_update_pending", "CANCEL", "cancelled", "用户取消更新"),
]


@pytest.mark.parametrize(
    ("source", "event", "target", "note"),
    ERROR_AND_CANCEL_ROWS,
    ids=[f"{s}-{e}" for s, e, _, _ in ERROR_AND_CANCEL_ROWS],
)
def test_error_and_cancel_row(source: str, event: str, target: str, note: str) -> None:
    client = client_in(St(source))
    before = client.machine.total_transitions
    assert client.transition(event), note
    assert client.get_state() == target
    assert not client.is_running()
    record = client.machine.last_transition
    assert record is not None
    assert record.as_dict()["from"] == source and record.as_dict()["to"] == target
    assert record.event == event and record.event_id == before + 1
    # Both special states are left only through the recovery rows.
    assert client.transition("RESET") and client.get_state() == "idle"


#: States the table gives no FAIL / CANCEL row (the diagram's "任意状态" is not followed).
NO_FAIL = sorted({s.value for s in St} - {s for s, e, _, _ in ERROR_AND_CANCEL_ROWS if e == "FAIL"})
NO_CANCEL = sorted(
    {s.value for s in St} - {s for s, e, _, _ in ERROR_AND_CANCEL_ROWS if e == "CANCEL"}
)


def test_table_rows_match_generated_module() -> None:
    for source, event, target, _ in ERROR_AND_CANCEL_ROWS:
        assert transition_targets(St(source), Ev(event)) == (St(target),)
    assert (
        sorted(
            [
                "idle",
                "stage_completed",
                "workflow_completed",
                "error",
                "cancelled",
                "workflow_update_pending",
                "step_update_pending",
            ]
        )
        == NO_FAIL
    )
    assert sorted(["idle", "workflow_completed", "error", "cancelled"]) == NO_CANCEL


@pytest.mark.parametrize(
    ("source", "event"),
    [(s, "FAIL") for s in NO_FAIL] + [(s, "CANCEL") for s in NO_CANCEL],
)
def test_fail_and_cancel_rejected_where_the_table_has_no_row(
    source: str, event: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = client_in(St(source))
    history = client.machine.history
    with caplog.at_level(logging.WARNING, logger=CLIENT_LOG.name):
        assert client.transition(event) is False
    assert client.get_state() == source
    assert client.machine.history == history
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert f"event {event} is not allowed in state {source}" in caplog.records[0].getMessage()


# ----------------------------------------------------------------------------- invalid transitions


def test_invalid_transition_returns_false_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    client = Client(instance_id="nb-invalid")
    caplog.set_level(logging.INFO, logger=CLIENT_LOG.name)
    with caplog.at_level(logging.INFO, logger="statewright"):
        assert client.transition("START_STEP") is False  # idle only accepts START_WORKFLOW
        assert client.transition("START_WORKFLOW") is True
    assert client.get_state() == "stage_running"
    warning, info = caplog.records
    assert warning.levelname == "WARNING"
    assert warning.getMessage() == (
        "nb-invalid: invalid transition: event START_STEP is not allowed in state idle "
        "(allowed events: START_WORKFLOW)"
    )
    assert info.levelname == "INFO"
    assert info.getMessage() == "NotebookBccV2 nb-invalid: idle --START_WORKFLOW--> stage_running"
    assert [r.event for r in client.machine.history] == ["START_WORKFLOW"]


def test_send_raises_typed_error_and_unknown_events() -> None:
    client = client_in(St.ACTION_COMPLETED)
    with pytest.raises(InvalidTransition) as info:
        client.machine.complete_step()
    assert info.value.state == "action_completed" and info.value.event == "COMPLETE_STEP"
    assert info.value.allowed == {"NEXT_ACTION", "COMPLETE_BEHAVIOR", "FAIL", "CANCEL"}
    with pytest.raises(UnknownEvent):
        client.machine.send_external("CONFIRM")  # the 特殊状态 table's shorthand is no event
    assert client.transition("REJECT") is False
    assert client.get_state() == "action_completed"


@pytest.mark.parametrize("state", list(St), ids=[s.value for s in St])
def test_allowed_events_follow_the_tables(state: NotebookBccV2State) -> None:
    client = client_in(state)
    assert client.machine.allowed_events() == allowed_events(state)
    for event in Ev:
        accepted = bool(transition_targets(state, event))
        assert client.machine.dynamic.can_send(event) is accepted


# ----------------------------------------------------------------------------- is_running


@pytest.mark.parametrize("state", list(St), ids=[s.value for s in St])
def test_is_running_matches_the_seed(state: NotebookBccV2State) -> None:
    client = client_in(state)
    assert client.is_running() is (state.value not in NOT_RUNNING)


def test_running_tag_is_the_seed_definition() -> None:
    assert {s.value for s in TAG_RUNNING} == {s.value for s in St} - NOT_RUNNING
    assert len(TAG_RUNNING) == 10


# ----------------------------------------------------------------------------- context.FSM


def test_fsm_record_matches_the_seed_example() -> None:
    client = Client(clock=FakeClock(start=SEED_000_EPOCH - 2, step=1.0))
    assert client.machine.fsm_record() == {
        "state": "idle",
        "last_transition": None,
        "timestamp": None,
        "history": [],
    }
    client.walk("START_WORKFLOW", "START_STEP", "START_BEHAVIOR")
    record = client.machine.fsm_record()
    assert record == {
        "state": "behavior_running",
        "last_transition": "START_BEHAVIOR -> behavior_running",
        "timestamp": "2025-10-30T10:23:45.000000+00:00",
        "history": [
            {
                "from": "idle",
                "event": "START_WORKFLOW",
                "to": "stage_running",
                "timestamp": iso(SEED_000_EPOCH - 2),
            },
            {
                "from": "stage_running",
                "event": "START_STEP",
                "to": "step_running",
                "timestamp": iso(SEED_000_EPOCH - 1),
            },
            {
                "from": "step_running",
                "event": "START_BEHAVIOR",
                "to": "behavior_running",
                "timestamp": iso(SEED_000_EPOCH),
            },
        ],
    }
    json.dumps({"FSM": record})  # fits into observation.context as is
    # get_transition_history(observation) reads it back.
    observation = {"context": {"FSM": record}}
    assert [h["event"] for h in observation["context"]["FSM"]["history"]] == [
        "START_WORKFLOW",
        "START_STEP",
        "START_BEHAVIOR",
    ]


def test_rejections_leave_the_fsm_record_alone() -> None:
    client = client_in(St.BEHAVIOR_RUNNING)
    before = client.machine.fsm_record()
    assert client.transition("COMPLETE_WORKFLOW") is False
    assert client.machine.fsm_record() == before


# ----------------------------------------------------------------------------- persistence


def test_pending_update_survives_a_restart(tmp_path: Path) -> None:
    """The client pauses for the user's confirmation; the process may stop meanwhile."""
    store = JsonFileStore(tmp_path)
    client = client_in(St.ACTION_RUNNING)
    client.walk("UPDATE_WORKFLOW")
    assert client.machine.save(store) == 1
    saved = json.loads((tmp_path / "nb-1.json").read_text(encoding="utf-8"))
    assert saved["state"] == "workflow_update_pending"
    assert saved["previous"] == "action_running"
    assert saved["revision"] == 1
    assert [h["event"] for h in saved["history"]] == [
        "START_WORKFLOW",
        "START_STEP",
        "START_BEHAVIOR",
        "START_ACTION",
        "UPDATE_WORKFLOW",
    ]
    assert saved["context"]["behavior_iteration"] == 1

    restored = Client.attach(NotebookBccV2Machine.load(store, "nb-1"))
    assert restored.get_state() == "workflow_update_pending"
    assert restored.machine.context == client.machine.context
    assert restored.machine.fsm_record() == client.machine.fsm_record()
    restored.walk("UPDATE_WORKFLOW_CONFIRMED", "COMPLETE_BEHAVIOR")
    assert [r.event_id for r in restored.machine.history][-2:] == [6, 7]
    assert restored.machine.save() == 2
    stored = store.load("nb-1")
    assert stored is not None and stored["state"] == "behavior_completed"

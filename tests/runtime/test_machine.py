"""Core transition semantics of the synchronous Machine."""

from __future__ import annotations

import logging
import pickle
from typing import Any, ClassVar

import pytest
from statewright import (
    PREVIOUS,
    ActionFailed,
    Alternative,
    ErrorRoute,
    GuardFailed,
    InvalidTransition,
    Machine,
    MachineSpec,
    StatewrightError,
    UnknownEvent,
)

from tests.runtime.machines import (
    HAPPY_PATH,
    PlainTaskMachine,
    TaskContext,
    TaskEvent,
    TaskHandlers,
    TaskMachine,
    TaskState,
    plain_spec,
    task_spec,
)

St, Ev = TaskState, TaskEvent


def drive(machine: Machine[Any, Any, Any], steps: list[tuple[TaskEvent, dict[str, Any]]]) -> None:
    for event, payload in steps:
        machine.send(event, **payload)


def test_send_applies_transition_and_returns_new_state() -> None:
    m = PlainTaskMachine(None)
    assert m.state is St.IDLE
    assert m.send(Ev.TASK_CREATED) is St.PLANNING
    assert (m.state, m.previous_state) == (St.PLANNING, St.IDLE)


def test_generated_style_wrapper_method(task: TaskMachine) -> None:
    assert task.task_created(task_id="t-9") is St.PLANNING


def test_invalid_transition_names_state_event_and_allowed() -> None:
    m = PlainTaskMachine(None)
    with pytest.raises(InvalidTransition) as info:
        m.send(Ev.PLAN_DONE)
    err = info.value
    assert isinstance(err, StatewrightError)
    assert err.state == "idle"
    assert err.event == "PLAN_DONE"
    assert err.allowed == {"TASK_CREATED", "CANCEL", "HEARTBEAT"}
    assert "idle" in str(err) and "PLAN_DONE" in str(err) and "TASK_CREATED" in str(err)
    assert m.state is St.IDLE
    assert m.history == ()
    assert m.total_transitions == 0


class _Steps:
    """An engine that counts the steps asked of it, otherwise the machine's own."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.steps = 0

    def step(self, *arguments: Any) -> Any:
        self.steps += 1
        return self.engine.step(*arguments)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def test_a_rejected_event_is_answered_without_a_step(caplog: pytest.LogCaptureFixture) -> None:
    """An event the state has no transition for raises the same error, logged the same way,
    without the engine's step (issue #22: a rejection cost 5.2x an accepted send); an event a
    guard rejects still takes one, as does anything while the machine is busy."""
    m = PlainTaskMachine(None)
    engine = m._engine = _Steps(m._engine)  # a counting proxy
    with (
        caplog.at_level(logging.DEBUG, logger="statewright"),
        pytest.raises(InvalidTransition) as info,
    ):
        m.send(Ev.PLAN_DONE)
    assert engine.steps == 0
    assert type(info.value) is InvalidTransition
    assert info.value.args == ("idle", "PLAN_DONE", "")
    assert (info.value.state, info.value.event, info.value.reason) == ("idle", "PLAN_DONE", "")
    assert info.value.allowed == {"TASK_CREATED", "CANCEL", "HEARTBEAT"}
    assert str(info.value) == (
        "event PLAN_DONE is not allowed in state idle "
        "(allowed events: CANCEL, HEARTBEAT, TASK_CREATED)"
    )
    assert [r.getMessage().split(": ", 1)[1] for r in caplog.records] == [f"rejected: {info.value}"]
    m.send(Ev.TASK_CREATED)
    m.send(Ev.PLAN_DONE)
    m.send(Ev.CANCEL)
    with pytest.raises(InvalidTransition, match="the state is final"):
        m.send(Ev.CANCEL)  # a final state's rejection keeps its reason
    assert engine.steps == 0
    guarded = TaskMachine(TaskContext(), TaskHandlers())
    counting = guarded._engine = _Steps(guarded._engine)
    with pytest.raises(InvalidTransition, match="no guard passed"):
        guarded.send(Ev.TASK_CREATED, task_id="")
    assert counting.steps == 1


def test_invalid_transitions_pickle_with_their_facts() -> None:
    m = PlainTaskMachine(None)
    for event in (Ev.PLAN_DONE, "NOPE"):
        with pytest.raises(InvalidTransition) as info:
            m.send(event)  # type: ignore[arg-type]  # "NOPE": an untyped caller's typo
        loaded = pickle.loads(pickle.dumps(info.value))
        assert type(loaded) is type(info.value)
        assert loaded.args == info.value.args
        assert (loaded.state, loaded.event, loaded.allowed, loaded.reason) == (
            info.value.state,
            info.value.event,
            info.value.allowed,
            info.value.reason,
        )
        assert str(loaded) == str(info.value)


def test_try_send_returns_false_and_logs_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    m = PlainTaskMachine(None)
    with caplog.at_level(logging.DEBUG, logger="statewright"):
        assert m.try_send(Ev.PLAN_DONE) is False
    assert any("rejected" in r.getMessage() and r.levelno == logging.DEBUG for r in caplog.records)
    assert m.try_send(Ev.TASK_CREATED) is True
    assert m.state is St.PLANNING


def test_can_send_and_allowed_events_do_not_mutate(
    task: TaskMachine, handlers: TaskHandlers
) -> None:
    assert task.allowed_events() == {Ev.TASK_CREATED, Ev.CANCEL, Ev.HEARTBEAT}
    assert task.can_send(Ev.TASK_CREATED, task_id="x") is True
    assert task.can_send(Ev.TASK_CREATED) is False  # guard needs a task id
    assert task.can_send(Ev.PLAN_DONE) is False
    assert task.state is St.IDLE
    assert task.total_transitions == 0 and task.history == ()
    assert handlers.calls == []


def test_final_states_accept_nothing() -> None:
    m = PlainTaskMachine(None)
    m.send(Ev.CANCEL)
    assert m.is_final
    assert m.allowed_events() == frozenset()
    with pytest.raises(InvalidTransition, match="final"):
        m.send(Ev.HEARTBEAT)
    assert not m.can_send(Ev.HEARTBEAT)


def test_string_events_are_accepted_and_canonicalised() -> None:
    m = PlainTaskMachine(None)
    # Type checkers accept members only; at run time an untyped caller may pass the value.
    assert m.send("TASK_CREATED") is St.PLANNING  # type: ignore[arg-type]  # see above
    assert m.last_transition is not None
    assert m.last_transition.event is Ev.TASK_CREATED
    assert m.can_send("PLAN_DONE")  # type: ignore[arg-type]  # see above


def test_unknown_string_event_raises_clearly() -> None:
    m = PlainTaskMachine(None)
    with pytest.raises(UnknownEvent, match="NOPE") as info:
        m.send("NOPE")  # type: ignore[arg-type]  # an untyped caller's typo
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, InvalidTransition)
    assert not m.try_send("NOPE")  # type: ignore[arg-type]  # an untyped caller's typo
    with pytest.raises(UnknownEvent):
        m.send(St.PLANNING)  # type: ignore[arg-type]  # a member of the wrong enum
    with pytest.raises(UnknownEvent):
        m.send(42)  # type: ignore[arg-type]  # deliberately wrong type


def test_guards_tried_in_order_first_passing_wins(task: TaskMachine) -> None:
    drive(task, HAPPY_PATH[:4])  # in waiting_tool with 2 steps planned
    assert task.send(Ev.TOOL_CALL_COMPLETED, result="r1") is St.OBSERVING
    drive(task, [(Ev.OBSERVED, {}), (Ev.REFLECT_DONE, {}), (Ev.TOOL_CALLED, {})])
    # one step left: the guard fails, the unguarded second alternative is taken
    assert task.send(Ev.TOOL_CALL_COMPLETED, result="r2") is St.SUMMARIZING


def test_all_guards_failing_rejects_and_keeps_state(task: TaskMachine) -> None:
    with pytest.raises(InvalidTransition, match="no guard passed"):
        task.send(Ev.TASK_CREATED, task_id="")
    assert task.state is St.IDLE
    assert task.history == ()


def test_guard_sees_payload_and_unapplied_state() -> None:
    seen: list[tuple[Any, Any]] = []
    holder: dict[str, Machine[Any, Any, Any]] = {}

    def guard(h: Any, c: Any, p: Any) -> bool:
        seen.append((holder["m"].state, dict(p)))
        return True

    spec = plain_spec()
    transitions = {s: dict(row) for s, row in spec.transitions.items()}
    transitions[St.IDLE][Ev.TASK_CREATED] = (Alternative(target=St.PLANNING, guard=guard),)

    class M(Machine[TaskState, TaskEvent, Any]):
        spec: ClassVar[MachineSpec[Any, Any]] = MachineSpec(
            **{**_fields(plain_spec()), "transitions": transitions}
        )

    m = M(None)
    holder["m"] = m
    m.send(Ev.TASK_CREATED, task_id="abc")
    assert seen == [(St.IDLE, {"task_id": "abc"})]


def _fields(spec: MachineSpec[Any, Any]) -> dict[str, Any]:
    return {f: getattr(spec, f) for f in spec.__match_args__}


def test_guard_raising_is_wrapped_and_nothing_applied() -> None:
    def guard(h: Any, c: Any, p: Any) -> bool:
        raise KeyError("boom")

    transitions = {s: dict(row) for s, row in plain_spec().transitions.items()}
    transitions[St.IDLE][Ev.TASK_CREATED] = (Alternative(target=St.PLANNING, guard=guard),)

    class M(Machine[TaskState, TaskEvent, Any]):
        spec: ClassVar[MachineSpec[Any, Any]] = MachineSpec(
            **{**_fields(plain_spec()), "transitions": transitions}
        )

    m = M(None)
    with pytest.raises(GuardFailed) as info:
        m.send(Ev.TASK_CREATED)
    assert isinstance(info.value.__cause__, KeyError)
    assert m.state is St.IDLE and m.total_transitions == 0


def test_order_of_effects(task: TaskMachine, handlers: TaskHandlers) -> None:
    order: list[str] = []
    task.add_listener(lambda record: order.append(f"listener:{record.target}"))
    original = handlers._log

    def log(name: str, payload: Any) -> None:
        order.append(name)
        original(name, payload)

    handlers._log = log  # type: ignore[method-assign]  # test spy on the recording helper
    task.send(Ev.TASK_CREATED, task_id="t")
    task.send(Ev.PLAN_DONE, steps=["a"])
    task.send(Ev.PLAN_APPROVED)
    assert order == [
        "listener:planning",
        "on_exit_planning",  # exit of source
        "record_plan",  # transition action
        "listener:plan_review",
        "on_enter_acting",  # entry of target
        "listener:acting",
    ]


def test_actions_get_the_payload(task: TaskMachine, handlers: TaskHandlers) -> None:
    drive(task, HAPPY_PATH[:2])
    assert ("record_plan", {"steps": ["a", "b"]}) in handlers.calls
    assert ("on_exit_planning", {"steps": ["a", "b"]}) in handlers.calls
    assert task.context.plan == ["a", "b"]


def _self_loop_spec() -> MachineSpec[TaskState, TaskEvent]:
    base = task_spec()
    transitions = {s: dict(row) for s, row in base.transitions.items()}
    transitions[St.ACTING][Ev.HEARTBEAT] = (Alternative(target=St.ACTING),)
    return MachineSpec(
        **{
            **_fields(base),
            "transitions": transitions,
            "exit_actions": {**base.exit_actions, St.ACTING: ("on_exit_planning",)},
        }
    )


def test_self_transition_runs_exit_and_entry_and_keeps_previous(handlers: TaskHandlers) -> None:
    class M(Machine[TaskState, TaskEvent, TaskContext]):
        spec: ClassVar[MachineSpec[Any, Any]] = _self_loop_spec()

    m = M(TaskContext(), handlers)
    drive(m, HAPPY_PATH[:3])
    assert m.previous_state is St.PLAN_REVIEW
    handlers.calls.clear()
    assert m.send(Ev.HEARTBEAT) is St.ACTING
    assert [c[0] for c in handlers.calls] == ["on_exit_planning", "on_enter_acting"]
    assert m.previous_state is St.PLAN_REVIEW  # self-transitions keep the memory
    assert m.iteration_counts[St.ACTING] == 2


def test_action_failure_without_route_stays_and_wraps() -> None:
    handlers = TaskHandlers(fail_on="record_plan")
    m = TaskMachine(TaskContext(), handlers)
    m.send(Ev.TASK_CREATED, task_id="t")
    before = m.snapshot()
    with pytest.raises(ActionFailed) as info:
        m.send(Ev.PLAN_DONE, steps=["a"])
    err = info.value
    assert isinstance(err.__cause__, RuntimeError)
    assert err.action == "record_plan" and err.state == "planning" and err.event == "PLAN_DONE"
    assert m.state is St.PLANNING
    assert m.snapshot()["history"] == before["history"]
    assert m.total_transitions == 1
    # the machine is still usable afterwards
    handlers.fail_on = ""
    assert m.send(Ev.PLAN_DONE, steps=["a"]) is St.PLAN_REVIEW


def test_action_failure_in_state_without_route_keeps_source() -> None:
    failing = TaskHandlers(fail_on="on_enter_acting")
    m = TaskMachine(TaskContext(), failing)
    with pytest.raises(ActionFailed):
        drive(m, HAPPY_PATH[:3])  # entering acting fails; plan_review has no error route
    assert m.state is St.PLAN_REVIEW


def test_action_failure_with_error_route() -> None:
    boom = TaskHandlers()
    m = TaskMachine(TaskContext(), boom)
    drive(m, HAPPY_PATH[:3])
    assert m.spec.error_routes[St.ACTING] == ErrorRoute(St.FAILED, ("record_failure",))
    boom.fail_on = "on_enter_acting"  # HEARTBEAT acting->acting re-enters acting and fails
    assert m.send(Ev.HEARTBEAT, beat=1) is St.FAILED
    assert boom.calls[-1] == ("record_failure", {"beat": 1})
    last = m.last_transition
    assert last is not None
    assert (last.source, last.event, last.target) == (St.ACTING, Ev.HEARTBEAT, St.FAILED)
    assert last.error is not None and "on_enter_acting" in last.error and "exploded" in last.error
    assert last.as_dict()["error"] == last.error
    assert m.transition_counts()[(St.ACTING, Ev.HEARTBEAT, St.FAILED)] == 1
    assert m.previous_state is St.ACTING


def test_failing_error_route_action_stays_and_wraps() -> None:
    boom = TaskHandlers()
    m = TaskMachine(TaskContext(), boom)
    drive(m, HAPPY_PATH[:3])

    def explode(context: Any, payload: Any) -> None:
        raise ValueError("first")

    boom.on_enter_acting = explode  # type: ignore[method-assign]  # make the entry action fail
    boom.fail_on = "record_failure"  # and the route's action too
    m = TaskMachine(TaskContext(), boom)
    m._calls["on_enter_acting"] = explode
    m._state, m._prev = St.ACTING, St.PLAN_REVIEW  # as if it had got there without history
    m._fast = TaskMachine._table().fast_rows[St.ACTING]
    with pytest.raises(ActionFailed) as info:
        m.send(Ev.HEARTBEAT)
    assert info.value.action == "record_failure"
    assert isinstance(info.value.__cause__, ValueError)
    assert m.state is St.ACTING
    assert m.history == ()


def test_previous_target_restores_state_before_current() -> None:
    m = TaskMachine(TaskContext(), TaskHandlers())
    drive(m, HAPPY_PATH[:4])  # waiting_tool
    m.send(Ev.PAUSE)
    assert m.previous_state is St.WAITING_TOOL
    assert m.send(Ev.RESUME) is St.WAITING_TOOL
    assert (m.state, m.previous_state) == (St.WAITING_TOOL, St.PAUSED)


def test_previous_without_memory_is_rejected() -> None:
    transitions = {s: dict(row) for s, row in plain_spec().transitions.items()}
    transitions[St.IDLE][Ev.RESUME] = (Alternative(target=PREVIOUS),)

    class M(Machine[TaskState, TaskEvent, Any]):
        spec: ClassVar[MachineSpec[Any, Any]] = MachineSpec(
            **{**_fields(plain_spec()), "transitions": transitions}
        )

    m = M(None)
    assert Ev.RESUME in m.allowed_events()
    assert not m.can_send(Ev.RESUME)
    with pytest.raises(InvalidTransition, match="no previous state"):
        m.send(Ev.RESUME)
    assert m.state is St.IDLE


def test_missing_handlers_are_listed() -> None:
    with pytest.raises(TypeError, match="needs a handlers object"):
        TaskMachine(TaskContext(), None)

    class Partial:
        def record_plan(self, c: Any, p: Any) -> None: ...

    with pytest.raises(TypeError) as info:
        TaskMachine(TaskContext(), Partial())  # type: ignore[arg-type]  # deliberately incomplete
    text = str(info.value)
    for name in ("plan_has_more_steps", "record_tool_result", "on_enter_acting"):
        assert name in text
    assert "record_plan" not in text.split(":")[-1]


def test_machine_without_spec_is_a_clear_error() -> None:
    class NoSpec(Machine[TaskState, TaskEvent, Any]):
        pass

    with pytest.raises(TypeError, match="has no 'spec'"):
        NoSpec(None)


def test_reentrant_send_from_action_is_refused() -> None:
    handlers = TaskHandlers()
    m = TaskMachine(TaskContext(), handlers)
    errors: list[BaseException] = []

    def reenter(context: Any, payload: Any) -> None:
        try:
            m.send(Ev.HEARTBEAT)
        except StatewrightError as exc:
            errors.append(exc)

    handlers.record_plan = reenter  # type: ignore[method-assign]  # action that re-enters send
    m = TaskMachine(TaskContext(), handlers)
    m.send(Ev.TASK_CREATED, task_id="t")
    m.send(Ev.PLAN_DONE)
    assert len(errors) == 1 and "re-entrantly" in str(errors[0])
    assert m.state is St.PLAN_REVIEW


def test_listener_may_send_after_commit() -> None:
    m = PlainTaskMachine(None)

    def chain(record: Any) -> None:
        if record.target is St.PLANNING:
            m.send(Ev.PLAN_DONE)

    m.add_listener(chain)
    m.send(Ev.TASK_CREATED)
    assert m.state is St.PLAN_REVIEW


def test_tags() -> None:
    m = PlainTaskMachine(None)
    assert not m.in_tag("active")
    m.send(Ev.TASK_CREATED)
    assert m.in_tag("active")
    with pytest.raises(KeyError):
        m.in_tag("nope")


def test_full_happy_path(task: TaskMachine) -> None:
    drive(task, HAPPY_PATH)
    assert task.state is St.DONE and task.is_final
    assert task.context.results == ["r1", "r2"]


def test_reentrant_send_from_guard_is_refused() -> None:
    errors: list[BaseException] = []
    holder: dict[str, Machine[Any, Any, Any]] = {}

    def guard(h: Any, c: Any, p: Any) -> bool:
        try:
            holder["m"].send(Ev.CANCEL)
        except StatewrightError as exc:
            errors.append(exc)
        return True

    transitions = {s: dict(row) for s, row in plain_spec().transitions.items()}
    transitions[St.IDLE][Ev.TASK_CREATED] = (Alternative(target=St.PLANNING, guard=guard),)

    class M(Machine[TaskState, TaskEvent, Any]):
        spec: ClassVar[MachineSpec[Any, Any]] = MachineSpec(
            **{**_fields(plain_spec()), "transitions": transitions}
        )

    m = M(None)
    holder["m"] = m
    assert m.send(Ev.TASK_CREATED) is St.PLANNING
    assert len(errors) == 1 and "re-entrantly" in str(errors[0])
    assert m.total_transitions == 1


def test_rejections_are_logged_at_debug_not_warning(caplog: pytest.LogCaptureFixture) -> None:
    m = PlainTaskMachine(None)
    with caplog.at_level(logging.INFO, logger="statewright"):
        assert m.try_send("NOPE") is False  # type: ignore[arg-type]  # an untyped caller's typo
        assert m.try_send(Ev.PLAN_DONE) is False
    assert caplog.records == []  # a rejection is an answer, not a warning
    with caplog.at_level(logging.DEBUG, logger="statewright"):
        assert m.try_send("NOPE") is False  # type: ignore[arg-type]  # as above
        assert m.try_send(Ev.PLAN_DONE) is False
    assert [r.levelname for r in caplog.records] == ["DEBUG", "DEBUG"]
    assert "NOPE" in caplog.records[0].getMessage()
    assert "event PLAN_DONE is not allowed in state idle" in caplog.records[1].getMessage()


def test_payload_may_use_any_key_even_event() -> None:
    m = PlainTaskMachine(None)
    assert m.send(Ev.TASK_CREATED, event="x", self=1) is St.PLANNING
    assert m.history[0].payload == {"event": "x", "self": 1}

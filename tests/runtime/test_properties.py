"""Property tests: random event streams against an independent reading of the spec tables."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from statewright import (
    PREVIOUS,
    Alternative,
    InvalidTransition,
    Machine,
    MachineOptions,
    MachineSpec,
    MemoryStore,
)

from tests.fuzz import examples
from tests.runtime.machines import FINAL, TASK_TABLE, TaskEvent, TaskState, plain_spec

St, Ev = TaskState, TaskEvent


def _guarded_spec() -> MachineSpec[TaskState, TaskEvent]:
    """The plain table plus a payload guard with a fallback, and a PREVIOUS target."""
    base = plain_spec(name="Guarded")
    transitions = {s: dict(row) for s, row in base.transitions.items()}
    transitions[St.WAITING_TOOL][Ev.TOOL_CALL_COMPLETED] = (
        Alternative(target=St.OBSERVING, guard=lambda h, c, p: bool(p.get("ok"))),
        Alternative(target=St.RETRYING, guard=lambda h, c, p: p.get("retry", False)),
    )
    transitions[St.PAUSED][Ev.RESUME] = (Alternative(target=PREVIOUS),)
    transitions[St.IDLE][Ev.RESUME] = (Alternative(target=PREVIOUS),)  # no memory yet at start
    fields = {f: getattr(base, f) for f in base.__match_args__}
    return MachineSpec(**{**fields, "transitions": transitions})


class Guarded(Machine[TaskState, TaskEvent, Any]):
    spec: ClassVar[MachineSpec[Any, Any]] = _guarded_spec()


def oracle(
    state: TaskState, prev: TaskState | None, event: TaskEvent, payload: dict[str, Any]
) -> tuple[TaskState, TaskState | None] | None:
    """The table's answer, computed without the runtime: (state, prev) or None if rejected."""
    if state in FINAL:
        return None
    if state is St.WAITING_TOOL and event is Ev.TOOL_CALL_COMPLETED:
        target: TaskState
        if payload.get("ok"):
            target = St.OBSERVING
        elif payload.get("retry", False):
            target = St.RETRYING
        else:
            return None
    elif event is Ev.RESUME and state in (St.PAUSED, St.IDLE):
        if prev is None:
            return None
        target = prev
    elif event in TASK_TABLE.get(state, {}):
        target = TASK_TABLE[state][event]
    else:
        return None
    return target, (state if target is not state else prev)


events = st.sampled_from(list(TaskEvent))
payloads = st.fixed_dictionaries({}, optional={"ok": st.booleans(), "retry": st.booleans()})


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(events, payloads), max_size=60))
def test_state_always_matches_the_table(steps: list[tuple[TaskEvent, dict[str, Any]]]) -> None:
    m = Guarded(None)
    state, prev = St.IDLE, None
    applied = 0
    for event, payload in steps:
        expected = oracle(state, prev, event, payload)
        assert m.can_send(event, **payload) is (expected is not None)
        if expected is None:
            try:
                m.send(event, **payload)
            except InvalidTransition:
                pass
            else:
                raise AssertionError(f"{event} should be rejected in {state}")
        else:
            assert m.send(event, **payload) is expected[0]
            state, prev = expected
            applied += 1
        assert m.state is state and m.previous_state is prev
    assert m.total_transitions == applied == len(m.history)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(events, payloads), max_size=40), st.integers(0, 40))
def test_snapshot_restore_at_any_point_is_identical(
    steps: list[tuple[TaskEvent, dict[str, Any]]], cut: int
) -> None:
    options = MachineOptions(instance_id="p", clock=lambda: 1767225600.25)
    original = Guarded(None, options=options)
    copy: Guarded | None = None
    for i, (event, payload) in enumerate(steps):
        if i == cut:
            text = json.dumps(original.snapshot())
            copy = Guarded.restore(text, options=options)
            assert copy.snapshot() == original.snapshot()
        for machine in (original, copy) if copy is not None else (original,):
            machine.try_send(event, **payload)
    if copy is not None:
        assert copy.state is original.state
        assert copy.previous_state is original.previous_state
        assert copy.transition_counts() == original.transition_counts()
        assert [r.as_dict() for r in copy.history] == [r.as_dict() for r in original.history]


class StoredMachine(RuleBasedStateMachine):
    """Interleave sends, saves, reloads and snapshots; the stored copy never diverges."""

    def __init__(self) -> None:
        super().__init__()
        self.store = MemoryStore()
        self.options = MachineOptions(store=self.store, instance_id="s")
        self.machine = Guarded(None, options=self.options)
        self.machine.save()
        self.state: TaskState = St.IDLE
        self.prev: TaskState | None = None

    @rule(event=events, payload=payloads)
    def send(self, event: TaskEvent, payload: dict[str, Any]) -> None:
        expected = oracle(self.state, self.prev, event, payload)
        assert self.machine.try_send(event, **payload) is (expected is not None)
        if expected is not None:
            self.state, self.prev = expected

    @rule()
    def save(self) -> None:
        revision = self.machine.revision
        assert self.machine.save() == revision + 1

    @rule()
    def reload(self) -> None:
        self.machine.save()
        reloaded = Guarded.load(self.store, "s")
        assert reloaded.snapshot() == self.machine.snapshot()
        self.machine = reloaded

    @precondition(lambda self: self.machine.revision > 0)
    @rule()
    def stale_writer_loses(self) -> None:
        self.machine.save()
        stale = Guarded.load(self.store, "s")
        self.machine.save()
        try:
            stale.save()
        except Exception as exc:
            assert type(exc).__name__ == "Conflict"
        else:
            raise AssertionError("stale save must conflict")

    @invariant()
    def matches_oracle(self) -> None:
        assert self.machine.state is self.state
        assert self.machine.previous_state is self.prev


TestStoredMachine = StoredMachine.TestCase
TestStoredMachine.settings = settings(
    max_examples=examples(40),
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

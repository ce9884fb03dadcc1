"""Snapshots: round trips, contexts, validation, migrations."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from statewright import SNAPSHOT_FORMAT, Machine, MachineOptions, MachineSpec, SnapshotError

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


def advanced(n: int = 6) -> TaskMachine:
    m = TaskMachine(TaskContext(task_id="t-1"), TaskHandlers())
    for event, payload in HAPPY_PATH[:n]:
        m.send(event, **payload)
    return m


def test_snapshot_is_json_and_has_the_documented_keys() -> None:
    m = advanced()
    snap = m.snapshot()
    assert json.loads(json.dumps(snap)) == snap
    assert snap["format"] == SNAPSHOT_FORMAT
    assert snap["machine"] == "PegasusTask"
    assert snap["spec_version"] == 1 and snap["spec_hash"] == "1" * 64
    assert snap["state"] == "reflecting" and snap["previous"] == "observing"
    assert snap["revision"] == 0 and snap["total_transitions"] == 6
    assert snap["context"] == dataclasses.asdict(m.context)
    assert len(snap["history"]) == 6
    assert snap["history"][0]["payload"] == {"task_id": "t-1"}


def test_round_trip_gives_identical_machine() -> None:
    m = advanced()
    restored = TaskMachine.restore(m.snapshot(), TaskHandlers())
    assert restored.snapshot() == m.snapshot()
    assert restored.state is m.state and restored.previous_state is m.previous_state
    assert restored.history == m.history
    assert restored.transition_counts() == m.transition_counts()
    assert restored.iteration_counts == m.iteration_counts
    assert restored.instance_id == m.instance_id
    assert restored.context == m.context and isinstance(restored.context, TaskContext)
    # and it keeps going exactly like the original
    for machine in (m, restored):
        machine.send(Ev.REFLECT_DONE)
        machine.send(Ev.TOOL_CALLED)
    assert [r.as_dict()["event_id"] for r in restored.history] == [r.event_id for r in m.history]


def test_round_trip_through_json_text() -> None:
    m = advanced()
    text = json.dumps(m.snapshot())
    assert TaskMachine.restore(text, TaskHandlers()).snapshot() == m.snapshot()
    assert TaskMachine.restore(text.encode(), TaskHandlers()).state is m.state


def test_previous_survives_round_trip() -> None:
    m = advanced(4)  # waiting_tool
    m.send(Ev.PAUSE)
    restored = TaskMachine.restore(m.snapshot(), TaskHandlers())
    assert restored.send(Ev.RESUME) is St.WAITING_TOOL


def test_error_text_survives_round_trip() -> None:
    handlers = TaskHandlers()
    m = TaskMachine(TaskContext(), handlers)
    for event, payload in HAPPY_PATH[:3]:
        m.send(event, **payload)
    handlers.fail_on = "on_enter_acting"
    m.send(Ev.HEARTBEAT)
    restored = TaskMachine.restore(m.snapshot(), TaskHandlers())
    assert restored.last_transition == m.last_transition
    assert restored.last_transition is not None and restored.last_transition.error


def test_context_override_and_plain_json_context() -> None:
    m = PlainTaskMachine({"count": 3, "items": ["a"]})
    m.send(Ev.TASK_CREATED)
    restored = PlainTaskMachine.restore(m.snapshot())
    assert restored.context == {"count": 3, "items": ["a"]}
    other = PlainTaskMachine.restore(m.snapshot(), context={"fresh": True})
    assert other.context == {"fresh": True}


def test_non_json_context_needs_a_codec() -> None:
    class Opaque:
        def __init__(self, value: int) -> None:
            self.value = value

    m = PlainTaskMachine(Opaque(1))
    with pytest.raises(SnapshotError, match="codec"):
        m.snapshot()

    class Codec:
        def encode(self, context: Any, /) -> Any:
            return {"v": context.value}

        def decode(self, data: Any, /) -> Any:
            return Opaque(data["v"])

    options = MachineOptions(codec=Codec())
    m = PlainTaskMachine(Opaque(7), options=options)
    snap = m.snapshot()
    assert snap["context"] == {"v": 7}
    assert PlainTaskMachine.restore(snap, options=options).context.value == 7


def test_context_type_option_for_unloaded_dataclass() -> None:
    m = advanced()
    snap = m.snapshot()
    snap["context_type"] = "not_loaded_module:TaskContext"
    with pytest.raises(SnapshotError, match="context_type"):
        TaskMachine.restore(snap, TaskHandlers())
    opts = MachineOptions(context_type=TaskContext)
    assert TaskMachine.restore(snap, TaskHandlers(), options=opts).context == m.context


def test_wrong_machine_is_refused() -> None:
    snap = PlainTaskMachine(None).snapshot()
    with pytest.raises(SnapshotError, match="PlainTask"):
        # A type error too (tests/typing proves it); an untyped caller gets SnapshotError.
        TaskMachine.restore(snap, TaskHandlers())  # type: ignore[arg-type]  # see above


def _versioned(
    version: int, migrations: dict[int, Any] | None = None
) -> type[Machine[Any, Any, Any]]:
    class V(Machine[TaskState, TaskEvent, Any]):
        spec: ClassVar[MachineSpec[Any, Any]] = plain_spec(version=version)

    return V


def test_newer_snapshot_is_refused() -> None:
    snap = _versioned(3)(None).snapshot()
    with pytest.raises(SnapshotError, match="newer"):
        _versioned(2).restore(snap)


def test_older_snapshot_needs_and_uses_migrations() -> None:
    old = _versioned(1)(None)
    old.send(Ev.TASK_CREATED)
    snap = old.snapshot()
    new = _versioned(3)
    with pytest.raises(SnapshotError, match="no migration from 1"):
        new.restore(snap)
    calls: list[int] = []

    def step(version: int) -> Any:
        def migrate(data: dict[str, Any]) -> dict[str, Any]:
            calls.append(version)
            data["context"] = {"migrated": [*data["context"]["migrated"], version]}
            return data

        return migrate

    snap["context"] = {"migrated": []}
    options = MachineOptions(migrations={1: step(1), 2: step(2)})
    restored = new.restore(snap, options=options)
    assert calls == [1, 2]
    assert restored.context == {"migrated": [1, 2]}
    assert restored.state is St.PLANNING
    assert restored.snapshot()["spec_version"] == 3


def test_hash_mismatch_at_same_version_is_refused_unless_vouched_for() -> None:
    """Another spec at the same version (it changed without a version bump) is an error, not a
    warning; ``compatible_fingerprints`` restores it (tests/runtime/test_fingerprints.py)."""
    snap = advanced().snapshot()
    snap["spec_hash"] = "f" * 64
    with pytest.raises(SnapshotError, match=r"f{64}, but this machine's spec is 1{64}") as info:
        TaskMachine.restore(snap, TaskHandlers())
    assert info.value.field == "spec_hash"
    options = MachineOptions(compatible_fingerprints={"f" * 64})
    assert TaskMachine.restore(snap, TaskHandlers(), options=options).state is St.REFLECTING


@pytest.mark.parametrize(
    "mangle",
    [
        lambda s: s.pop("state"),
        lambda s: s.update(state="nowhere"),
        lambda s: s.update(previous="nowhere"),
        lambda s: s.update(counts=[["idle", "PLAN_DONE", "done", 1]]),
        lambda s: s.update(counts="x"),
        lambda s: s["history"][0].pop("epoch"),
        lambda s: s["history"][0].update({"from": "done"}),
        lambda s: s.update(history=[{"bad": 1}]),
        lambda s: s.update(revision="seven"),
        lambda s: s.update(total_transitions=99),
        lambda s: s.update(format="something/else"),
        lambda s: s.update(spec_version="1"),
        lambda s: s.update(context=[1, 2]),
    ],
)
def test_corrupted_snapshots_raise_snapshot_error(mangle: Any) -> None:
    snap = advanced().snapshot()
    mangle(snap)
    with pytest.raises(SnapshotError):
        TaskMachine.restore(snap, TaskHandlers())


@pytest.mark.parametrize(
    "text", ["", "{", '{"format": "statewright.snapshot/1"', "[]", "null", "\xff"]
)
def test_truncated_or_garbage_text_raises_snapshot_error(text: str) -> None:
    with pytest.raises(SnapshotError):
        TaskMachine.restore(text, TaskHandlers())
    full = json.dumps(advanced().snapshot())
    with pytest.raises(SnapshotError):
        TaskMachine.restore(full[: len(full) // 2], TaskHandlers())


def test_restored_history_limit_applies() -> None:
    m = advanced()
    restored = TaskMachine.restore(
        m.snapshot(), TaskHandlers(), options=MachineOptions(history_limit=2)
    )
    assert [r.event_id for r in restored.history] == [5, 6]
    assert restored.total_transitions == 6


def test_task_spec_and_runtime_never_use_pickle() -> None:
    runtime = Path(__file__).resolve().parents[2] / "runtime" / "statewright"
    for source in runtime.glob("*.py"):
        assert "import pickle" not in source.read_text(), source
    assert task_spec().name == "PegasusTask"

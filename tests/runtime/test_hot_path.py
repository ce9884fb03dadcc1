"""The trivial commit has one text (statewright._trivial): ``send``, ``try_send``, the generated
event methods of a flat machine and ``AsyncMachine.send`` are compiled from it. The event
methods behave as ``send``, keep the generated signature and docstring, and a subclass that
overrides ``send`` still sees every event method go through it."""

from __future__ import annotations

import importlib.util
import inspect
import linecache
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import door as door_module
import pytest
from door import DoorEvent, DoorMachine, DoorState
from pegasus_task import PegasusTaskMachine
from statewright import AsyncMachine, InvalidTransition, Machine, _trivial

from tests.runtime.machines import PlainTaskMachine, TaskEvent, TaskState


@dataclass
class Codes:
    code: str | None = None
    calls: list[str] = field(default_factory=list)


class DoorHandlers:
    def alarm_tripped(self, context: Codes, payload: Any) -> bool:
        return False

    def code_matches(self, context: Codes, payload: Any) -> bool:
        context.calls.append(f"match {payload['code']}")
        return bool(payload["code"] == context.code)

    def remember_code(self, context: Codes, payload: Any) -> None:
        context.calls.append(f"remember {payload['code']}")
        context.code = payload["code"]


def door() -> DoorMachine[Codes]:
    return DoorMachine(Codes(), DoorHandlers())


def test_event_methods_are_specialised_and_keep_the_generated_face() -> None:
    method = DoorMachine.open
    code = method.__code__
    assert code.co_filename.startswith("<statewright trivial commit: ")  # its text in linecache
    assert linecache.getline(code.co_filename, code.co_firstlineno).strip() == "def method(self):"
    lock = DoorMachine.lock.__code__
    assert linecache.getline(lock.co_filename, lock.co_firstlineno).strip() == (
        "def method(self, *, code):"
    )
    assert method.__doc__ == "Send OPEN."
    assert method.__qualname__ == "DoorMachine.open"
    assert str(inspect.signature(DoorMachine.lock)) == "(self, *, code: 'str') -> 'DoorState'"
    assert inspect.unwrap(method).__code__.co_filename.endswith("door.py")


def test_event_methods_behave_as_send_on_every_path() -> None:
    by_method, by_send = door(), door()
    records: list[Any] = []
    by_method.add_listener(records.append)
    # trivial, with an action, guarded (passes), rejected: each as send does it
    assert by_method.open() is by_send.send(DoorEvent.OPEN) is DoorState.OPEN
    assert by_method.close() is by_send.send(DoorEvent.CLOSE) is DoorState.CLOSED
    assert by_method.lock(code="1234") is by_send.send(DoorEvent.LOCK, code="1234")
    assert by_method.unlock(code="1234") is by_send.send(DoorEvent.UNLOCK, code="1234")
    with pytest.raises(InvalidTransition):
        by_method.close()
    assert by_method.context == by_send.context
    assert [(r.source, r.event, r.target, r.payload) for r in by_method.history] == [
        (r.source, r.event, r.target, r.payload) for r in by_send.history
    ]
    assert [(r.source, r.event, r.target) for r in records[:1]] == [
        (DoorState.CLOSED, DoorEvent.OPEN, DoorState.OPEN)
    ]
    assert by_method.snapshot()["counts"] == by_send.snapshot()["counts"]


def test_a_failure_in_the_inline_path_shows_its_source() -> None:
    machine = door()

    def broken_clock() -> float:
        raise RuntimeError("clock")

    machine._clock = broken_clock
    with pytest.raises(RuntimeError) as info:
        machine.open()
    lines = "".join(traceback.format_tb(info.value.__traceback__))
    assert "history.append((index, clock(), payload) if payload else (index, clock()))" in lines
    assert machine.state is DoorState.CLOSED  # nothing half-applied


def test_a_subclass_that_overrides_send_sees_every_event_method() -> None:
    sent: list[str] = []

    class Audited(DoorMachine[Codes]):
        def send(self, event: Any, /, **payload: Any) -> DoorState:
            sent.append(str(event))
            return super().send(event, **payload)

    machine = Audited(Codes(), DoorHandlers())
    machine.open()
    machine.close()
    machine.lock(code="9")
    assert sent == ["OPEN", "CLOSE", "LOCK"]
    assert machine.state is DoorState.LOCKED


def test_a_hand_written_method_of_an_events_name_is_left_alone() -> None:
    class Custom(PlainTaskMachine):
        spec = PlainTaskMachine.spec

        def task_created(self) -> TaskState:
            self.extra = True
            return self.send(TaskEvent.TASK_CREATED)

    machine: Machine[Any, Any, Any] = Custom(None)
    assert machine.task_created() is TaskState.PLANNING  # type: ignore[attr-defined]
    assert machine.extra is True  # type: ignore[attr-defined]


def test_an_event_method_is_compiled_on_first_lookup() -> None:
    location = Path(door_module.__file__)  # a fresh copy of the module: nothing looked up yet
    found = importlib.util.spec_from_file_location("door_fresh_copy", location)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    cls = module.DoorMachine
    assert not inspect.isfunction(cls.__dict__["open"])
    assert cls(Codes(), DoorHandlers()).open() is module.DoorState.OPEN
    assert inspect.isfunction(cls.__dict__["open"])
    assert not inspect.isfunction(cls.__dict__["close"])


def _statements(source: str) -> list[str]:
    lines = [line.split("#")[0].strip() for line in source.splitlines()]
    return [line for line in lines if line]


def _contains(statements: list[str], block: list[str]) -> bool:
    return any(statements[i : i + len(block)] == block for i in range(len(statements)))


def test_the_specialised_path_is_sends_path() -> None:
    """Every entry point of the trivial path is compiled from the one text of the commit:
    ``send``, ``try_send``, an event method (with and without a payload) and the async
    machine's ``send`` hold its statements, in order, from the history record to the
    announcement; a statechart's ``send`` and ``try_send`` hold them with the chart's part (its
    next configuration's sets) after the history record."""
    text = _trivial.COMMIT.split("{listeners}")[0]
    commit = _statements(text.replace("{chart}\n", ""))
    assert commit[0] == "history = self._history" and commit[-1] == "if pending:"
    chart_commit = _statements(text.replace("{chart}\n", _trivial.CHART))
    assert chart_commit != commit and len(chart_commit) > len(commit)
    entry_points = [Machine.send, Machine.try_send, DoorMachine.open, DoorMachine.lock]
    entry_points.append(AsyncMachine.send)
    chart_entry_points = [PegasusTaskMachine.send, PegasusTaskMachine.try_send]
    for function in entry_points + chart_entry_points:
        source = inspect.getsource(function.__code__)  # from linecache: what was compiled
        expected = chart_commit if function in chart_entry_points else commit
        assert _contains(_statements(source), expected), function.__qualname__
        assert function.__code__.co_filename.startswith("<statewright trivial commit: ")

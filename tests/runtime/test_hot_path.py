"""The generated event methods of a flat machine run ``send``'s inline path
(statewright._hot_path): same behaviour as ``send``, the generated signature and docstring, and
a subclass that overrides ``send`` still sees every event method go through it."""

from __future__ import annotations

import importlib.util
import inspect
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import door as door_module
import pytest
from door import DoorEvent, DoorMachine, DoorState
from statewright import InvalidTransition, Machine, _hot_path

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
    source = Path(code.co_filename).read_text(encoding="utf-8").splitlines()
    assert code.co_filename.endswith("_hot_path.py")  # at the text's own lines
    assert source[code.co_firstlineno - 1].strip() == "def method(self{parameters}):"
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
    assert "history.append((index, clock(), payload))" in lines
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


def _statements(source: str, start: str, end: str) -> list[str]:
    lines = [line.split("#")[0].strip() for line in source.splitlines()]
    code = [line for line in lines if line]
    return code[code.index(start) : code.index(end) + 1]


def test_the_specialised_path_is_sends_path() -> None:
    """The text the event methods are compiled from commits a transition exactly as ``send``,
    and ``try_send`` and the async machine's trivial commit do the same."""
    start, end = "history = self._history", "lock.release()"
    sends = _statements(inspect.getsource(Machine.send), start, end)
    template = _statements(_hot_path._TEMPLATE, start, end)
    assert template == sends
    commit = _statements(inspect.getsource(Machine.send), start, "self._counts[index] += 1")
    for other in (Machine.try_send, Machine._commit_trivial):
        assert _statements(inspect.getsource(other), start, "self._counts[index] += 1") == commit

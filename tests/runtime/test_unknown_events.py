"""An unknown event says so first and names the event the sender most likely meant.

The compiler answers every misspelt name with "did you mean"; the runtime does the same for events
sent by string: ignoring case, so an event method's name (``tool_result``) finds its event
(``TOOL_RESULT``), and by difflib's close matches for a typo. The message leads with what is wrong
(the string is no event of the machine), then the hint, then the state's allowed events; the same
text goes to ``send``, ``send_external`` and the DEBUG log of a rejected ``try_send``.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from agent_task import AgentTaskMachine
from statewright import UnknownEvent

from tests.runtime.machines import PlainTaskMachine


class Handlers:
    def succeeded(self, context: None, payload: Any, /) -> bool:
        return bool(payload.get("ok"))


def _agent() -> AgentTaskMachine[None]:
    machine = AgentTaskMachine(None, Handlers())
    machine.planned()  # now calling: TOOL_RESULT is allowed
    return machine


@pytest.mark.parametrize(
    ("sent", "meant"),
    [
        ("tool_result", "TOOL_RESULT"),
        ("Tool_Result", "TOOL_RESULT"),
        ("tool-result", "TOOL_RESULT"),
        ("TOOL_RESLUT", "TOOL_RESULT"),
        ("planed", "PLANNED"),
        ("suspnd", "SUSPEND"),
    ],
)
def test_send_leads_with_the_reason_and_suggests_the_event(sent: str, meant: str) -> None:
    machine = _agent()
    with pytest.raises(UnknownEvent) as info:
        machine.send(sent)  # type: ignore[call-overload]  # an untyped caller's mistake
    message = str(info.value)
    assert message.startswith(f"{sent!r} is not an event of AgentTask; did you mean {meant}?")
    assert info.value.suggestion == meant
    assert "(allowed events in state waiting_for_tool: SUSPEND, TOOL_RESULT)" in message


def test_nothing_close_gives_no_hint() -> None:
    machine = PlainTaskMachine(None)
    with pytest.raises(UnknownEvent) as info:
        machine.send("XYZZY")  # type: ignore[arg-type]  # an untyped caller's mistake
    message = str(info.value)
    assert message.startswith("'XYZZY' is not an event of PlainTask (")
    assert "did you mean" not in message and info.value.suggestion is None


def test_a_flat_machine_suggests_too() -> None:
    machine = PlainTaskMachine(None)
    with pytest.raises(UnknownEvent, match=r"did you mean TASK_CREATED\?"):
        machine.send("task_created")  # type: ignore[arg-type]  # an untyped caller's mistake
    with pytest.raises(UnknownEvent, match=r"did you mean TASK_CREATED\?"):
        machine.can_send("Task_Created")  # type: ignore[arg-type]  # an untyped caller's mistake


def test_send_external_leads_with_the_reason_and_suggests_the_event() -> None:
    machine = _agent()
    with pytest.raises(UnknownEvent) as info:
        machine.send_external("tool_result", {"ok": True})
    message = str(info.value)
    assert message.startswith("'tool_result' is not")
    assert "an event of AgentTask" in message.split(";")[0]
    assert "; did you mean TOOL_RESULT?" in message
    assert info.value.suggestion == "TOOL_RESULT"


def test_try_send_logs_the_same_text_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    machine = _agent()
    with caplog.at_level(logging.DEBUG, logger="statewright"):
        assert machine.try_send("tool_result") is False  # type: ignore[call-overload]  # see above
    rejected = [record.getMessage() for record in caplog.records if "rejected" in record.message]
    assert rejected, caplog.text
    assert "'tool_result' is not an event of AgentTask; did you mean TOOL_RESULT?" in rejected[0]


def test_something_not_a_string_says_what_was_expected() -> None:
    machine = PlainTaskMachine(None)
    with pytest.raises(UnknownEvent) as info:
        machine.send(42)  # type: ignore[arg-type]  # deliberately wrong type
    assert str(info.value).startswith("42 is not a TaskEvent member or its string value (")
    assert info.value.suggestion is None

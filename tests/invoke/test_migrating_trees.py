"""A spec version that renames the state running a child machine: the stored tree migrates with
``migrate_snapshot`` (the child's entry and its made-up invoke id follow the state), restores
under the new module with the child as it was, and the child's completion still reaches its
parent. Without the migration the restore refuses the tree."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from statewright import ActionFailed, MachineOptions, SnapshotError, migrate_snapshot

from tests.runtime.chart_specs import compile_chart

V1 = """
[machine]
name = "Lab"
initial = "running"
version = 1

[data]
helper = { type = "str", initial = "" }

[events]
FOUND = { payload = { text = "str" } }
DONE = {}

[states.running]
on."done.invoke" = "reported"

[[states.running.invoke]]
id_location = "helper"
machine = "research:ResearchMachine"
autoforward = true

[states.reported]
kind = "final"
"""
V2 = V1.replace("version = 1", "version = 2").replace("running", "searching")


def _renamed(old: str) -> str:
    return "searching" if old == "running" else old


def test_a_renamed_invoking_state_migrates_its_running_child(tmp_path: Path) -> None:
    v1 = compile_chart(tmp_path, V1, "lab_v1").LabMachine
    v2 = compile_chart(tmp_path, V2, "lab_v2").LabMachine
    lab = v1(None)
    lab.send_external("FOUND", {"text": "a paper"})  # forwarded to the research child
    (child_id,) = lab.children
    assert child_id.startswith("running.") and lab.data.helper == child_id
    snapshot = lab.snapshot()

    with pytest.raises(SnapshotError):
        v2.restore(snapshot, options=MachineOptions(migrations={1: lambda data: data}))

    def migrate(data: dict[str, Any]) -> dict[str, Any]:
        migrated = migrate_snapshot(data, state=_renamed)
        migrated["data"]["helper"] = migrated["data"]["helper"].replace("running.", "searching.")
        return migrated

    restored = v2.restore(snapshot, options=MachineOptions(migrations={1: migrate}))
    (moved_id,) = restored.children
    assert moved_id == child_id.replace("running.", "searching.", 1)
    child = restored.children[moved_id]
    assert child.data.findings == ["a paper"] and child.data.attempts == 2
    restored.send_external("DONE", {})  # the child finishes: its done.invoke.searching.<id>
    assert restored.state == "reported" and not restored.children


CHILD = """
[machine]
name = "Caller"
initial = "calling"
statechart = true

[events]
ANSWER = { payload = { text = "str" } }

[states.calling]
entry = ["call_tool"]
on.ANSWER = { to = "answered", actions = ["record"] }

[states.answered]
kind = "final"
"""
PARENT = """
[machine]
name = "Agent"
initial = "working"

[events]
ANSWER = { payload = { text = "str" } }

[states.working]
on."done.invoke.tool" = "done"

[[states.working.invoke]]
id = "tool"
machine = "caller:CallerMachine"
autoforward = true

[states.done]
kind = "final"
"""


@pytest.fixture(autouse=True)
def _fresh_caller() -> Iterator[None]:
    """Each test compiles its own ``caller`` child module, which its parent imports by name."""
    sys.modules.pop("caller", None)
    yield
    sys.modules.pop("caller", None)


class Tools:
    """The tree's handlers: the parent's object serves its child's spec."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def call_tool(self, context: Any, payload: Any, /) -> None:
        self.calls.append("call_tool")

    def record(self, context: Any, payload: Any, /) -> None:
        self.calls.append(f"record {payload['text']}")


def test_a_child_with_handler_actions_runs_on_its_parents_handlers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compile_chart(tmp_path, CHILD, "caller")
    monkeypatch.syspath_prepend(str(tmp_path))  # the parent's module imports caller
    agent_class = compile_chart(tmp_path, PARENT, "agent").AgentMachine
    tools = Tools()
    agent = agent_class(None, tools)
    assert tools.calls == ["call_tool"] and "tool" in agent.children
    agent.send_external("ANSWER", {"text": "42"})  # forwarded: the child records and finishes
    assert tools.calls == ["call_tool", "record 42"]
    assert agent.state == "done" and not agent.children


def test_a_flat_child_is_refused_naming_the_key_that_makes_it_a_statechart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compile_chart(tmp_path, CHILD.replace("statechart = true\n", ""), "caller")
    monkeypatch.syspath_prepend(str(tmp_path))
    agent_class = compile_chart(tmp_path, PARENT, "agent").AgentMachine
    with pytest.raises(ActionFailed, match=r"a flat machine: .*`statechart = true`"):
        agent_class(None, Tools())

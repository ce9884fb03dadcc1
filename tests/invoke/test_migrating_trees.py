"""A spec version that renames the state running a child machine: the stored tree migrates with
``migrate_snapshot`` (the child's entry and its made-up invoke id follow the state), restores
under the new module with the child as it was, and the child's completion still reaches its
parent. Without the migration the restore refuses the tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from statewright import MachineOptions, SnapshotError, migrate_snapshot

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

"""Stores and snapshots written by earlier releases load with today's runtime.

The files in ``fixtures/legacy`` were written by statewright 0.2.0 (``fixtures/write_legacy.py``):
one whole snapshot per SQLite row or JSON file, snapshot format ``statewright.snapshot/1``. Each
is copied into a temporary folder, loaded, checked against the snapshot written next to it,
advanced and saved again, and loaded once more: the first save in the new format keeps the old
history.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from statewright import (
    Conflict,
    JsonFileStore,
    Machine,
    MachineOptions,
    Snapshot,
    SqliteStore,
    Store,
)

from tests.runtime.fixtures.write_legacy import EXPECTED, _AgentHandlers
from tests.runtime.machines import PlainTaskMachine, TaskEvent, TaskHandlers, TaskMachine

LEGACY = Path(__file__).resolve().parent / "fixtures" / "legacy"


def _machine_class(name: str) -> type[Machine[Any, Any, Any]]:
    if name == "chart":
        from agent_task import AgentTaskMachine

        return AgentTaskMachine
    return TaskMachine if name == "task" else PlainTaskMachine


def _handlers(name: str) -> object | None:
    return {"task": TaskHandlers(), "chart": _AgentHandlers()}.get(name)


def _event(name: str) -> Any:
    return {"task": None, "plain": TaskEvent.CANCEL}.get(name, "SUSPEND")


NAMES = ["task", "plain", "chart"]
EXPECTED_VALUES = json.loads((LEGACY / EXPECTED).read_text(encoding="utf-8"))


def _legacy_snapshot(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LEGACY / f"snapshot_{name}.json").read_text("utf-8"))
    return data


@pytest.fixture(params=["sqlite", "files"])
def legacy_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        shutil.copy(LEGACY / "store.sqlite", tmp_path / "store.sqlite")
        with SqliteStore(tmp_path / "store.sqlite") as store:
            yield store
    else:
        shutil.copytree(LEGACY / "files", tmp_path / "files")
        yield JsonFileStore(tmp_path / "files")


@pytest.mark.parametrize("name", NAMES)
def test_a_legacy_snapshot_restores(name: str) -> None:
    data = _legacy_snapshot(name)
    machine = _machine_class(name).restore(
        Snapshot(data), _handlers(name), options=MachineOptions(history_limit=None)
    )
    expected = EXPECTED_VALUES[name]
    assert str(machine.state) == expected["state"]
    assert machine.total_transitions == expected["total_transitions"]
    assert len(machine.history) == expected["history"]
    assert [r.as_dict() for r in machine.history] == [
        {k: v for k, v in record.items() if k != "epoch"} for record in data["history"]
    ]


@pytest.mark.parametrize("name", NAMES)
def test_a_legacy_store_loads_and_keeps_its_history_after_saving(
    legacy_store: Store, name: str
) -> None:
    assert legacy_store.list_ids() == sorted(NAMES)
    machine_class = _machine_class(name)
    unbounded = MachineOptions(history_limit=None)
    machine = machine_class.load(legacy_store, name, _handlers(name), options=unbounded)
    assert machine.revision == 2
    old = _legacy_snapshot(name)
    assert [r.as_dict() for r in machine.history] == [
        {k: v for k, v in record.items() if k != "epoch"} for record in old["history"]
    ]
    assert str(machine.state) == EXPECTED_VALUES[name]["state"]
    event = _event(name)
    if event is not None:  # the task machine is in a final state
        machine.dynamic.send(event)
    assert machine.save() == 3
    again = machine_class.load(legacy_store, name, _handlers(name), options=unbounded)
    assert again.revision == 3
    assert again.history == machine.history
    assert again.snapshot()["history"] == machine.snapshot()["history"]
    stale = machine_class.load(legacy_store, name, _handlers(name), options=unbounded)
    stale._revision = 2  # as if it had been loaded before the save above
    with pytest.raises(Conflict):
        stale.save()

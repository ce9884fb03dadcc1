"""A deployed fleet of the issue's agent task, for ``check-store``: the v1 spec of
tests/deploy/test_deploy_scenario.py, whose suspended task runs a child machine (a reminder
with its own timer, saved inside the task's snapshot), instances of it in every state a stored
one waits in (an approval pending with its deadline timer, a suspended task with its child, one
archived into a state v2 removes, a finished one), and the v2 spec with its version raised, with
the migration that carries them over (plain functions over the snapshot, as
``MachineOptions.migrations`` takes them; the child follows its state's rename) and one that
forgets the states.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from statewright import MachineOptions, Store
from statewright_compiler.pipeline import module_source

from tests.deploy.bases import FLAT, compile_text
from tests.deploy.test_deploy_scenario import V1 as FLAT_V1
from tests.deploy.test_deploy_scenario import V2

__all__ = [
    "FLEET",
    "MIGRATED",
    "PARTIAL",
    "REMINDER",
    "START",
    "V1",
    "V2_BUMPED",
    "load_module",
    "store_fleet",
    "write_module",
]

#: The child machine a suspended task runs: a reminder whose 12 h timer ends it.
REMINDER: Final = """\
[machine]
name = "Reminder"
initial = "waiting"
statechart = true

[states.waiting]
after = { delay = "12h", to = "reminded" }

[states.reminded]
kind = "final"
"""
_REMINDER_MODULE: Final = "deploy_reminder"
_CHILD = (
    "\n[[states.{state}.invoke]]\n"
    f'id = "reminder"\nmachine = "{_REMINDER_MODULE}:ReminderMachine"\n'
)
#: v1 as deployed: the scenario's, its suspended state running the reminder.
V1: Final = FLAT_V1 + _CHILD.format(state="suspended")
#: v2 as deployed: the same edits as the scenario's (suspended is now paused, and runs the
#: reminder there), with the version raised.
V2_BUMPED: Final = V2.replace("version = 1", "version = 2", 1) + _CHILD.format(state="paused")
START: Final = 1_767_225_600.0
#: Each stored instance's events, from the initial state.
FLEET: Final = {
    "task-archived": ("ARCHIVE",),
    "task-done": ("PLAN", "APPROVE"),
    "task-planning": (),
    "task-suspended": ("PLAN", "SUSPEND"),
    "task-waiting": ("PLAN",),
}


def write_module(folder: Path, text: str, name: str) -> Path:
    """The module generated from the spec ``text``, written as ``folder/<name>.py`` (with the
    reminder's beside it when the spec runs that child machine: the module imports it)."""
    if f"{_REMINDER_MODULE}:" in text:
        write_module(folder, REMINDER, _REMINDER_MODULE)
    path = folder / f"{name}.py"
    path.write_text(module_source(compile_text(text, f"{name}.toml")), encoding="utf-8")
    return path


def load_module(path: Path) -> ModuleType:
    """Import the module at ``path`` under its file's name (dataclasses resolve it by name)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def store_fleet(folder: Path, store: Store, tag: str) -> None:
    """Save :data:`FLEET` under v1, and one instance of another machine (an ``Order``)."""
    load_module(write_module(folder, REMINDER, _REMINDER_MODULE))  # v1 and v2 import it
    v1 = load_module(write_module(folder, V1, f"fleet_v1_{tag}")).AgentTaskMachine
    for instance_id, events in FLEET.items():
        options = MachineOptions(store=store, instance_id=instance_id, clock=lambda: START)
        machine = v1(None, options=options)
        for event in events:
            machine.send(event)
        machine.save()
    order = load_module(write_module(folder, FLAT, f"fleet_order_{tag}")).OrderMachine
    handlers = type("Handlers", (), {"is_ok": lambda self, context, payload: True})()
    order(None, handlers, options=MachineOptions(store=store, instance_id="order-1")).save()


def _renamed(data: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """``data`` with the state ``old`` called ``new`` wherever a chart's snapshot names it."""

    def name(value: Any) -> Any:
        return new if value == old else value

    data["state"], data["previous"] = name(data["state"]), name(data["previous"])
    data["counts"] = [[name(a), event, name(b), n] for a, event, b, n in data["counts"]]
    for record in data["history"]:
        record["from"], record["to"] = name(record["from"]), name(record["to"])
    chart = data["chart"]
    chart["active"] = [name(state) for state in chart["active"]]
    chart["memory"] = {key: [name(s) for s in held] for key, held in chart["memory"].items()}
    for child in data.get("children", {}).values():  # a running child's invoking state
        child["state"] = name(child["state"])
    return data


def _data_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """notes: a str, now a list of them; attempts: new, computed from nothing: 0."""
    values = data["data"]
    values["notes"] = [values["notes"]] if values["notes"] else []
    values["attempts"] = 0
    return data


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """The whole migration: suspended is now paused, legacy is gone (an archived task is
    expired now, as v2's ARCHIVE makes it), and the data as v2 types it."""
    return _data_to_v2(_renamed(_renamed(data, "suspended", "paused"), "legacy", "expired"))


Migration = Callable[[dict[str, Any]], dict[str, Any]]
#: What v2's workers restore with.
MIGRATED: Final = MachineOptions(migrations={1: _v1_to_v2})
#: A migration that forgot the states (the data alone).
PARTIAL: Final = MachineOptions(migrations={1: _data_to_v2})

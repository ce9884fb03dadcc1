"""What a tool does, without MCP: :class:`Instances` (list, read, create, send) on a SQLite store,
with races made to happen at a chosen moment, and the tool layer's checks and key scoping."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from statewright import SnapshotUpdate, SqliteStore
from statewright_compiler.mcp_server.hosting import MachineType, hosted_types
from statewright_compiler.mcp_server.instances import MAX_ATTEMPTS, Instances, ToolError
from statewright_compiler.mcp_server.settings import Settings
from statewright_compiler.mcp_server.tools import call_tool, request_key, served_tools

from tests.conftest import REPO

FAILED = {"success": False}


@pytest.fixture
def types(monkeypatch: pytest.MonkeyPatch) -> tuple[MachineType, ...]:
    monkeypatch.setattr(sys, "path", list(sys.path))  # hosted_types prepends the folders
    settings = Settings(
        root=REPO,
        store="unused",
        machines=("approval_workflow:ApprovalWorkflowMachine",),
        handlers="tests.mcp.hosts:handlers",
        context="tests.mcp.hosts:patient_context",
        data="tests.mcp.hosts:patient_data",
        path=(REPO, REPO / "examples"),
    )
    return hosted_types(settings)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with SqliteStore(tmp_path / "db.sqlite") as opened:
        yield opened


class RacingStore:
    """A SQLite store on which, just before a save, another writer gets in first (``before``)
    the first ``times`` times: the save then loses the compare-and-swap."""

    def __init__(self, inner: SqliteStore, before: Callable[[], object], times: int = 1) -> None:
        self.inner, self.before, self.times, self.conflicts = inner, before, times, 0

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        return self.inner.load(instance_id)

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected: int, /) -> int:
        return self.inner.save(instance_id, snapshot, expected)

    def save_update(self, instance_id: str, update: SnapshotUpdate, expected: int, /) -> int:
        if self.times:
            self.times -= 1
            self.conflicts += 1
            self.before()
        return self.inner.save_update(instance_id, update, expected)

    def delete(self, instance_id: str, /) -> bool:
        return self.inner.delete(instance_id)

    def list_ids(self) -> list[str]:
        return self.inner.list_ids()


def _applying(instances: Instances, instance_id: str) -> None:
    instances.create("ApprovalWorkflow", instance_id)
    instances.send(instance_id, "VALIDATED", {"valid": True}, "setup-1")
    instances.send(instance_id, "APPROVE", {}, "setup-2")


def test_a_send_that_loses_the_race_loads_again_and_applies_once(
    types: tuple[MachineType, ...], store: SqliteStore
) -> None:
    other = Instances(store, types)
    _applying(other, "raced")
    racing = RacingStore(store, lambda: other.send("raced", "APPLY_RESULT", FAILED, "other"))
    answer = Instances(racing, types).send("raced", "APPLY_RESULT", FAILED, "mine")
    assert racing.conflicts == 1
    assert (answer["applied"], answer["event_id"]) == (True, 4)  # after the other's 3
    stored = store.load("raced") or {}
    assert (stored["total_transitions"], stored["data"]["attempt"]) == (4, 2)


def test_a_duplicate_that_loses_the_race_finds_its_key_applied(
    types: tuple[MachineType, ...], store: SqliteStore
) -> None:
    other = Instances(store, types)
    _applying(other, "duplicated")
    racing = RacingStore(store, lambda: other.send("duplicated", "APPLY_RESULT", FAILED, "same"))
    answer = Instances(racing, types).send("duplicated", "APPLY_RESULT", FAILED, "same")
    assert (racing.conflicts, answer["applied"], answer["event_id"]) == (1, False, 3)
    assert (store.load("duplicated") or {})["data"]["attempt"] == 1


def test_a_send_that_loses_every_race_is_busy_and_applies_nothing(
    types: tuple[MachineType, ...], store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []
    # the backoff between tries, recorded instead of slept
    monkeypatch.setattr("statewright_compiler.mcp_server.instances.time.sleep", waits.append)
    other = Instances(store, types)
    _applying(other, "busy")
    keys = iter(range(MAX_ATTEMPTS))
    racing = RacingStore(
        store,
        lambda: other.send("busy", "APPLY_RESULT", FAILED, f"other-{next(keys)}"),
        times=MAX_ATTEMPTS,
    )
    with pytest.raises(ToolError) as refused:
        Instances(racing, types).send("busy", "APPLY_RESULT", FAILED, "mine")
    assert refused.value.kind == "busy"
    assert len(waits) == MAX_ATTEMPTS and max(waits) <= 0.1
    stored = store.load("busy") or {}
    assert stored["data"]["attempt"] == MAX_ATTEMPTS  # the other writer's, none of mine
    assert "mine" not in dict(stored["idempotency_keys"])


def test_listing_pages_by_id_and_sees_only_its_prefix_and_machines(
    types: tuple[MachineType, ...], store: SqliteStore
) -> None:
    served = Instances(store, types, prefix="a-")
    for name in ("a-3", "a-1", "a-2"):
        served.create("ApprovalWorkflow", name)
    Instances(store, types).create("ApprovalWorkflow", "b-1")  # another prefix
    store.save("a-0", {"machine": "Door", "instance_id": "a-0"}, 0)  # another machine
    first = served.page(limit=2)
    assert [row["instance_id"] for row in first["instances"]] == ["a-1", "a-2"]
    rest = served.page(limit=2, after=first["next_after"])
    assert ([row["instance_id"] for row in rest["instances"]], rest["next_after"]) == (
        ["a-3"],
        None,
    )
    with pytest.raises(ToolError, match=r"^no instance 'b-1' here"):
        served.read("b-1")
    with pytest.raises(ToolError) as unknown:
        served.page(machine="Door")
    assert unknown.value.kind == "unknown_machine"


def test_a_context_factory_that_raises_is_a_create_error_and_stores_nothing(
    types: tuple[MachineType, ...], store: SqliteStore
) -> None:
    from tests.mcp.hosts import raising_context

    broken = MachineType(**{**vars(types[0]), "new_context": lambda: raising_context(type)})
    with pytest.raises(ToolError) as refused:
        Instances(store, [broken]).create("ApprovalWorkflow", "never")
    assert refused.value.kind == "create_failed" and "no context today" in refused.value.message
    assert store.load("never") is None


def test_a_created_instance_starts_with_the_data_factory_s_initial_data(
    types: tuple[MachineType, ...], store: SqliteStore
) -> None:
    created = Instances(store, types).create("ApprovalWorkflow", "patient")
    assert created["created"] is True
    stored = store.load("patient") or {}
    assert stored["data"] == {"attempt": 0, "max_retries": 1_000_000}


def test_data_the_machine_does_not_take_is_a_create_error_and_stores_nothing(
    types: tuple[MachineType, ...], store: SqliteStore
) -> None:
    from tests.mcp.hosts import wrong_data

    broken = MachineType(**{**vars(types[0]), "new_data": lambda: wrong_data(type)})
    with pytest.raises(ToolError) as refused:
        Instances(store, [broken]).create("ApprovalWorkflow", "never")
    assert refused.value.kind == "create_failed"
    assert "InvalidData: data of ApprovalWorkflow: max_retries: expected an integer" in (
        refused.value.message
    )
    assert store.load("never") is None


def test_a_read_only_server_offers_and_runs_no_writing_tool(
    types: tuple[MachineType, ...], store: SqliteStore
) -> None:
    Instances(store, types).create("ApprovalWorkflow", "kept")
    offered = served_tools(types, read_only=True, allow_create=True)
    assert [tool.name for tool in offered] == ["list_instances", "read_instance"]
    with pytest.raises(ToolError) as refused:
        call_tool(Instances(store, types), offered, "send_event",
                  {"instance_id": "kept", "event": "TIMEOUT"}, "key")  # fmt: skip
    assert refused.value.kind == "unknown_tool"
    assert (store.load("kept") or {})["total_transitions"] == 0
    writable = served_tools(types, read_only=False, allow_create=False)
    assert [tool.name for tool in writable] == ["list_instances", "read_instance", "send_event"]


def test_the_request_key_is_the_request_id_scoped_to_its_connection() -> None:
    assert request_key("connection-1", 3) == request_key("connection-1", 3)
    assert request_key("connection-1", 3) != request_key("connection-2", 3)
    assert request_key("connection-1", 3) != request_key("connection-1", "3")
    assert request_key(None, 3) != request_key(None, 3)  # no connection: a key of its own
    assert all(len(request_key(c, 10**300)) <= 200 for c in ("x" * 500, None))


def test_a_read_shows_a_machines_data_when_its_snapshot_has_some(
    types: tuple[MachineType, ...], store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = Instances(store, types)
    served.create("ApprovalWorkflow", "with-data")
    # the approval workflow has a data model since #19 (its data from the patient data factory)
    assert served.read("with-data")["data"] == {"attempt": 0, "max_retries": 1_000_000}
    machine_class = types[0].cls
    snapshot = machine_class.snapshot
    monkeypatch.setattr(  # a snapshot as a machine without a data model writes it: no data
        machine_class,
        "snapshot",
        lambda self: {k: v for k, v in snapshot(self).items() if k != "data"},
    )
    assert "data" not in served.read("with-data")
    monkeypatch.setattr(  # a snapshot as a machine with a data model (#19) writes it
        machine_class, "snapshot", lambda self: {**snapshot(self), "data": {"retries": 2}}
    )
    assert served.read("with-data")["data"] == {"retries": 2}

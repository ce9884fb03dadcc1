"""``statewright mcp`` over stdio, driven by the MCP SDK's own client, on a real SQLite store.

One server for the module (started as a subprocess, as a desktop client starts it), serving the
approval workflow with creation allowed and the instance prefix ``t-``; each test works on
instances of its own. What a tool call changed, or did not change, is checked in the store
itself, not only in what the server answers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from approval_workflow import ApprovalWorkflowMachine
from statewright import SqliteStore

from tests.conftest import REPO, run_cli
from tests.mcp.client import SyncClient, connected, server_parameters

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp") / "workflows.sqlite"


@pytest.fixture(scope="module")
def client(database: Path) -> Iterator[SyncClient]:
    parameters = server_parameters(
        f"sqlite:///{database}",
        "--allow-create",
        "--instance-prefix",
        "t-",
        "--context",
        "tests.mcp.hosts:patient_context",
        "--data",
        "tests.mcp.hosts:patient_data",
    )
    with connected(parameters) as connection:
        yield connection


@pytest.fixture
def store(database: Path) -> Iterator[SqliteStore]:
    with SqliteStore(database) as opened:
        yield opened


def _created(client: SyncClient, instance_id: str) -> dict[str, Any]:
    arguments = {"machine": "ApprovalWorkflow", "instance_id": instance_id}
    created = client.ok("create_instance", arguments)
    assert created["created"] is True
    return created


def _send(client: SyncClient, instance_id: str, event: str, **arguments: Any) -> dict[str, Any]:
    call = {"instance_id": instance_id, "event": event, "arguments": arguments}
    return client.ok("send_event", call)


def _reviewing(client: SyncClient, instance_id: str) -> None:
    _created(client, instance_id)
    _send(client, instance_id, "VALIDATED", valid=True)


def test_tools_are_fixed_and_send_event_lists_each_machines_events(client: SyncClient) -> None:
    tools = {tool.name: tool for tool in client.portal.call(client.client.list_tools).tools}
    assert list(tools) == ["list_instances", "read_instance", "create_instance", "send_event"]
    assert tools["read_instance"].annotations is not None
    assert tools["read_instance"].annotations.read_only_hint is True
    send = tools["send_event"]
    assert send.input_schema["required"] == ["instance_id", "event"]
    assert send.description is not None
    assert "ApprovalWorkflow: VALIDATED, APPROVE, REJECT, APPLY_RESULT, TIMEOUT, RESUBMIT" in (
        send.description
    )
    assert "after.reviewing" not in send.description and "AFTER_" not in send.description


def test_create_list_and_read_show_state_final_and_legal_events_with_schemas(
    client: SyncClient, store: SqliteStore
) -> None:
    created = _created(client, "t-read")
    assert store.load("t-read") is not None  # created means saved
    listed = client.ok("list_instances", {"machine": "ApprovalWorkflow"})["instances"]
    row = next(row for row in listed if row["instance_id"] == "t-read")
    assert (row["state"], row["final"], row["legal_events"]) == (
        "submitted", False, ["VALIDATED", "TIMEOUT"]
    )  # fmt: skip
    read = client.ok("read_instance", {"instance_id": "t-read"})
    reference = ApprovalWorkflowMachine(None, _Handlers())  # a new one: in submitted too
    assert read["legal_events"] == [tool.for_mcp() for tool in reference.tools()]
    assert read["legal_events"][0]["inputSchema"]["required"] == ["valid"]
    assert (read["history"], read["pending_timers"]) == ([], {})
    assert read["active_states"] == ["submitted"]
    assert "context" not in read and created["instance"]["revision"] == read["revision"] == 1


def test_send_applies_once_saves_and_reports_the_new_legal_events(
    client: SyncClient, store: SqliteStore
) -> None:
    _created(client, "t-send")
    sent = client.ok(
        "send_event",
        {"instance_id": "t-send", "event": "VALIDATED", "arguments": {"valid": True},
         "idempotency_key": "review-1"},
    )  # fmt: skip
    assert (sent["applied"], sent["event_id"]) == (True, 1)
    instance = sent["instance"]
    assert instance["state"] == "reviewing"
    assert [event["name"] for event in instance["legal_events"]] == ["APPROVE", "REJECT", "TIMEOUT"]
    assert list(instance["pending_timers"]) == ["after.reviewing.5m"]
    assert instance["history"][-1]["event"] == "VALIDATED"
    stored = store.load("t-send") or {}
    assert (stored["state"], stored["total_transitions"]) == ("reviewing", 1)
    again = client.ok(
        "send_event",
        {"instance_id": "t-send", "event": "VALIDATED", "arguments": {"valid": True},
         "idempotency_key": "review-1"},
    )  # fmt: skip
    assert (again["applied"], again["event_id"]) == (False, 1)
    assert (store.load("t-send") or {})["revision"] == stored["revision"]


def test_an_illegal_event_is_an_error_naming_the_legal_ones_and_changes_nothing(
    client: SyncClient, store: SqliteStore
) -> None:
    _created(client, "t-illegal")
    before = store.load("t-illegal")
    refused = client.error("send_event", {"instance_id": "t-illegal", "event": "APPROVE"})
    assert refused["error"] == "illegal_event"
    assert "VALIDATED" in refused["message"] and "TIMEOUT" in refused["message"]
    assert [event["name"] for event in refused["legal_events"]] == ["VALIDATED", "TIMEOUT"]
    assert store.load("t-illegal") == before


def test_a_bad_payload_is_a_schema_error_and_writes_nothing(
    client: SyncClient, store: SqliteStore
) -> None:
    _created(client, "t-payload")
    before = store.load("t-payload")
    for arguments, field in [
        ({"valid": "yes"}, ["valid"]),
        ({}, ["valid"]),
        ({"valid": True, "errors": [1]}, ["errors"]),
        ({"valid": True, "approver": "me"}, ["approver"]),
    ]:
        refused = client.error(
            "send_event",
            {"instance_id": "t-payload", "event": "VALIDATED", "arguments": arguments},
        )
        assert (refused["error"], refused["field"][:1]) == ("invalid_payload", field), arguments
        assert refused["message"].startswith("payload of VALIDATED: ")
    assert store.load("t-payload") == before


@pytest.mark.parametrize("event", ["after.reviewing.5m", "AFTER_REVIEWING_5M"])
def test_an_internal_event_is_refused_by_name_and_by_value(
    client: SyncClient, store: SqliteStore, event: str
) -> None:
    instance_id = f"t-internal-{event.lower().replace('.', '-')}"
    _reviewing(client, instance_id)  # where the timer's event would take a transition
    before = store.load(instance_id)
    refused = client.error("send_event", {"instance_id": instance_id, "event": event})
    assert refused["error"] == "unknown_event"
    assert "internal event" in refused["message"]
    assert store.load(instance_id) == before


def test_unknown_instances_tools_and_arguments_are_tool_errors(client: SyncClient) -> None:
    from mcp import MCPError  # imported where used: see tests.mcp.client

    _created(client, "t-args")
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("read_instance", {"instance_id": "t-nobody"}, "unknown_instance"),
        ("read_instance", {"instance_id": "outside-prefix"}, "unknown_instance"),
        ("read_instance", {}, "invalid_arguments"),
        ("read_instance", {"instance_id": 7}, "invalid_arguments"),
        ("send_event", {"instance_id": "t-args", "event": "VALIDATED", "extra": 1},
         "invalid_arguments"),
        ("send_event", {"instance_id": "t-args", "event": "NOPE"}, "unknown_event"),
        ("send_event", {"instance_id": "t-args", "event": "TIMEOUT", "idempotency_key": ""},
         "invalid_arguments"),
        ("create_instance", {"machine": "Door"}, "invalid_arguments"),
        ("create_instance", {"machine": "ApprovalWorkflow", "instance_id": "x-1"},
         "invalid_instance_id"),
    ]  # fmt: skip
    for name, arguments, kind in cases:
        assert client.error(name, arguments)["error"] == kind, (name, arguments)
    with pytest.raises(MCPError, match="no tool 'delete_instance' here"):  # a protocol error
        client.call("delete_instance", {})


def test_creating_an_existing_instance_returns_it(client: SyncClient) -> None:
    _created(client, "t-twice")
    again = client.ok("create_instance", {"machine": "ApprovalWorkflow", "instance_id": "t-twice"})
    assert (again["created"], again["instance"]["instance_id"]) == (False, "t-twice")


def test_resources_are_the_docs_page_the_diagram_and_each_instances_history(
    client: SyncClient, tmp_path: Path
) -> None:
    resources = client.portal.call(client.client.list_resources).resources
    assert {(str(r.uri), r.mime_type) for r in resources} == {
        ("statewright://machines/ApprovalWorkflow/diagram", "text/vnd.mermaid"),
        ("statewright://machines/ApprovalWorkflow/docs", "text/markdown"),
    }
    docs = _read(client, "statewright://machines/ApprovalWorkflow/docs")
    assert docs == (REPO / "docs" / "machines" / "approval_workflow.md").read_text(encoding="utf-8")
    diagram = _read(client, "statewright://machines/ApprovalWorkflow/diagram")
    drawn = tmp_path / "approval.mmd"  # what `statewright diagram` draws
    assert run_cli(["diagram", "spec/approval_workflow.toml", "-o", str(drawn)], cwd=REPO).code == 0
    assert diagram == drawn.read_text(encoding="utf-8")
    templates = client.portal.call(client.client.list_resource_templates).resource_templates
    assert [t.uri_template for t in templates] == ["statewright://instances/{instance_id}/history"]
    _reviewing(client, "t-history")
    history = json.loads(_read(client, "statewright://instances/t-history/history"))
    assert history == client.ok("read_instance", {"instance_id": "t-history"})["history"]
    assert [record["event"] for record in history] == ["VALIDATED"]


def _read(client: SyncClient, uri: str) -> str:
    from mcp_types import TextResourceContents

    contents = client.portal.call(client.client.read_resource, uri).contents
    assert isinstance(contents[0], TextResourceContents)
    return contents[0].text


class _Handlers:
    """Handlers that are never called (the reference machine only answers ``tools()``)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *arguments: None

"""``statewright mcp`` on the throwaway PostgreSQL server (tests/postgres_server.py): two clients,
each with a server of its own, race on one instance; an illegal event and a bad payload change
nothing; every key applies once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import pytest
from statewright import open_store

from tests.mcp.client import sdk_client, server_parameters
from tests.runtime.store_kinds import postgres_schema_url

if TYPE_CHECKING:
    from mcp import Client

pytestmark = pytest.mark.slow

PATIENT = (
    "--allow-create",
    "--context",
    "tests.mcp.hosts:patient_context",
    "--data",
    "tests.mcp.hosts:patient_data",
)


async def _answer(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(name, arguments)
    return result.is_error, result.structured_content


async def _send(client: Client, event: str, arguments: Any, key: str | None = None) -> Any:
    call = {"instance_id": "pg", "event": event, "arguments": arguments}
    error, answer = await _answer(
        client, "send_event", call | ({"idempotency_key": key} if key else {})
    )
    return answer if not error else ("error", answer["error"])


def test_two_clients_on_postgresql_lose_nothing_and_refuse_without_writing(
    postgres_url: str,
) -> None:
    url = postgres_schema_url(postgres_url)
    per_client = 10
    applied: dict[str, int] = {}

    async def burst(client: Client, name: str) -> None:
        for index in range(per_client):
            key = f"{name}{index}"
            for _ in range(2):  # the second one is a retry: not applied again
                answer = await _send(client, "APPLY_RESULT", {"success": False}, key)
                assert answer["event_id"] == applied.setdefault(key, answer["event_id"])

    async def scenario() -> None:
        with anyio.fail_after(300):
            async with (
                sdk_client(server_parameters(url, *PATIENT)) as first,
                sdk_client(server_parameters(url, *PATIENT)) as second,
            ):
                create = {"machine": "ApprovalWorkflow", "instance_id": "pg"}
                assert (await _answer(first, "create_instance", create))[0] is False
                assert await _send(second, "APPROVE", {}) == ("error", "illegal_event")
                refused = await _send(second, "VALIDATED", {"valid": 1})
                assert refused == ("error", "invalid_payload")
                with open_store(url) as store:  # the refusals wrote nothing
                    assert (store.load("pg") or {})["revision"] == 1
                assert (await _send(first, "VALIDATED", {"valid": True}))["event_id"] == 1
                assert (await _send(first, "APPROVE", {}))["event_id"] == 2
                async with anyio.create_task_group() as group:
                    group.start_soon(burst, first, "a")
                    group.start_soon(burst, second, "b")

    anyio.run(scenario)
    assert sorted(applied.values()) == list(range(3, 3 + 2 * per_client))
    with open_store(url) as store:
        stored = store.load("pg") or {}
    assert stored["total_transitions"] == 2 + 2 * per_client
    assert stored["data"]["attempt"] == 2 * per_client

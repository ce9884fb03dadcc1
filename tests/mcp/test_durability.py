"""Two clients at once and a server killed mid-run: nothing lost, nothing applied twice.

Each client starts a server of its own (as two desktop clients would), both on one SQLite file,
so their writes to one instance race through the store's compare-and-swap. The instance is in
``applying`` with retries that never run out (:func:`tests.mcp.hosts.patient_data`), where
``APPLY_RESULT`` with ``success: false`` is always legal and counts one attempt in the data:
the stored attempt count is then exactly the number of events applied.
"""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import pytest
from statewright import SqliteStore, open_store

from tests.mcp.client import sdk_client, server_parameters

if TYPE_CHECKING:
    from mcp import Client

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals"),
]

T = TypeVar("T")
PATIENT = (
    "--allow-create",
    "--context",
    "tests.mcp.hosts:patient_context",
    "--data",
    "tests.mcp.hosts:patient_data",
)
#: Events that bring a new instance to ``applying``.
SETUP = [("VALIDATED", {"valid": True}), ("APPROVE", {"approver": "ops"})]
FAILED = {"success": False, "error": "HTTP 503"}


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.structured_content
    answer: dict[str, Any] = result.structured_content
    return answer


async def _applying(client: Client, instance_id: str) -> None:
    await _call(
        client, "create_instance", {"machine": "ApprovalWorkflow", "instance_id": instance_id}
    )
    for event, arguments in SETUP:
        await _call(
            client,
            "send_event",
            {"instance_id": instance_id, "event": event, "arguments": arguments},
        )


def _failed_result(instance_id: str, key: str) -> dict[str, Any]:
    return {"instance_id": instance_id, "event": "APPLY_RESULT", "arguments": FAILED,
            "idempotency_key": key}  # fmt: skip


def _check_stored(store_url: str, instance_id: str, events: int) -> None:
    """The instance holds every event once: its count, its attempts and its history's ids."""
    with open_store(store_url) as store:
        stored = store.load(instance_id) or {}
    assert stored["total_transitions"] == len(SETUP) + events
    assert stored["data"]["attempt"] == events
    ids = [record["event_id"] for record in stored["history"]]
    assert ids == list(range(1, len(SETUP) + events + 1))


def test_two_clients_sending_to_one_instance_lose_nothing_and_apply_nothing_twice(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    per_client = 25

    async def scenario() -> dict[str, int]:
        async with (
            sdk_client(server_parameters(url, *PATIENT)) as first,
            sdk_client(server_parameters(url, *PATIENT)) as second,
        ):
            await _applying(first, "shared")
            applied: dict[str, int] = {}

            async def burst(client: Client, name: str) -> None:
                for index in range(per_client):
                    key = f"{name}-{index}"
                    answer = await _call(client, "send_event", _failed_result("shared", key))
                    assert answer["applied"] is True
                    applied[key] = answer["event_id"]

            async with anyio.create_task_group() as group:
                group.start_soon(burst, first, "first")
                group.start_soon(burst, second, "second")
            # Every key again, through the other server: each one is known, none applied again.
            for key, event_id in applied.items():
                other = second if key.startswith("first") else first
                answer = await _call(other, "send_event", _failed_result("shared", key))
                assert (answer["applied"], answer["event_id"]) == (False, event_id)
            return applied

    applied = _run(scenario)
    events = 2 * per_client
    assert sorted(applied.values()) == list(range(len(SETUP) + 1, len(SETUP) + events + 1))
    _check_stored(url, "shared", events)


def test_a_server_killed_mid_run_loses_nothing_and_a_resent_call_applies_once(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'restart.sqlite'}"
    pid_file = tmp_path / "server.pid"
    total, kill_at = 30, 10

    async def first_server() -> int:
        """Sends until the server is killed during a call; returns how many were answered."""
        answered = 0
        try:
            async with sdk_client(server_parameters(url, *PATIENT, pid_file=pid_file)) as client:
                await _applying(client, "restarted")
                for index in range(total):
                    if index == kill_at:  # kill it while this call is on its way or running
                        await anyio.sleep(0)
                        async with anyio.create_task_group() as group:
                            group.start_soon(_kill_soon, int(pid_file.read_text()))
                            await _call(
                                client, "send_event", _failed_result("restarted", f"k{index}")
                            )
                    else:
                        await _call(client, "send_event", _failed_result("restarted", f"k{index}"))
                    answered = index + 1
        except Exception:  # the connection dies with the server: expected here
            pass
        return answered

    async def second_server(resume_at: int) -> None:
        """The client starts the server again and resends from the first unanswered call."""
        async with sdk_client(server_parameters(url, *PATIENT)) as client:
            for index in range(resume_at, total):
                answer = await _call(client, "send_event", _failed_result("restarted", f"k{index}"))
                assert answer["applied"] is True or index == resume_at, answer
            again = await _call(client, "send_event", _failed_result("restarted", "k0"))
            assert (again["applied"], again["event_id"]) == (False, len(SETUP) + 1)

    answered = _run(first_server)
    assert kill_at <= answered < total  # the kill landed mid-run
    with SqliteStore(tmp_path / "restart.sqlite") as store:  # every answered call is stored
        assert (store.load("restarted") or {})["total_transitions"] >= len(SETUP) + answered
    _run(second_server, answered)
    _check_stored(url, "restarted", total)


def _run(function: Callable[..., Awaitable[T]], *arguments: Any) -> T:
    """``function(*arguments)`` on an event loop, failing after five minutes (never hanging)."""

    async def bounded() -> T:
        with anyio.fail_after(300):
            return await function(*arguments)

    return anyio.run(bounded)


async def _kill_soon(pid: int) -> None:
    await anyio.sleep(random.uniform(0, 0.02))
    os.kill(pid, signal.SIGKILL)

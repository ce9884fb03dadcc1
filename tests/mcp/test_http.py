"""``statewright mcp --transport http``: streamable HTTP on 127.0.0.1, reached by the SDK's own
client by URL, with the handshake era (sessions) and the 2026-07-28 one (no session)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from tests.conftest import REPO
from tests.mcp.client import MACHINE, sdk_client

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("http") / "http.sqlite"
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "statewright_compiler", "mcp", "--transport", "http",
         "--port", str(port), "--store", f"sqlite:///{database}", "--allow-create",
         "--machine", MACHINE, "--path", ".", "--path", "examples",
         "--handlers", "tests.mcp.hosts:handlers", "--context", "tests.mcp.hosts:patient_context",
         "--data", "tests.mcp.hosts:patient_data"],
        cwd=REPO,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, "the server exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_streamable_http_serves_the_same_tools_and_boundary(url: str, mode: str) -> None:
    instance_id = f"over-http-{mode}"

    async def scenario() -> None:
        with anyio.fail_after(120):
            async with sdk_client(url, mode=mode) as client:
                tools = await client.list_tools()
                assert [tool.name for tool in tools.tools][-1] == "send_event"
                create = {"machine": "ApprovalWorkflow", "instance_id": instance_id}
                assert (await client.call_tool("create_instance", create)).is_error is False
                call: dict[str, Any] = {
                    "instance_id": instance_id,
                    "event": "VALIDATED",
                    "arguments": {"valid": True},
                    "idempotency_key": "v",
                }
                first = await client.call_tool("send_event", call)
                again = await client.call_tool("send_event", call)
                applied = [result.structured_content["applied"] for result in (first, again)]
                assert applied == [True, False]
                plain = {"instance_id": instance_id, "event": "REJECT", "arguments": {}}
                assert (await client.call_tool("send_event", plain)).is_error is False
                late = await client.call_tool("send_event", plain)
                assert late.is_error and late.structured_content["error"] == "illegal_event"

    anyio.run(scenario)


def test_the_http_server_listens_on_the_loopback_interface_only(url: str) -> None:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    outward = _outward_address()
    if outward is None:
        pytest.skip("this host has no interface but the loopback one")
    with pytest.raises(OSError):
        socket.create_connection((outward, port), timeout=2).close()
    socket.create_connection(("127.0.0.1", port), timeout=2).close()  # control


def _outward_address() -> str | None:
    """The address this host sends from to another network (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address.startswith("127.") else address

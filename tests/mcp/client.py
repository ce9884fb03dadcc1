"""Starting ``statewright mcp`` as a subprocess and talking to it with the MCP SDK's own client.

:func:`server_parameters` is the command a desktop client would run (here the interpreter of the
test run, ``-m statewright_compiler mcp``, in the repository, the approval workflow served with
the handlers of :mod:`tests.mcp.hosts`), optionally through ``sh`` so that the test learns the
server's process id and can kill it. :class:`SyncClient` is one client connection held open
across tests by an anyio blocking portal, so that a module's tests share one server.

The MCP SDK is imported where it is used, not at import: importing it (pydantic models by the
hundred) costs ~1.7 s, which every pytest process collecting the suite paid, the fast loop's
workers and the other interpreters' runs included, though only the MCP tests use it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.conftest import REPO

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal
    from mcp import Client, StdioServerParameters
    from mcp_types import CallToolResult

MACHINE = "approval_workflow:ApprovalWorkflowMachine"


def sdk_client(target: StdioServerParameters | str, **options: Any) -> Client:
    """The SDK's ``Client`` for ``target`` (server parameters, or a URL), imported now."""
    from mcp import Client

    return Client(target, **options)


def server_parameters(
    store_url: str, *options: str, pid_file: Path | None = None
) -> StdioServerParameters:
    """``statewright mcp`` on ``store_url`` serving the approval workflow, plus ``options``;
    with ``pid_file``, started through ``sh``, which writes its pid there and execs it."""
    command = [sys.executable, "-m", "statewright_compiler", "mcp", "--store", store_url,
               "--machine", MACHINE, "--path", ".", "--path", "examples",
               "--handlers", "tests.mcp.hosts:handlers", *options]  # fmt: skip
    if pid_file is not None:
        command = ["sh", "-c", f'echo $$ > "{pid_file}"; exec "$@"', "sh", *command]
    # What the SDK passes by default (HOME, PATH, ...) and the interpreter's own path settings.
    environment = {name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ}
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=command[0], args=command[1:], cwd=REPO, env=environment or None
    )


def answer(result: CallToolResult) -> dict[str, Any]:
    """A tool result's structured content, checked to agree with its JSON text."""
    from mcp_types import TextContent

    structured: dict[str, Any] = result.structured_content
    text = result.content[0]
    assert isinstance(text, TextContent)
    if not result.is_error:
        assert json.loads(text.text) == structured
    return structured


class SyncClient:
    """One connection to a server, called from synchronous tests."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal = portal
        self.client = client

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        result: CallToolResult = self.portal.call(self.client.call_tool, name, arguments)
        return result

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, arguments)
        assert not result.is_error, result.structured_content
        return answer(result)

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, arguments)
        assert result.is_error, result.structured_content
        return answer(result)


@contextmanager
def connected(parameters: StdioServerParameters) -> Iterator[SyncClient]:
    from anyio.from_thread import start_blocking_portal

    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(sdk_client(parameters)) as client,
    ):
        yield SyncClient(portal, client)

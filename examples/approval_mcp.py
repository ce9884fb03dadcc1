"""The approval workflow (seed 003) served over MCP: what `statewright mcp` imports, and a
scripted "model" that drives the workflow through the server the way an agent would.

`statewright mcp` imports the machine class and the two factories named here, and nothing else:

    statewright mcp --store sqlite:approvals.db --path examples --allow-create \\
        --machine approval_workflow:ApprovalWorkflowMachine \\
        --handlers approval_mcp:handlers --context approval_mcp:new_context

Run as a script (after `make setup`), it starts that server over stdio with the MCP SDK's own
client, as a desktop client would, and makes the calls a model makes: create a request, read
which events are legal, try an illegal one (an error naming the legal ones, nothing changed),
then validate, approve and report the result.
Run: .venv/bin/python examples/approval_mcp.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from approval_demo import Engine, Request

__all__ = ["handlers", "new_context"]


def handlers(machine_class: type) -> Engine:
    """The handlers factory: one handlers object per served machine class."""
    return Engine()


def new_context(machine_class: type) -> Request:
    """The context factory: what a new instance (create_instance) starts with."""
    return Request(change="raise the rate limit")


async def drive(store_url: str) -> None:
    """Call the server's tools as a model would, printing what it would read."""
    from mcp import Client, StdioServerParameters

    here = Path(__file__).resolve().parent
    # fmt: off
    arguments = [
        "-m", "statewright_compiler", "mcp", "--store", store_url, "--allow-create",
        "--path", str(here), "--machine", "approval_workflow:ApprovalWorkflowMachine",
        "--handlers", "approval_mcp:handlers", "--context", "approval_mcp:new_context",
    ]
    # fmt: on
    server = StdioServerParameters(command=sys.executable, args=arguments, cwd=here.parent)
    async with Client(server) as client:
        tools = await client.list_tools()
        print("tools:", ", ".join(tool.name for tool in tools.tools))

        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(name, arguments)
            answer: dict[str, Any] = result.structured_content
            print(f"{name}({json.dumps(arguments)}) ->", "error:" if result.is_error else "",
                  answer.get("message") or _short(answer))  # fmt: skip
            return answer

        created = await call("create_instance", {"machine": "ApprovalWorkflow"})
        instance_id = created["instance"]["instance_id"]
        await call("send_event", {"instance_id": instance_id, "event": "APPROVE"})
        await call(
            "send_event",
            {"instance_id": instance_id, "event": "VALIDATED", "arguments": {"valid": True}},
        )
        await call(
            "send_event",
            {"instance_id": instance_id, "event": "APPROVE",
             "arguments": {"approver": "ops-lead"}},
        )  # fmt: skip
        await call(
            "send_event",
            {"instance_id": instance_id, "event": "APPLY_RESULT",
             "arguments": {"success": True}},
        )  # fmt: skip


def _short(answer: dict[str, Any]) -> str:
    instance = answer.get("instance", answer)
    legal = [event if isinstance(event, str) else event["name"]
             for event in instance.get("legal_events", [])]  # fmt: skip
    return f"state {instance.get('state')}, final {instance.get('final')}, legal: {legal}"


if __name__ == "__main__":
    import anyio

    with tempfile.TemporaryDirectory() as folder:
        anyio.run(drive, f"sqlite:///{folder}/approvals.db")

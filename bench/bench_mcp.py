"""What a ``send_event`` tool call costs, against the same work done directly.

Both variants send ``APPLY_RESULT`` (``success: false``, a self-transition of the approval
workflow's ``applying`` state with retries that never run out) to an instance of their own in
ONE SQLite file (WAL, ``synchronous=FULL``: each save waits for an fsync), round by round,
interleaved, so that a burst of load on a shared host hits both alike; the ratio uses each
variant's median round:

* ``direct``: ``ApprovalWorkflowMachine.load(store, id, handlers)``, ``send``, ``save()``: what
  an application does per event without a server;
* ``tool call``: ``send_event`` through the MCP SDK's own client to ``statewright mcp`` running
  as a subprocess over stdio (what a desktop client does), which loads, sends by name with the
  payload checked against the spec and an idempotency key, checkpoints with the
  compare-and-swap, and answers with the instance's new state and legal events.

    .venv/bin/python bench/bench_mcp.py [--calls N] [--rounds R] [--synchronous NORMAL]

``--synchronous NORMAL`` takes the fsync out of every save (still crash-safe for process
crashes), so that what the server itself adds weighs more in the ratio.

Target: a tool call within 3x of ``load + send + save`` done directly.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "generated")]

from approval_workflow import ApprovalWorkflowMachine  # noqa: E402
from statewright import MachineOptions, SqliteStore  # noqa: E402

from tests.mcp.hosts import handlers, patient_context  # noqa: E402

TARGET = 3.0
FAILED = {"success": False, "error": "HTTP 503"}


def _applying(store: SqliteStore, instance_id: str) -> None:
    options = MachineOptions(store=store, instance_id=instance_id)
    cls = ApprovalWorkflowMachine
    machine = cls(patient_context(cls), handlers(cls), options=options)
    machine.validated(valid=True)
    machine.approve(approver="bench")
    machine.save()


def _direct_round(store: SqliteStore, engine: Any, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        machine = ApprovalWorkflowMachine.load(store, "direct", engine)
        machine.apply_result(success=False, error="HTTP 503")
        machine.save()
    return (time.perf_counter() - start) / calls


async def _tool_round(client: Client, calls: int, round_number: int) -> float:
    start = time.perf_counter()
    for index in range(calls):
        result = await client.call_tool(
            "send_event",
            {"instance_id": "served", "event": "APPLY_RESULT", "arguments": FAILED,
             "idempotency_key": f"r{round_number}-{index}"},
        )  # fmt: skip
        assert not result.is_error and result.structured_content["applied"], result
    return (time.perf_counter() - start) / calls


async def measure(
    database: Path, calls: int, rounds: int, synchronous: Literal["FULL", "NORMAL"]
) -> tuple[list[float], list[float]]:
    url = f"sqlite:///{database}?synchronous={synchronous}"
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "statewright_compiler", "mcp", "--store", url,
              "--machine", "approval_workflow:ApprovalWorkflowMachine", "--path", ".",
              "--path", "examples", "--handlers", "tests.mcp.hosts:handlers"],
        cwd=ROOT,
    )  # fmt: skip
    direct: list[float] = []
    tool: list[float] = []
    engine = handlers(ApprovalWorkflowMachine)
    with SqliteStore(database, synchronous=synchronous) as store:
        _applying(store, "direct")
        _applying(store, "served")
        async with Client(server) as client:
            await _tool_round(client, 5, -1)  # warm up: imports, the first load
            _direct_round(store, engine, 5)
            for round_number in range(rounds):
                direct.append(_direct_round(store, engine, calls))
                tool.append(await _tool_round(client, calls, round_number))
    return direct, tool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        direct, tool = anyio.run(measure, Path(folder) / "bench.sqlite", arguments.calls,
                                 arguments.rounds, arguments.synchronous)  # fmt: skip
    print(f"bench_mcp: Python {platform.python_version()}, SQLite "
          f"synchronous={arguments.synchronous}, "
          f"{arguments.rounds} rounds of {arguments.calls} calls")  # fmt: skip
    for name, times in (("direct load + send + save", direct), ("send_event tool call", tool)):
        print(f"  {name:<28} median {statistics.median(times) * 1e3:7.3f} ms  "
              f"best {min(times) * 1e3:7.3f} ms")  # fmt: skip
    ratio = statistics.median(tool) / statistics.median(direct)
    verdict = "ok" if ratio <= TARGET else "over the target"
    print(f"  ratio (tool call / direct): {ratio:.2f}x (target <= {TARGET:.0f}x: {verdict})")


if __name__ == "__main__":
    main()

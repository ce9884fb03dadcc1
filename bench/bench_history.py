"""What a machine's history costs: memory per retained record, and the machine it is kept in.

The machine is the seed-000-like one of ``bench_send.py`` (tests/runtime/machines.py) with
default options (history on, 1,000 records kept). Memory is what ``tracemalloc`` sees allocated
while the machine takes ``--records`` events of its cycle (none with a payload), divided by
their number: the records, their timestamps and the deque's blocks, nothing else grows. Time is
the best of several interleaved rounds: building the machine, and one ``send`` with history on.

    python bench/bench_history.py [--records N] [--rounds R] [--json FILE]

Target (issue #22): at most 96 bytes per record (it was 160: 64 of them a record's own empty
payload dict), with building a machine and ``send`` not slower.
"""

from __future__ import annotations

import argparse
import gc
import platform
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT)]

from bench import json_results  # noqa: E402
from bench.bench_send import CYCLE, PREFIX  # noqa: E402
from tests.runtime.machines import PlainTaskMachine, TaskEvent  # noqa: E402

RECORD = "history: bytes per record (empty payloads)"
BUILD = "building a machine (default options)"
SEND = "send, history on (default)"


def events(n: int) -> list[TaskEvent]:
    """``n`` events a fresh machine accepts one after another."""
    stream = PREFIX + CYCLE * (n // len(CYCLE) + 1)
    return stream[:n]


def bytes_per_record(n: int) -> float:
    """Bytes allocated per record while a fresh machine records ``n`` transitions."""
    machine = PlainTaskMachine(None)
    send = machine.send
    stream = events(n)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for event in stream:
        send(event)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(machine.history) == min(n, 1000) and machine.total_transitions == n
    return (after - before) / n


def build_time(n: int) -> float:
    gc.collect()
    start = time.perf_counter()
    for _ in range(n):
        PlainTaskMachine(None)
    return (time.perf_counter() - start) / n


def send_time(n: int) -> float:
    machine = PlainTaskMachine(None)
    for event in PREFIX:
        machine.send(event)
    send = machine.send
    stream = CYCLE * (n // len(CYCLE))
    gc.collect()
    start = time.perf_counter()
    for event in stream:
        send(event)
    return (time.perf_counter() - start) / len(stream)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000, help="records to measure")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds; best counts")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    arguments = parser.parse_args()
    per_record = bytes_per_record(arguments.records)
    build = send = float("inf")
    for _ in range(arguments.rounds):
        build = min(build, build_time(2_000))
        send = min(send, send_time(10_000))
    print(
        f"{platform.python_implementation()} {platform.python_version()}: "
        f"{arguments.records} records; times best of {arguments.rounds} rounds"
    )
    print(f"{RECORD:50} {per_record:8.1f} B   (target <= 96 B)")
    print(f"{BUILD:50} {build * 1e9:8.1f} ns")
    print(f"{SEND:50} {send * 1e9:8.1f} ns")
    if arguments.json is not None:
        rows = [
            # The target is on the value itself (bytes), not on a ratio: no row to divide by.
            json_results.row(RECORD, per_record, "B", target=96.0, target_op="<="),
            json_results.row(BUILD, build * 1e9, "ns"),
            json_results.row(SEND, send * 1e9, "ns"),
        ]
        settings = {"records": str(arguments.records), "rounds": str(arguments.rounds)}
        json_results.write(arguments.json, Path(__file__).stem, settings, rows)


if __name__ == "__main__":
    main()

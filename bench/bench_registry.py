"""What registering machines costs as the registry grows: 10,000 vs 100,000 registrations.

Registering used to count every active machine on each call (20,000 registrations took 16 s,
100,000 did not finish in two minutes). Each round registers pre-built machines (their
construction is not timed) into a new registry, all of them active, with ``max_active`` at
1,000 (so the registry does count them; its warnings go to a disabled logger) and without a
limit. Rounds of the two sizes are interleaved, timed in this process's CPU time (a shared
host's other processes do not count), with the collector frozen; the ratio uses each size's
median round.

Both sizes read their machines from one population of 100,000 (the 10,000 are every tenth), so
both find them equally far from the processor: 10,000 machines packed together would fit in the
caches and 100,000 would not, which alone made a plain ``dict`` of them 15-20x slower to fill
on a loaded 2-core host, and is no cost of the registry's. ``dict floor`` is such a plain
``dict`` filled with the same machines by id: the least any index of them can cost, printed for
comparison.

    PYTHONPATH=runtime python bench/bench_registry.py [--rounds R]

Target: 100,000 registrations within 12x the time of 10,000 (linear: 10x; the count on every
registration made it 100x).
"""

from __future__ import annotations

import argparse
import gc
import logging
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT)]

from statewright import MachineOptions, MachineRegistry  # noqa: E402

from bench.json_results import row, write  # noqa: E402
from tests.runtime.machines import PlainTaskMachine  # noqa: E402

SIZES = (10_000, 100_000)
TARGET = 12.0
QUIET = logging.getLogger("bench_registry.quiet")
QUIET.disabled = True

Variant = Callable[[list[PlainTaskMachine]], float]


def machines(count: int) -> list[PlainTaskMachine]:
    return [
        PlainTaskMachine(None, options=MachineOptions(instance_id=f"m{index}", history_limit=0))
        for index in range(count)
    ]


def registering(max_active: int | None) -> Variant:
    def run(built: list[PlainTaskMachine]) -> float:
        registry: MachineRegistry[PlainTaskMachine] = MachineRegistry(
            max_active=max_active, logger=QUIET
        )
        start = time.process_time()
        for machine in built:
            registry.register(machine)
        return time.process_time() - start

    return run


def dict_floor(built: list[PlainTaskMachine]) -> float:
    index: dict[str, PlainTaskMachine] = {}
    start = time.process_time()
    for machine in built:
        index[machine.instance_id] = machine
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    arguments = parser.parse_args()
    rows = []
    population = machines(SIZES[-1])
    built = {size: population[:: SIZES[-1] // size] for size in SIZES}
    gc.collect()
    gc.freeze()
    variants: dict[str, tuple[Variant, bool]] = {
        "max_active=1000": (registering(1_000), True),
        "max_active=None": (registering(None), True),
        "dict floor": (dict_floor, False),
    }
    ok = True
    print(f"CPython {platform.python_version()}: MachineRegistry.register, all machines active")
    for name, (variant, judged) in variants.items():
        seconds: dict[int, list[float]] = {size: [] for size in SIZES}
        for _ in range(arguments.rounds):
            for size in SIZES:
                seconds[size].append(variant(built[size]))
        small, large = (statistics.median(seconds[size]) for size in SIZES)
        ratio = large / small
        verdict = ""
        if judged:
            ok = ok and ratio <= TARGET
            verdict = f" (target <= {TARGET:g}: {'met' if ratio <= TARGET else 'NOT met'})"
        small_name, large_name = (f"{name}: register {size:,}" for size in SIZES)
        rows.append(row(small_name, small * 1e3, "ms"))
        rows.append(
            row(large_name, large * 1e3, "ms", against=small_name, ratio=ratio,
                target=TARGET if judged else None, target_op="<=" if judged else None)
        )  # fmt: skip
        print(
            f"  {name:16} {SIZES[0]:,} in {small * 1e3:6.1f} ms, {SIZES[1]:,} in "
            f"{large * 1e3:6.1f} ms: ratio {ratio:4.1f}{verdict}"
        )
    if arguments.json:
        write(arguments.json, "bench_registry", {"rounds": f"median of {arguments.rounds}"}, rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

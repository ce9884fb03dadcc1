"""What importing a generated module costs, next to importing the two popular libraries.

Every variant is a fresh interpreter (``sys.executable``) started as a subprocess, timed whole
(start-up to exit, no ``-X importtime``), so the figure is what a command-line tool or a worker
process pays. ``python -c pass`` is the floor and is subtracted. All variants run in every round,
interleaved, so a burst of load on a shared host hits all of them alike; the best round per
variant (the least disturbed) is the headline figure, the median is printed next to it.

A second, less noisy figure: the cumulative time ``-X importtime`` reports for the top-level
import line itself (best of the rounds); it leaves out interpreter start-up and teardown.

One more variant imports the module, builds its machine (default options, handlers that accept
everything), applies one event and reads the history: what a short-lived process that uses the
machine pays, including what the runtime imports on first use (options, logging, records).

    python bench/bench_import.py [--rounds R] [--module remem]

Children get the repository's ``runtime`` and ``generated`` folders on PYTHONPATH (the floor
too, so every child has the same ``sys.path``) and no other PYTHON* variables, so that
PYTHONDONTWRITEBYTECODE cannot make them compile from source; one untimed warm-up run each.
Peers (transitions, python-statemachine) are optional bench-only dependencies
(``pip install -e '.[bench]'``); missing ones are skipped.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.json_results import row, write  # noqa: E402

FLOOR = "python -c pass (floor)"

#: Imports ``{module}``, builds its machine, applies the first event (in sorted order) that the
#: initial state accepts and reads the history.
RUN_ONE = """
import statewright, {module} as module
class Handlers:
    def __getattr__(self, name):
        return lambda context, payload: False
machine = next(
    value for value in vars(module).values()
    if isinstance(value, type) and issubclass(value, statewright.Machine)
    and value.__module__ == module.__name__
)(None, Handlers())
for event in sorted(machine.allowed_events()):
    try:
        machine.send(event)
        break
    except statewright.StatewrightError:
        pass
assert len(machine.history) == 1
"""


def child_env() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "runtime"), str(ROOT / "generated")])
    return env


def run_once(code: str, env: dict[str, str]) -> float:
    """Wall time of one fresh interpreter running ``code``, in milliseconds."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return (time.perf_counter() - start) * 1e3


def importtime_ms(module: str, env: dict[str, str]) -> float:
    """Cumulative time ``-X importtime`` reports for the top-level ``import module`` line."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    # "import time: <self us> | <cumulative us> | <name>", nested imports indented after "| ".
    for line in result.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2] == f" {module}":
            return int(parts[1]) / 1e3
    raise RuntimeError(f"no top-level line for {module} in -X importtime output")


def installed(module: str, env: dict[str, str]) -> bool:
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds; best counts")
    parser.add_argument("--module", default="remem", help="generated module to import")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    env = child_env()
    ours = {f"import {args.module} (generated)": args.module, "import statewright": "statewright"}
    peers: dict[str, str] = {}
    for module, dist in (("transitions", "transitions"), ("statemachine", "python-statemachine")):
        if installed(module, env):
            peers[f"import {module} ({dist})"] = module
        else:
            print(f"skipped {dist}: not installed (pip install -e '.[bench]')")
    imports = ours | peers
    runs = {f"import {args.module} + build + one event": RUN_ONE.format(module=args.module)}
    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}), a fresh "
        f"interpreter per run, {args.rounds} interleaved rounds; best and median wall time"
    )
    programs = {name: f"import {module}" for name, module in ours.items()} | runs
    programs |= {name: f"import {module}" for name, module in peers.items()}
    walls: dict[str, list[float]] = {FLOOR: [], **{name: [] for name in programs}}
    reported: dict[str, list[float]] = {name: [] for name in imports}
    for code in programs.values():  # warm-up: writes bytecode caches, fills the OS page cache
        run_once(code, env)
    for _ in range(args.rounds):
        walls[FLOOR].append(run_once("pass", env))
        for name, code in programs.items():
            walls[name].append(run_once(code, env))
            if name in imports:
                reported[name].append(importtime_ms(imports[name], env))
    best = {name: min(times) for name, times in walls.items()}
    over = {name: best[name] - best[FLOOR] for name in programs}
    header = (
        f"{'variant':42s} {'best ms':>8s} {'median':>8s} {'over floor':>11s} {'importtime':>11s}"
    )
    print(header)
    for name, times in walls.items():
        columns = f"{name:42s} {best[name]:8.1f} {statistics.median(times):8.1f}"
        if name in programs:
            columns += f" {over[name]:11.1f}"
        if name in imports:
            columns += f" {min(reported[name]):11.1f}"
        print(columns)
    for peer in peers:
        for mine in ours:
            ratio = over[mine] / over[peer] if over[peer] > 0 else float("inf")
            print(f"{mine} costs {ratio:.2f}x of {peer} (ms over floor)")
    if args.json:
        reference = next(iter(peers), None)  # transitions: the import target is against it
        rows = [row(FLOOR, best[FLOOR], "ms")]
        for name in [*peers, *ours, *runs]:
            against = reference if reference and name in ours else None
            share: float | None = (
                over[name] / over[against] if against and over[against] > 0 else None
            )
            rows.append(
                row(f"{name}, over the floor", over[name], "ms",
                    against=against and f"{against}, over the floor", ratio=share)
            )  # fmt: skip
        settings = {"module": args.module, "rounds": f"best of {args.rounds}"}
        write(args.json, "bench_import", settings, rows)


if __name__ == "__main__":
    main()

"""What the statechart engine costs per event, next to the flat machine, in one process.

The flat machine is the generated seed-000 module (``notebook_bcc_v2``). The chart is the same
spec with every state moved into one compound state ``workflow`` (so the same transitions, but
run by SCXML's algorithm: transition selection over ancestors, exit and entry sets, the
internal queue, an eventless check after every microstep). It is compiled into a temporary
folder by ``statewright generate``. Both are driven through ``dynamic.send`` by the same event
stream; each variant is timed several times, interleaved, and the best run is reported.

    python bench/bench_chart_send.py [--events N] [--rounds R]

No target: the figure says what nesting costs, and docs/performance.md records it.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT / "generated")]

import notebook_bcc_v2 as flat  # noqa: E402

#: A cycle from and back to behavior_running, and the events that lead there from idle.
CYCLE = ["START_ACTION", "COMPLETE_ACTION", "COMPLETE_BEHAVIOR", "NEXT_BEHAVIOR"]
PREFIX = ["START_WORKFLOW", "START_STEP", "START_BEHAVIOR"]


def chart_module(folder: Path) -> ModuleType:
    """The seed-000 spec with every state inside one compound state, generated and imported."""
    text = (ROOT / "spec" / "notebook_bcc_v2.toml").read_text(encoding="utf-8")
    text = text.replace('name = "NotebookBccV2"', 'name = "NotebookBccV2Chart"', 1)
    text = text.replace('initial = "idle"', 'initial = "workflow"', 1)
    text = re.sub(r"^(\[states\.\w+\])$", r'\1\nparent = "workflow"', text, flags=re.M)
    text += '\n[states.workflow]\ninitial = "idle"\n'
    spec = folder / "notebook_chart.toml"
    spec.write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "statewright_compiler", "generate", str(spec)]
    subprocess.run([*command, "-o", str(folder), "--no-docs"], check=True, capture_output=True)
    found = importlib.util.spec_from_file_location("notebook_chart", folder / "notebook_chart.py")
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def runner(machine_class: Any, event_type: Any, n: int) -> float:
    machine = machine_class(None)
    dispatch = machine.dynamic.send
    for name in PREFIX:
        dispatch(event_type[name])
    events = [event_type[name] for name in CYCLE] * max(1, n // len(CYCLE))
    start_state = machine.state
    gc.collect()
    start = time.perf_counter()
    for event in events:
        dispatch(event)
    elapsed = time.perf_counter() - start
    assert machine.state == start_state
    return elapsed / len(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=9)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        chart = chart_module(Path(folder))
    variants = {
        "flat machine: send": (flat.NotebookBccV2Machine, flat.NotebookBccV2Event),
        "chart (one compound state): send": (
            chart.NotebookBccV2ChartMachine,
            chart.NotebookBccV2ChartEvent,
        ),
    }
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(arguments.rounds):
        for name, (machine_class, event_type) in variants.items():
            best[name] = min(best[name], runner(machine_class, event_type, arguments.events))
    flat_ns = best["flat machine: send"] * 1e9
    print(f"CPython {platform.python_version()}: best of {arguments.rounds} rounds")
    print(f"{'variant':40} {'ns/event':>9} {'x flat':>7}")
    for name, seconds in best.items():
        print(f"{name:40} {seconds * 1e9:9.1f} {seconds * 1e9 / flat_ns:7.2f}")


if __name__ == "__main__":
    main()

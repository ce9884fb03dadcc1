"""The runtime against an earlier commit of itself: every entry point, a statechart event, the
import of a generated module, and each machine class's statewright MRO, before and after.

Two versions of one package cannot share a process, so each side runs in its own child
interpreter (the earlier commit's ``runtime/`` and ``generated/`` extracted with ``git archive``
into a temporary folder), the children alternating round by round; each child times every
variant against the same in-process floor (an inline dict-lookup loop) and the ratio after/before
of those per-floor figures is the headline (median over rounds), so a burst of load on a shared
host moves both sides alike. With ``--callgrind`` (valgrind installed) each variant is also
counted in machine instructions per event under ``valgrind --tool=callgrind``: a count does not
depend on what else the host is doing, so a 3% difference is real, not noise.

    python bench/bench_before_after.py [--before REF] [--events N] [--rounds R] [--callgrind]

Targets (issue "Shape for what comes next"): a generated machine's statewright MRO at most 4
classes for flat and chart machines; flat ``send``, typed methods, ``try_send`` and
``AsyncMachine.send`` within 1.03x of before; a chart event and the import of a generated module
not slower.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The last commit before the runtime was composed (one machine class holding an engine).
BEFORE = "29f52a7"
#: Variants with a ratio target: after/before at most this.
TARGETS = {
    "send": 1.03,
    "typed method": 1.03,
    "try_send": 1.03,
    "AsyncMachine.send": 1.03,
    "chart send": 1.0,
    "import remem": 1.0,
}

#: The child: times each variant (or, with a variant name, runs just that one, for callgrind)
#: and prints JSON. Runs against whichever runtime PYTHONPATH puts first.
CHILD = r"""
import asyncio, gc, importlib.util, json, sys, time
mode, n, chart_folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
import notebook_bcc_v2 as flat
spec = importlib.util.spec_from_file_location("notebook_chart", chart_folder + "/notebook_chart.py")
chart = importlib.util.module_from_spec(spec); spec.loader.exec_module(chart)
import statewright
CYCLE = ["START_ACTION", "COMPLETE_ACTION", "COMPLETE_BEHAVIOR", "NEXT_BEHAVIOR"]
PREFIX = ["START_WORKFLOW", "START_STEP", "START_BEHAVIOR"]

E = flat.NotebookBccV2Event

def machine():
    m = flat.NotebookBccV2Machine(None)
    for event in PREFIX:
        m.send(E[event])
    return m

events = [E[name] for name in CYCLE] * max(1, n // 4)

def floor(k):
    table = {s: {e: s for e in E} for s in flat.NotebookBccV2State}
    state, start = flat.NotebookBccV2State.BEHAVIOR_RUNNING, time.perf_counter()
    for event in events[:k]:
        state = table[state].get(event, state)
    return time.perf_counter() - start

def send(k):
    m = machine(); f = m.send; start = time.perf_counter()
    for event in events[:k]:
        f(event)
    return time.perf_counter() - start

def try_send(k):
    m = machine(); f = m.try_send; start = time.perf_counter()
    for event in events[:k]:
        f(event)
    return time.perf_counter() - start

def typed(k):
    m = machine()
    calls = [getattr(m, name.lower()) for name in CYCLE] * max(1, k // 4)
    start = time.perf_counter()
    for call in calls[:k]:
        call()
    return time.perf_counter() - start

def async_send(k):
    m = flat.NotebookBccV2AsyncMachine(None)
    async def run():
        for event in PREFIX:
            await m.send(E[event])
        f = m.send; start = time.perf_counter()
        for event in events[:k]:
            await f(event)
        return time.perf_counter() - start
    return asyncio.run(run())

def chart_send(k):
    m = chart.NotebookBccV2ChartMachine(None)
    CE = chart.NotebookBccV2ChartEvent
    for event in PREFIX:
        m.send(CE[event])
    f = m.send; chart_events = [CE[name] for name in CYCLE] * max(1, k // 4)
    start = time.perf_counter()
    for event in chart_events[:k]:
        f(event)
    return time.perf_counter() - start

VARIANTS = {"floor": floor, "send": send, "typed method": typed, "try_send": try_send,
            "AsyncMachine.send": async_send, "chart send": chart_send}
own = lambda cls: sum(1 for c in cls.__mro__ if c.__module__.startswith("statewright"))
mro = {"flat": own(flat.NotebookBccV2Machine), "chart": own(chart.NotebookBccV2ChartMachine)}
if mode == "time":
    best = {}
    for _ in range(3):
        for name, run in VARIANTS.items():
            gc.collect()
            best[name] = min(best.get(name, 1e9), run(len(events)) / len(events))
    print(json.dumps({"ns": {k: v * 1e9 for k, v in best.items()}, "mro": mro}))
elif mode != "none":
    VARIANTS[mode](n)
"""


def extract(ref: str, folder: Path) -> Path:
    """The runtime, generated modules, compiler and specs of ``ref``, as files under ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "runtime", "generated", "generator", "spec"],
        check=True,
        capture_output=True,
    ).stdout
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def chart_module(tree: Path, folder: Path, remem: Path) -> None:
    """bench_chart_send's chart (seed-000 with every state in one compound state), generated by
    ``tree``'s own compiler from its own spec, for its own runtime (whose API level it asks);
    and ReMem from the spec ``remem`` (the same file for both sides: the seed's own spec has
    changed since, so its generated module is not the same machine)."""
    text = (tree / "spec" / "notebook_bcc_v2.toml").read_text(encoding="utf-8")
    text = text.replace('name = "NotebookBccV2"', 'name = "NotebookBccV2Chart"', 1)
    text = text.replace('initial = "idle"', 'initial = "workflow"', 1)
    text = re.sub(r"^(\[states\.\w+\])$", r'\1\nparent = "workflow"', text, flags=re.M)
    text += '\n[states.workflow]\ninitial = "idle"\n'
    folder.mkdir(parents=True)
    spec = folder / "notebook_chart.toml"
    spec.write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "statewright_compiler", "generate", str(spec)]
    env = environment(tree)
    env["PYTHONPATH"] = os.pathsep.join([str(tree / "generator"), str(tree / "runtime")])
    for source in (spec, remem):
        subprocess.run(
            [*command[:-1], str(source), "-o", str(folder), "--no-docs"],
            check=True,
            capture_output=True,
            env=env,
        )


def environment(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONHASHSEED"] = "0"  # the same dict probes in every run: callgrind counts repeat
    env["PYTHONPATH"] = os.pathsep.join([str(tree / "runtime"), str(tree / "generated")])
    return env


def child(tree: Path, chart: Path, mode: str, events: int, prefix: list[str]) -> str:
    command = [*prefix, sys.executable, "-c", CHILD, mode, str(events), str(chart)]
    result = subprocess.run(command, env=environment(tree), capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(result.stderr)
    return result.stdout


def instructions(tree: Path, chart: Path, mode: str, events: int, folder: Path) -> int:
    """Machine instructions of one child run under callgrind."""
    out = folder / "callgrind.out"
    prefix = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    child(tree, chart, mode, events, prefix)
    text = out.read_text()
    out.unlink()
    return int(re.search(r"^(?:summary|totals): (\d+)", text, flags=re.M).group(1))  # type: ignore[union-attr]


def callgrind(
    before: Path, after: Path, charts: dict[Path, Path], events: int, folder: Path
) -> None:
    print(f"\ninstructions per event under callgrind ({events} events, minus a 0-event run)")
    print(f"{'variant':<22}{'before':>12}{'after':>12}{'after/before':>14}  target")
    for name in [v for v in TARGETS if v != "import remem"]:
        per = []
        for tree in (before, after):
            total = instructions(tree, charts[tree], name, events, folder)
            empty = instructions(tree, charts[tree], name, 0, folder)
            per.append((total - empty) / events)
        verdict = _verdict(name, per[1] / per[0])
        print(f"{name:<22}{per[0]:>12.0f}{per[1]:>12.0f}{per[1] / per[0]:>14.3f}  {verdict}")
    counts = []
    for tree in (before, after):
        env = environment(tree)
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "runtime"), str(charts[tree])])
        pair = []
        for statement in ("import remem", "pass"):
            out = folder / "callgrind.out"
            command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
            subprocess.run(
                [*command, sys.executable, "-c", statement], env=env, capture_output=True
            )
            found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), flags=re.M)
            assert found is not None
            pair.append(int(found.group(1)))
            out.unlink()
        counts.append(pair[0] - pair[1])
    ratio = counts[1] / counts[0]
    print(
        f"{'import remem':<22}{counts[0]:>12}{counts[1]:>12}{ratio:>14.3f}  "
        f"{_verdict('import remem', ratio)}"
    )


def _verdict(name: str, ratio: float) -> str:
    target = TARGETS[name]
    return f"<= {target}x: {'met' if ratio <= target else 'NOT met'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"git ref (default {BEFORE})")
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--callgrind-events", type=int, default=4_000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        before = extract(arguments.before, folder / "before")
        charts = {
            tree: folder / f"chart-{side}" for side, tree in (("before", before), ("after", ROOT))
        }
        for tree, chart in charts.items():
            chart_module(tree, chart, before / "spec" / "remem.toml")
        ratios: dict[str, list[float]] = {}
        mros = {}
        for round_ in range(arguments.rounds):
            sides = [("before", before), ("after", ROOT)]
            runs = {}
            for side, tree in sides if round_ % 2 == 0 else sides[::-1]:
                runs[side] = json.loads(child(tree, charts[tree], "time", arguments.events, []))
                mros[side] = runs[side]["mro"]
            for variant, ns in runs["after"]["ns"].items():
                if variant == "floor":
                    continue
                after = ns / runs["after"]["ns"]["floor"]
                previous = runs["before"]["ns"][variant] / runs["before"]["ns"]["floor"]
                ratios.setdefault(variant, []).append(after / previous)
        print(
            f"CPython {platform.python_version()}: after (this tree) / before ({arguments.before})"
        )
        print(
            f"statewright classes in a generated machine's MRO: before {mros['before']}, "
            f"after {mros['after']} (target <= 4 each: "
            f"{'met' if max(mros['after'].values()) <= 4 else 'NOT met'})"
        )
        print(
            "\nwall time per event, per-floor ratio after/before, "
            f"median of {arguments.rounds} rounds"
        )
        for variant, values in ratios.items():
            ratio = statistics.median(values)
            print(f"  {variant:<22}{ratio:>8.3f}  {_verdict(variant, ratio)}")
        if arguments.callgrind:
            if shutil.which("valgrind") is None:
                print("\ncallgrind: valgrind is not installed; skipped")
            else:
                callgrind(before, ROOT, charts, arguments.callgrind_events, folder)


if __name__ == "__main__":
    main()

"""What a statechart event costs, next to the flat machine's ``send``, in one process.

The chart (issue #22's): depth 4, a two-region parallel state and a deep history state. An
application state ``app`` holds ``running`` (parallel: region ``worker`` cycles idle -> fetching
-> processing -> idle, region ``monitor`` ok -> degraded -> ok) and ``paused``; PAUSE leaves
``running`` for ``paused`` and RESUME comes back through ``running``'s deep history, so a cycle of
seven events exits and enters states in both regions and restores a remembered configuration.
Ten states; the same chart with 990 more states (spare states in ``worker``, each with a
transition of its own) is the 1,000-state variant. Both are compiled into a temporary folder by
``statewright generate`` and driven through ``dynamic.send``; the flat machine is the generated
seed-000 module (``notebook_bcc_v2``) walking a cycle of its table. Also: the seed-000 spec with
every state moved into one compound state (the chart this bench measured before), and
python-statemachine's ``StateChart`` for the 10-state chart (the bench extra installs it).
Each variant is timed several times, interleaved, and the best run is reported.

    python bench/bench_chart_send.py [--events N] [--rounds R] [--json FILE]

Targets (issue #22): a chart event at most 8x the flat ``send``; the 1,000-state chart at most
1.2x the 10-state one; python-statemachine's ``StateChart`` at least 50x a chart event.
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
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT / "generated"), str(ROOT)]

import notebook_bcc_v2 as flat  # noqa: E402

from bench import json_results  # noqa: E402
from tests.runtime.chart_specs import PARALLEL_CHART as CHART_SPEC  # noqa: E402

#: A cycle of the flat module's table, from and back to behavior_running, and the events that
#: lead there from idle.
FLAT_CYCLE = ["START_ACTION", "COMPLETE_ACTION", "COMPLETE_BEHAVIOR", "NEXT_BEHAVIOR"]
FLAT_PREFIX = ["START_WORKFLOW", "START_STEP", "START_BEHAVIOR"]
#: A cycle of the chart, from and back to (idle, ok): every transition of the chart once.
CHART_CYCLE = ["START", "FETCHED", "WARN", "PAUSE", "RESUME", "DONE", "RECOVER"]
#: The chart's states without padding (the history state is a pseudo-state).
CHART_STATES = 10

SPARE_STATE = """
[states.spare_{index}]
parent = "worker"
on.START = "idle"
"""

ONE_COMPOUND = "chart_one_compound"


def chart_spec(name: str, states: int) -> str:
    """The bench chart with ``states`` states (spare ones in ``worker`` beyond the ten)."""
    spares = "".join(SPARE_STATE.format(index=i) for i in range(states - CHART_STATES))
    return CHART_SPEC.format(name=name) + spares


def one_compound_spec() -> str:
    """The seed-000 spec with every state inside one compound state ``workflow``."""
    text = (ROOT / "spec" / "notebook_bcc_v2.toml").read_text(encoding="utf-8")
    text = text.replace('name = "NotebookBccV2"', 'name = "OneCompound"', 1)
    text = text.replace('initial = "idle"', 'initial = "workflow"', 1)
    text = re.sub(r"^(\[states\.\w+\])$", r'\1\nparent = "workflow"', text, flags=re.M)
    return text + '\n[states.workflow]\ninitial = "idle"\n'


def generate(folder: Path, specs: dict[str, str]) -> dict[str, ModuleType]:
    """Each spec (by module name) compiled by ``statewright generate`` and imported."""
    paths = []
    for module_name, text in specs.items():
        path = folder / f"{module_name}.toml"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    command = [sys.executable, "-m", "statewright_compiler", "generate", *paths]
    subprocess.run([*command, "-o", str(folder), "--no-docs"], check=True, capture_output=True)
    modules = {}
    for module_name in specs:
        found = importlib.util.spec_from_file_location(module_name, folder / f"{module_name}.py")
        assert found is not None and found.loader is not None
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
        modules[module_name] = module
    return modules


def machine_of(module: ModuleType) -> tuple[Any, Any]:
    """A generated module's machine class and event enum."""
    name = module.SPEC.name
    return getattr(module, f"{name}Machine"), getattr(module, f"{name}Event")


Runner = Callable[[int], float]


def statewright_runner(module: ModuleType, prefix: list[str], cycle: list[str]) -> Runner:
    """Per-event seconds of ``dynamic.send`` over ``cycle`` after ``prefix``."""
    machine_class, event_type = machine_of(module)

    def run(n: int) -> float:
        machine = machine_class(None)
        dispatch = machine.dynamic.send
        for name in prefix:
            dispatch(event_type[name])
        events = [event_type[name] for name in cycle] * max(1, n // len(cycle))
        start_states = machine.active_states
        gc.collect()
        start = time.perf_counter()
        for event in events:
            dispatch(event)
        elapsed = time.perf_counter() - start
        assert machine.active_states == start_states
        return elapsed / len(events)

    return run


def python_statemachine_runner() -> tuple[str, Runner] | str:
    """python-statemachine's ``StateChart`` of the 10-state chart, or why it is skipped."""
    try:
        import statemachine
        from statemachine import HistoryState, State, StateChart
    except ImportError:
        return "not installed (pip install -e '.[bench]')"

    class BenchChart(StateChart[Any]):
        class app(State.Compound):
            class running(State.Parallel):
                class worker(State.Compound):
                    idle = State(initial=True)
                    fetching = State()
                    processing = State()
                    start = idle.to(fetching)
                    fetched = fetching.to(processing)
                    done = processing.to(idle)

                class monitor(State.Compound):
                    ok = State(initial=True)
                    degraded = State()
                    warn = ok.to(degraded)
                    recover = degraded.to(ok)

                resume_point = HistoryState(type="deep")

            paused = State()
            pause = running.to(paused)
            resume = paused.to(running.resume_point)

    def leaves(machine: Any) -> list[str]:
        active = list(machine.configuration)
        return sorted(s.id for s in active if not any(c in active for c in s.states))

    def run(n: int) -> float:
        machine = BenchChart()
        send = machine.send
        events = [name.lower() for name in CHART_CYCLE] * max(1, n // len(CHART_CYCLE))
        gc.collect()
        start = time.perf_counter()
        for event in events:
            send(event)
        elapsed = time.perf_counter() - start
        assert leaves(machine) == ["idle", "ok"]
        return elapsed / len(events)

    return f"python-statemachine {statemachine.__version__} StateChart, the 10-state chart", run


FLAT = "flat machine: send"
CHART = "chart event: depth 4, parallel, deep history (10 states)"
LARGE = "chart event: the same chart with 1,000 states"
COMPOUND = "chart event: seed-000 in one compound state"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=21_000, help="events per timed run")
    parser.add_argument("--peer-events", type=int, default=1_400, help="per run, for the peer")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds; best counts")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        modules = generate(
            Path(folder),
            {
                "chart_small": chart_spec("BenchChartSmall", CHART_STATES),
                "chart_large": chart_spec("BenchChartLarge", 1_000),
                ONE_COMPOUND: one_compound_spec(),
            },
        )
    variants: dict[str, tuple[Runner, int]] = {
        FLAT: (statewright_runner(flat, FLAT_PREFIX, FLAT_CYCLE), arguments.events),
        CHART: (statewright_runner(modules["chart_small"], [], CHART_CYCLE), arguments.events),
        LARGE: (statewright_runner(modules["chart_large"], [], CHART_CYCLE), arguments.events),
        COMPOUND: (
            statewright_runner(modules[ONE_COMPOUND], FLAT_PREFIX, FLAT_CYCLE),
            arguments.events,
        ),
    }
    peer = python_statemachine_runner()
    if isinstance(peer, tuple):
        variants[peer[0]] = (peer[1], arguments.peer_events)
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(arguments.rounds):
        for name, (run, events) in variants.items():
            best[name] = min(best[name], run(events))
    ns = {name: seconds * 1e9 for name, seconds in best.items()}
    #: Each row's reference, and the target on the ratio (row / reference).
    against: dict[str, tuple[str, float | None, str | None]] = {
        CHART: (FLAT, 8.0, "<="),
        LARGE: (CHART, 1.2, "<="),
        COMPOUND: (FLAT, None, None),
    }
    if isinstance(peer, tuple):
        against[peer[0]] = (CHART, 50.0, ">=")
    print(
        f"{platform.python_implementation()} {platform.python_version()}: "
        f"best of {arguments.rounds} interleaved rounds"
    )
    print(f"{'variant':72} {'ns/event':>10} {'ratio':>8}  target")
    rows = []
    for name, value in ns.items():
        reference, target, operator = against.get(name, (None, None, None))
        ratio = None if reference is None else value / ns[reference]
        shown = "" if ratio is None else f"{ratio:7.2f}x"
        goal = "" if target is None else f"{operator} {target:g}x of {reference}"
        print(f"{name:72} {value:10.1f} {shown:>8}  {goal}")
        rows.append(
            json_results.row(
                name,
                value,
                "ns",
                against=reference,
                ratio=ratio,
                target=target,
                target_op=operator,
            )
        )
    if isinstance(peer, str):
        print(f"python-statemachine: skipped, {peer}")
    if arguments.json is not None:
        settings = {
            "events per run": str(arguments.events),
            "rounds": str(arguments.rounds),
            "peer events per run": str(arguments.peer_events),
        }
        json_results.write(arguments.json, Path(__file__).stem, settings, rows)


if __name__ == "__main__":
    main()

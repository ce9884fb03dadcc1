"""What a transition with an expression condition and an assignment costs, next to the same
transition with a handler guard and a handler action, in one process.

Two statecharts of one state built by hand (what a generated module holds, no compiler): a
``TICK`` transition guarded by ``count < limit`` that adds one to ``count``. In the *handlers*
variant the guard and the action are handler methods, called through the machine's driver (the
generated guard function calls ``handlers.below_limit``; the action is ``handlers.count_up``); in
the *data model* variant they are the data model's: a generated condition over the machine's data
and an ``assign`` step, which the engine calls itself. Each is measured as a targetless
transition and as an external self-transition (exit and entry too), driven through ``send``,
every variant timed several times, interleaved, and the best run reported. With ``--callgrind``
(valgrind installed) each variant is also counted in machine instructions per event (a run of N
events minus a run of none, each in a child interpreter), which a loaded host does not move.

    python bench/bench_data_model.py [--events N] [--rounds R] [--callgrind]

Target (issue #19): the data model's transition costs at most 1.2x the handlers' (every
interpreter).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Container
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime")]

from statewright import (  # noqa: E402
    Assign,
    Chart,
    ChartNode,
    ChartTransition,
    DataModel,
    Machine,
    MachineSpec,
    StrEnum,
)

TARGET = 1.2
LIMIT = 10**12


class State(StrEnum):
    RUNNING = "running"


class Event(StrEnum):
    TICK = "TICK"


class Counter:
    """The data (the generated data class's shape)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


class Handlers:
    """The same bookkeeping as handler methods over a context."""

    def below_limit(self, context: Counter, payload: Any) -> bool:
        return context.count < LIMIT

    def count_up(self, context: Counter, payload: Any) -> None:
        context.count += 1


def _guard(handlers: Any, context: Any, payload: Any, active: Container[int]) -> bool:
    return bool(handlers.below_limit(context, payload))  # as generated for guard = "below_limit"


def _cond(data: Counter, event: Any, system: Any, active: Container[int]) -> bool:
    return data.count < LIMIT  # as generated for cond = "count < 1000000000000"


def _plus_one(data: Counter, event: Any, system: Any, active: Container[int]) -> int:
    return data.count + 1  # as generated for { assign = "count", expr = "count + 1" }


def machine_class(data_model: bool, targets: tuple[int, ...]) -> type[Any]:
    if data_model:
        tick = ChartTransition(
            0,
            frozenset({Event.TICK}),
            targets=targets,
            steps=(Assign("count", _plus_one, "count"),),
            cond=_cond,
        )
    else:
        tick = ChartTransition(
            0, frozenset({Event.TICK}), _guard, targets=targets, steps=("count_up",)
        )
    chart = Chart((ChartNode("running", "atomic", member=State.RUNNING),), (tick,), (0,))
    spec: MachineSpec[State, Event] = MachineSpec(
        name="Bench",
        version=1,
        spec_hash="0" * 64,
        state_type=State,
        event_type=Event,
        initial=State.RUNNING,
        final_states=frozenset(),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        handler_names=frozenset() if data_model else frozenset({"below_limit", "count_up"}),
        chart=chart,
        data=DataModel(Counter, (("count", ("int",), True),)) if data_model else None,
    )
    return type("BenchMachine", (Machine,), {"spec": spec})


def runner(cls: type[Any], data_model: bool, n: int) -> float:
    context = Counter()
    machine = cls(context) if data_model else cls(context, Handlers())
    send = machine.send
    gc.collect()
    start = time.perf_counter()
    for _ in range(n):
        send(Event.TICK)
    elapsed = time.perf_counter() - start
    counted = machine.data.count if data_model else context.count
    assert counted == n, counted
    return elapsed / n


SHAPES = {"targetless": (), "self-transition": (0,)}


def instructions(shape: str, model: bool, n: int) -> int:
    """Machine instructions of a child interpreter sending ``n`` events, under callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        command += [sys.executable, __file__, "--child", shape, str(int(model)), str(n)]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(command, check=True, capture_output=True, env=env)
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), flags=re.M)
        assert found is not None
        return int(found.group(1))


def counted(events: int) -> None:
    print(f"\ninstructions per event under callgrind ({events} events, minus a 0-event run)")
    print(f"{'transition':18} {'handlers':>12} {'data model':>14} {'ratio':>7}  target")
    for shape in SHAPES:
        per = []
        for model in (False, True):
            instructions(shape, model, 0)  # once first: .pyc files written
            total = instructions(shape, model, events)
            per.append((total - instructions(shape, model, 0)) / events)
        ratio = per[1] / per[0]
        verdict = f"<= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'}"
        print(f"{shape:18} {per[0]:12.0f} {per[1]:14.0f} {ratio:7.2f}  {verdict}")


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        shape, model, n = sys.argv[2], bool(int(sys.argv[3])), int(sys.argv[4])
        cls = machine_class(model, SHAPES[shape])
        if n:
            runner(cls, model, n)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--callgrind-events", type=int, default=4_000)
    arguments = parser.parse_args()
    variants = {
        (shape, model): machine_class(model, targets)
        for shape, targets in SHAPES.items()
        for model in (False, True)
    }
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(arguments.rounds):
        for (shape, model), cls in variants.items():
            seconds = runner(cls, model, arguments.events)
            best[shape, model] = min(best[shape, model], seconds)
    print(f"CPython {platform.python_version()}: best of {arguments.rounds} rounds")
    print(f"{'transition':18} {'handlers ns':>12} {'data model ns':>14} {'ratio':>7}  target")
    for shape in ("targetless", "self-transition"):
        handlers, data = best[shape, False] * 1e9, best[shape, True] * 1e9
        ratio = data / handlers
        verdict = f"<= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'}"
        print(f"{shape:18} {handlers:12.0f} {data:14.0f} {ratio:7.2f}  {verdict}")
    if arguments.callgrind:
        if shutil.which("valgrind") is None:
            print("\ncallgrind: valgrind is not installed; skipped")
        else:
            counted(arguments.callgrind_events)


if __name__ == "__main__":
    main()

"""Every way into a machine, next to ``send`` and a bare dict loop, in one process.

The machine is the generated seed-000 module (``notebook_bcc_v2``: 14 states, 22 events, no
guards or actions), driven by one event stream that walks a cycle of its table. Each variant is
timed several times, interleaved, and the best run is reported. Ratios are against ``send``
(history on, the default) and against the floor, an inline ``table[state].get(event)`` loop.

    python bench/bench_entry_points.py [--events N] [--repeat R]

Targets (issue "Typed all the way"): typed methods and ``try_send`` within 1.1x of ``send``; a
rejected event with no logging configured within 2x of an accepted ``send``;
``AsyncMachine.send`` within 1.5x of ``send``; ``transition_targets``/``allowed_events`` no
slower than ``send`` and within 5x of the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT / "generated"), str(ROOT)]

import notebook_bcc_v2 as module  # noqa: E402
from notebook_bcc_v2 import NotebookBccV2Event as Event  # noqa: E402
from notebook_bcc_v2 import NotebookBccV2State as State  # noqa: E402

from bench.json_results import row, write  # noqa: E402

#: A cycle of the table, from and back to behavior_running (four events).
CYCLE = [
    Event.START_ACTION,
    Event.COMPLETE_ACTION,
    Event.COMPLETE_BEHAVIOR,
    Event.NEXT_BEHAVIOR,
]
PREFIX = [Event.START_WORKFLOW, Event.START_STEP, Event.START_BEHAVIOR]
START = State.BEHAVIOR_RUNNING
#: Not accepted in behavior_running: the rejected-event variant sends it again and again.
REJECTED = Event.COMPLETE_WORKFLOW

Runner = Callable[[int], float]


def fresh() -> Any:
    machine = module.NotebookBccV2Machine(None)
    for event in PREFIX:
        machine.dynamic.send(event)
    assert machine.state is START
    return machine


def stream(n: int) -> list[Event]:
    return CYCLE * max(1, n // len(CYCLE))


def timed(loop: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    loop()
    return time.perf_counter() - start


def floor(n: int) -> float:
    table = {
        state: {event: alternatives[0].target for event, alternatives in row.items()}
        for state, row in module.TRANSITIONS.items()
    }
    events = stream(n)

    def loop() -> None:
        state = START
        for event in events:
            state = table[state].get(event)  # type: ignore[assignment]  # never None here

    return timed(loop)


def send(n: int) -> float:
    machine, events = fresh(), stream(n)
    dispatch = machine.dynamic.send
    return timed(lambda: [dispatch(event) for event in events])


def typed_methods(n: int) -> float:
    """The cycle's four event methods called as a program calls them (``machine.start_action()``),
    each from a call site of its own."""
    machine, rounds = fresh(), range(len(stream(n)) // len(CYCLE))

    def loop() -> None:
        for _ in rounds:
            machine.start_action()
            machine.complete_action()
            machine.complete_behavior()
            machine.next_behavior()

    return timed(loop)


def send_reference_for_methods(n: int) -> float:
    """``send`` in the typed methods' loop shape: the cycle's four events written out, each sent
    from a call site of its own. (The same calls from one site through a list of 50,000 bound
    methods measured the list: a call site that cycles through four functions and objects that
    do not stay in the cache cost 1.06-1.18x there, while callgrind counts the same instructions
    for a method and a send.)"""
    machine, rounds = fresh(), range(len(stream(n)) // len(CYCLE))
    dispatch = machine.dynamic.send
    first, second, third, fourth = CYCLE

    def loop() -> None:
        for _ in rounds:
            dispatch(first)
            dispatch(second)
            dispatch(third)
            dispatch(fourth)

    return timed(loop)


def try_send(n: int) -> float:
    machine, events = fresh(), stream(n)
    attempt = machine.dynamic.try_send
    return timed(lambda: [attempt(event) for event in events])


def rejected(n: int) -> float:
    machine = fresh()
    attempt = machine.dynamic.try_send
    events = [REJECTED] * len(stream(n))
    return timed(lambda: [attempt(event) for event in events])


def async_send(n: int) -> float:
    events = stream(n)
    async_machine = module.NotebookBccV2AsyncMachine(None)

    async def prepare() -> None:
        for event in PREFIX:
            await async_machine.dynamic.send(event)

    asyncio.run(prepare())
    dispatch = async_machine.dynamic.send

    async def loop() -> None:
        for event in events:
            await dispatch(event)

    return timed(lambda: asyncio.run(loop()))


def sync_reference_for_async(n: int) -> float:
    """``send`` in the same loop shape as the async variant (a coroutine driving it)."""
    machine, events = fresh(), stream(n)
    dispatch = machine.dynamic.send

    async def loop() -> None:
        for event in events:
            dispatch(event)

    return timed(lambda: asyncio.run(loop()))


def transition_targets(n: int) -> float:
    pairs = [(START, event) for event in stream(n)]
    lookup = module.transition_targets
    return timed(lambda: [lookup(state, event) for state, event in pairs])


def allowed_events(n: int) -> float:
    states = [START, State.ACTION_RUNNING, State.ACTION_COMPLETED] * (n // 3)
    lookup = module.allowed_events
    return timed(lambda: [lookup(state) for state in states])


VARIANTS: dict[str, Runner] = {
    "floor (table[state].get(event))": floor,
    "send (history on)": send,
    "send, written out (reference for typed methods)": send_reference_for_methods,
    "typed method (machine.start_action())": typed_methods,
    "try_send": try_send,
    "try_send, rejected (no logging configured)": rejected,
    "send in a coroutine (reference for async)": sync_reference_for_async,
    "AsyncMachine.send": async_send,
    "transition_targets(state, event)": transition_targets,
    "allowed_events(state)": allowed_events,
}
#: variant -> (what it is compared with, the largest ratio allowed)
TARGETS = {
    "typed method (machine.start_action())": (
        "send, written out (reference for typed methods)",
        1.1,
    ),
    "try_send": ("send (history on)", 1.1),
    "try_send, rejected (no logging configured)": ("send (history on)", 2.0),
    "AsyncMachine.send": ("send in a coroutine (reference for async)", 1.5),
    "transition_targets(state, event)": ("floor (table[state].get(event))", 5.0),
    "allowed_events(state)": ("floor (table[state].get(event))", 5.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    arguments = parser.parse_args()
    n = len(stream(arguments.events))
    best = dict.fromkeys(VARIANTS, float("inf"))
    for _ in range(arguments.repeat):
        for name, runner in VARIANTS.items():
            best[name] = min(best[name], runner(arguments.events))
    per_event = {name: seconds / n * 1e9 for name, seconds in best.items()}
    floor_ns, send_ns = per_event["floor (table[state].get(event))"], per_event["send (history on)"]
    print(f"CPython {platform.python_version()}: {n} events, best of {arguments.repeat} rounds")
    print(f"{'variant':45} {'ns/event':>9} {'x send':>7} {'x floor':>8}  target")
    for name, ns in per_event.items():
        target = ""
        if name in TARGETS:
            reference, limit = TARGETS[name]
            ratio = ns / per_event[reference]
            met = "met" if ratio <= limit else "NOT met"
            target = f"<= {limit}x {reference.split(' (')[0]}: {ratio:.2f}x, {met}"
        if name.startswith("transition_targets") or name.startswith("allowed_events"):
            target += f"; vs send {ns / send_ns:.2f}x"
        print(f"{name:45} {ns:9.1f} {ns / send_ns:7.2f} {ns / floor_ns:8.1f}  {target}")
    if arguments.json:
        rows = []
        for name, ns in per_event.items():
            reference, limit = TARGETS.get(name, ("", 0.0))
            share: float | None = ns / per_event[reference] if reference else None
            rows.append(
                row(name, ns, "ns", against=reference or None, ratio=share,
                    target=limit or None, target_op="<=" if limit else None)
            )  # fmt: skip
        settings = {"events": str(n), "rounds": f"best of {arguments.repeat}"}
        write(arguments.json, "bench_entry_points", settings, rows)


if __name__ == "__main__":
    main()

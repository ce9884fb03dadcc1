"""Scale benchmark for the compiler and the generated hot path, printed as ratios.

Measures, side by side in one process:
- compile time (load + validate + render + ruff) for specs of 10, 100 and 1,000 states with ten
  transitions per state, and its growth per transition (linear time means a flat ratio);
- ``mypy --strict`` with a cold cache on the 1,000-state / 10,000-transition module;
- next-state lookup through the runtime (``Machine.send``) at 1,000 states vs 10 states.

Run: ``python bench/bench_compile.py`` (``make bench``). Targets: compile under 2 s and mypy under
3 s at 1,000 states; lookup at 1,000 states within 1.5x of 10 states.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
import timeit
import types
from pathlib import Path

from statewright import MachineOptions
from statewright_compiler.check.validate import validate_source
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

EVENTS = 100
PER_STATE = 10
RUNTIME = Path(__file__).resolve().parents[1] / "runtime"


def spec_text(states: int, seed: int = 7, handlers: bool = False) -> str:
    """A connected machine: state i always reaches i+1; the other edges are random.

    With ``handlers``, the same edges (same seed, same targets) also use the handlers object: in
    every fourth state the second transition has a guard (20 guards, ``ok_0`` to ``ok_19``), in
    every eighth the third has an action (``act_0`` to ``act_9``), and every third event carries
    a payload, so the handlers Protocol has methods typed with unions of payloads.
    """
    chooser = random.Random(seed)
    lines = ['[machine]\nname = "Big"\ninitial = "s0"\n']
    for index in range(states):
        lines.append(f"[states.s{index}]")
        events = chooser.sample(range(EVENTS), PER_STATE)
        for number, event in enumerate(events):
            target = (index + 1) % states if number == 0 else chooser.randrange(states)
            if handlers and number == 1 and index % 4 == 0:
                rule = f'{{ to = "s{target}", guard = "ok_{event % 20}" }}'
            elif handlers and number == 2 and index % 8 == 0:
                rule = f'{{ to = "s{target}", actions = ["act_{event % 10}"] }}'
            else:
                rule = f'"s{target}"'
            lines.append(f"on.E{event} = {rule}")
    for event in range(EVENTS):
        lines.append(f"[events.E{event}]")
        if handlers and event % 3 == 0:
            lines.append('payload = { amount = "int", note = "str | None" }')
    return "\n".join(lines) + "\n"


def compile_module(text: str) -> str:
    machine, _ = validate_source(parse_spec_text(text, "big.toml"))
    return module_source(machine)


def best_of(repeat: int, function: object) -> float:
    assert callable(function)
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


def load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def lookup_cost(module: types.ModuleType, steps: int = 20_000) -> float:
    """Seconds per ``send`` along a walk through the table (first event of each state)."""
    state, events = module.INITIAL_STATE, []
    for _ in range(steps):
        event, alternatives = next(iter(module.TRANSITIONS[state].items()))
        events.append(event)
        state = alternatives[0].target

    def run() -> None:
        send = module.BigMachine(None, options=MachineOptions(record_history=False)).send
        for event in events:
            send(event)

    return min(timeit.repeat(run, number=1, repeat=5)) / steps


def main() -> None:
    print(f"compile ({PER_STATE} transitions per state, {EVENTS} events):")
    sources: dict[int, str] = {}
    per_transition = {}
    for states in (10, 100, 1_000):
        text = spec_text(states)
        seconds = best_of(3, lambda text=text: compile_module(text))
        sources[states] = compile_module(text)
        per_transition[states] = seconds / (states * PER_STATE)
        print(
            f"  {states:>5} states {states * PER_STATE:>6} transitions: {seconds * 1000:8.1f} ms"
            f"  ({per_transition[states] * 1e6:6.1f} us per transition)"
        )
    ratio = per_transition[1_000] / per_transition[100]
    print(f"  per-transition cost 1,000 vs 100 states: {ratio:.2f}x (1.0 = linear)")

    with tempfile.TemporaryDirectory() as folder:
        module_path = Path(folder) / "big.py"
        module_path.write_text(sources[1_000], encoding="utf-8")
        command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                   "--cache-dir", str(Path(folder) / "cache"), str(module_path)]  # fmt: skip
        start = time.perf_counter()
        completed = subprocess.run(
            command, capture_output=True, text=True, check=False,
            env={"MYPYPATH": str(RUNTIME), "PATH": ""},
        )  # fmt: skip
        mypy_seconds = time.perf_counter() - start
    status = "ok" if completed.returncode == 0 else completed.stdout[-300:]
    print(f"mypy --strict, cold cache, 1,000 states: {mypy_seconds:.2f} s ({status})")

    small, large = load(sources[10], "big_10"), load(sources[1_000], "big_1000")
    small_cost, large_cost = lookup_cost(small), lookup_cost(large)
    print(
        f"send() without history: 10 states {small_cost * 1e9:.0f} ns, "
        f"1,000 states {large_cost * 1e9:.0f} ns, ratio {large_cost / small_cost:.2f}x"
    )


if __name__ == "__main__":
    main()

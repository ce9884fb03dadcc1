"""``mypy --strict`` with a cold cache on a large generated module and on a consumer of it.

For machines of 1,000, 5,000 and 10,000 states (ten transitions per state, 100 events, as
``bench_compile.spec_text`` makes them, with guards, actions and payloads so that the handlers
Protocol is not trivial), each mypy run a subprocess with a fresh cache folder:

- **module**: ``mypy --strict big.py``, the generated module alone;
- **consumer**: ``mypy --strict use_big.py``, a small file that imports the module (so mypy checks
  both): a handlers class implementing the Protocol, the machine and the async machine built with
  it, typed event methods, ``send``/``try_send``/``can_send`` with members and payloads, and a
  ``match`` on the state enum ending in ``assert_never``;

and, as the floor no generated code can go under:

- **runtime**: a file that only imports ``statewright`` (mypy checks the runtime and the parts of
  the standard library it uses);
- **enum**: the state enum alone (``class BigState(StrEnum)`` with the module's members).

Each figure is the median of the rounds (3 by default, interleaved), wall time and CPU time
(user + system of the mypy process, from ``resource.getrusage(RUSAGE_CHILDREN)``). CPU is the
figure to compare on a shared host: wall time also counts waiting for the CPU. Each run is
bounded (``--timeout``, 600 s by default); a run that hits it is reported as such.

mypy runs in a temporary folder (no configuration file: ``--strict`` and defaults, so the target
Python is the interpreter's) with ``MYPYPATH`` set to the repository's ``runtime`` folder.

Run: ``python bench/bench_mypy_scale.py [--states 1000 5000 10000] [--rounds 3] [--timeout 600]``.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT)]

from bench.bench_compile import compile_module, spec_text  # noqa: E402

#: What each target file is, in the order the table prints them.
TARGETS = ("runtime", "enum", "module", "consumer")


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    ok: bool
    output: str


def enum_source(module_source: str) -> str:
    """The module's state enum alone, as a module of its own."""
    tree = ast.parse(module_source)
    enum = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BigState")
    lines = module_source.splitlines()[enum.lineno - 1 : enum.end_lineno]
    return "from statewright import StrEnum\n\n\n" + "\n".join(lines) + "\n"


def consumer_source(module_source: str) -> str:
    """A consumer of module ``big``: its handlers class copies the Protocol's payload types."""
    tree = ast.parse(module_source)
    protocol = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BigHandlers")
    methods: list[str] = []
    imported_names = {"BigAsyncMachine", "BigEvent", "BigMachine", "BigState"}
    for method in protocol.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        annotation = method.args.posonlyargs[2].annotation
        assert annotation is not None and method.returns is not None
        payload, returns = ast.unparse(annotation), ast.unparse(method.returns)
        imported_names.update(name.strip() for name in payload.split("|"))
        body = "return bool(payload)" if returns == "bool" else "self.calls += 1"
        methods.append(
            f"    def {method.name}(self, context: Counter, payload: {payload}, /) -> {returns}:\n"
            f"        {body}\n"
        )
    imported = ", ".join(sorted(imported_names))
    handlers = "\n".join(methods)
    return f"""from __future__ import annotations

from dataclasses import dataclass

from big import {imported}, allowed_events
from statewright import assert_never


@dataclass
class Counter:
    seen: int = 0


class Handlers:
    calls: int = 0

{handlers}

def describe(state: BigState) -> str:
    match state:
        case BigState.S0:
            return "initial"
        case BigState.S1 | BigState.S2:
            return "early"
        case BigState():
            return "later"
        case _:
            assert_never(state)


def run() -> BigState:
    machine = BigMachine(Counter(), Handlers())
    machine.e1()
    machine.e3(amount=1)
    state: BigState = machine.send(BigEvent.E0, amount=2, note="first")
    if machine.can_send(BigEvent.E4) and machine.try_send(BigEvent.E5):
        state = machine.send(BigEvent.E7)
    print(describe(machine.state), sorted(allowed_events(state)))
    return state


async def run_async() -> BigState:
    machine = BigAsyncMachine(Counter(), Handlers())
    await machine.e1()
    return await machine.send(BigEvent.E3, amount=3)
"""


def run_mypy(folder: Path, target: str, timeout: float) -> Run:
    """One cold-cache ``mypy --strict`` run on ``folder/target``."""
    cache = folder / ".mypy_cache"
    shutil.rmtree(cache, ignore_errors=True)
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), target]
    environment = {"MYPYPATH": str(ROOT / "runtime"), "PATH": os.environ.get("PATH", "")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        completed = subprocess.run(
            command, cwd=folder, env=environment, capture_output=True, text=True,
            check=False, timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        # The killed child is reaped by subprocess.run: its CPU time is counted as well.
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return Run(wall, cpu, False, f"timed out after {timeout:.0f} s")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Run(wall, cpu, completed.returncode == 0, completed.stdout[-400:] + completed.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, nargs="+", default=[1_000, 5_000, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0)
    options = parser.parse_args()
    import mypy.version

    print(
        f"mypy {mypy.version.__version__} --strict, cold cache, Python {sys.version.split()[0]}; "
        f"median of {options.rounds} rounds, wall / CPU seconds"
    )
    print(f"{'states':>7} {'lines':>7}  " + "  ".join(f"{target:>15}" for target in TARGETS))
    for states in options.states:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            module = compile_module(spec_text(states, handlers=True))
            files = {
                "runtime": ("floor_runtime.py", "import statewright\n"),
                "enum": ("floor_enum.py", enum_source(module)),
                "module": ("big.py", module),
                "consumer": ("use_big.py", consumer_source(module)),
            }
            for file_name, text in files.values():
                (folder / file_name).write_text(text, encoding="utf-8")
            runs: dict[str, list[Run]] = {target: [] for target in TARGETS}
            for _ in range(options.rounds):
                for target in TARGETS:
                    runs[target].append(run_mypy(folder, files[target][0], options.timeout))
        cells, failures = [], []
        for target in TARGETS:
            wall = statistics.median(run.wall for run in runs[target])
            cpu = statistics.median(run.cpu for run in runs[target])
            failed = [run for run in runs[target] if not run.ok]
            cells.append(f"{wall:6.2f} / {cpu:6.2f}{'!' if failed else ' '}")
            failures += [f"  {target} at {states} states: {run.output}" for run in failed[:1]]
        print(f"{states:>7} {module.count(chr(10)):>7}  " + "  ".join(cells), flush=True)
        for failure in failures:
            print(failure)


if __name__ == "__main__":
    main()

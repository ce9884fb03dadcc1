"""What the mypy plugin costs and finds on this repository's own consumer code.

Runs mypy over ``tests/seeds examples generated`` with the repository's configuration, without
and with ``plugins = ["statewright_compiler.mypy_plugin"]``, interleaved, each run with a fresh
(cold) cache, and prints the median wall time of each, the overhead, and every diagnostic the
plugin adds (``[statewright-comparison]``). One more run, in this process, lists what the plugin
judged (a str-valued enum against a string literal, wrong or not; mypy may check one comparison
several times, so these are distinct enum/operator/string triples): 0 diagnostics would mean
little if there was nothing to judge.

Run: ``python bench/bench_mypy_plugin.py [ROUNDS]`` from anywhere (default 5 rounds).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGETS = ["tests/seeds", "examples", "generated"]
PLUGIN_LINE = 'plugins = ["statewright_compiler.mypy_plugin"]\n'
CODE = "[statewright-comparison]"


def config_with_plugin(folder: Path) -> Path:
    """A copy of pyproject.toml whose ``[tool.mypy]`` table also loads the plugin."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    header = "[tool.mypy]\n"
    assert text.count(header) == 1, "expected one [tool.mypy] table in pyproject.toml"
    if PLUGIN_LINE not in text:
        text = text.replace(header, header + PLUGIN_LINE)
    config = folder / "with_plugin.toml"
    config.write_text(text, encoding="utf-8")
    return config


def config_without_plugin(folder: Path) -> Path:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8").replace(PLUGIN_LINE, "")
    config = folder / "without_plugin.toml"
    config.write_text(text, encoding="utf-8")
    return config


def run_mypy(config: Path, cache: Path) -> tuple[float, list[str]]:
    """Wall seconds and output lines of one cold-cache mypy run (relative paths: cwd = REPO)."""
    command = [sys.executable, "-m", "mypy", "--config-file", str(config),
               "--cache-dir", str(cache), "--no-error-summary", *TARGETS]  # fmt: skip
    start = time.perf_counter()
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if completed.returncode not in {0, 1}:
        raise SystemExit(f"mypy failed ({completed.returncode}):\n{completed.stderr}")
    return seconds, completed.stdout.splitlines()


def judged_comparisons(config: Path, cache: Path) -> list[str]:
    """Each enum/operator/string triple the plugin judged, in one in-process mypy run."""
    from mypy import api
    from statewright_compiler import mypy_plugin

    judged: list[str] = []
    original = mypy_plugin.problem

    def recording(
        string: str, enums: list[mypy_plugin.StrEnumValues], *, operator: str
    ) -> str | None:
        judged.append(f"{' or '.join(enum.name for enum in enums)} {operator} {string!r}")
        return original(string, enums, operator=operator)

    previous = Path.cwd()
    mypy_plugin.problem = recording
    os.chdir(REPO)
    try:
        api.run(["--config-file", str(config), "--cache-dir", str(cache), *TARGETS])
    finally:
        os.chdir(previous)
        mypy_plugin.problem = original
    return judged


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        configs = {"without": config_without_plugin(folder), "with": config_with_plugin(folder)}
        timings: dict[str, list[float]] = {label: [] for label in configs}
        outputs: dict[str, list[str]] = {}
        for number in range(rounds):
            for label, config in configs.items():
                seconds, lines = run_mypy(config, folder / f"cache-{label}-{number}")
                timings[label].append(seconds)
                outputs[label] = lines
        judged = judged_comparisons(configs["with"], folder / "cache-judged")
    without, with_plugin = (statistics.median(timings[label]) for label in configs)
    print(f"mypy over {' '.join(TARGETS)}, cold cache, median of {rounds} interleaved runs:")
    print(f"  without the plugin: {without:.2f} s  (runs: {_listed(timings['without'])})")
    print(f"  with the plugin:    {with_plugin:.2f} s  (runs: {_listed(timings['with'])})")
    print(f"  overhead: {with_plugin - without:+.2f} s ({(with_plugin / without - 1) * 100:+.1f}%)")
    for label, lines in outputs.items():
        print(f"  diagnostics {label} the plugin: {len(lines)}")
    print(f"  enum/operator/string triples the plugin judged: {len(set(judged))}")
    for triple in sorted(set(judged)):
        print(f"    {triple}")
    found = [line for line in outputs["with"] if CODE in line]
    print(f"  {CODE} diagnostics: {len(found)}")
    for line in found:
        print(f"    {line}")


def _listed(values: list[float]) -> str:
    return ", ".join(f"{value:.2f}" for value in values)


if __name__ == "__main__":
    main()

"""Write docs/performance.md from what the benches measured (``make bench``).

Each bench run with ``--json FILE`` leaves its rows in FILE (bench/json_results.py); ``make bench``
puts them in ``.cache/bench/`` and then runs this, which writes the page: the machine it ran on
(processor, cores, system, the cost of an fsync measured on the spot, since a save with
``synchronous=FULL`` waits for one), the date, a summary of every target the benches check, and
one table per bench with a column per interpreter. Nothing on the page is typed by hand but the
fixed text below, so the figures cannot drift from the code: run ``make bench`` again and the
page says what this code does on this machine.

    python bench/performance_page.py [--results .cache/bench] [--output docs/performance.md]
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The benches' sections in this order; any other bench that wrote results follows, by name.
ORDER = (
    "bench_send",
    "bench_entry_points",
    "bench_chart_send",
    "bench_history",
    "bench_save",
    "bench_timers",
    "bench_import",
    "bench_registry",
)
UNIT_TEXT = {"us": "µs"}

INTRO = """\
# Performance

Measured, not assumed: this page is written by `make bench` (bench/performance_page.py) from what
the benchmarks in `bench/` measured on the machine named below, each comparing its variants side
by side in one process and printing ratios. No figure here is typed by hand: run `make bench` and
the page says what the code does on your machine. No test asserts a wall-clock time. Absolute
figures depend on the machine; the ratios are what to compare, and each target is a ratio
(issue #22's, where one is given). How each bench measures is in its docstring. What each change
behind these figures did, and the benches that print their own figures (the compiler, an MCP tool
call, check-store, mypy at scale, the mypy plugin), are on
[performance-notes.md](performance-notes.md), as measured when written."""


def _fsync_cost(rounds: int = 50) -> float:
    """Median seconds of writing 4 KB to a file and ``os.fsync`` -ing it, in the temporary
    folder the benches' stores use."""
    samples = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fsync.bin"
        with open(path, "wb") as handle:
            for _ in range(rounds):
                handle.write(b"\0" * 4096)
                handle.flush()
                started = time.perf_counter()
                os.fsync(handle.fileno())
                samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def _processor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _title(bench: str) -> str:
    """The first sentence of the bench's docstring (its first paragraph, which may wrap), read
    without running the bench."""
    path = ROOT / "bench" / f"{bench}.py"
    if not path.is_file():
        return bench
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or bench
    return " ".join(docstring.split("\n\n")[0].split()).rstrip(".")


def _number(value: float, unit: str) -> str:
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return f"{text} {UNIT_TEXT.get(unit, unit)}" if unit != "count" else text


def _ratio(row: dict[str, Any]) -> str:
    """The ratio and whether it meets the target; a target on a value (no ratio, e.g. bytes per
    record) is judged on the value."""
    measured = row["ratio"] if row["ratio"] is not None else row["value"]
    if row["ratio"] is None and row["target"] is None:
        return ""
    verdict = ""
    if row["target"] is not None:
        met = measured <= row["target"] if row["target_op"] == "<=" else measured >= row["target"]
        verdict = " ✓" if met else " **missed**"
    if row["ratio"] is None:
        return f"{_number(row['value'], row['unit'])}{verdict}"
    return f"{row['ratio']:.2f}x{verdict}"


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "-"
    value = _number(row["value"], row["unit"])
    if row["ratio"] is None:
        return _ratio(row) or value
    return f"{value} ({_ratio(row)})"


def _target(row: dict[str, Any]) -> str:
    if row["target"] is None:
        return ""
    unit = "x" if row["ratio"] is not None else f" {UNIT_TEXT.get(row['unit'], row['unit'])}"
    return f"{'≤' if row['target_op'] == '<=' else '≥'} {row['target']:g}{unit}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def load(folder: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """bench -> interpreter version -> that run's document."""
    runs: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(folder.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        runs.setdefault(document["bench"], {})[document["python"]] = document
    return runs


def _benches(runs: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    known = [bench for bench in ORDER if bench in runs]
    return known + sorted(set(runs) - set(known))


def _measures(documents: Iterable[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for document in documents:
        for row in document["results"]:
            seen.setdefault(row["measure"], None)
    return list(seen)


def _row(document: dict[str, Any], measure: str) -> dict[str, Any] | None:
    return next((row for row in document["results"] if row["measure"] == measure), None)


def _table(by_python: dict[str, dict[str, Any]]) -> list[str]:
    versions = sorted(by_python, key=_version_key)
    documents = [by_python[version] for version in versions]
    lines = [
        "| measure | ratio of | target | " + " | ".join(versions) + " |",
        "| --- | --- | --- | " + " | ".join("---:" for _ in versions) + " |",
    ]
    for measure in _measures(documents):
        rows = [_row(document, measure) for document in documents]
        first = next(row for row in rows if row is not None)
        lines.append(
            f"| {_escape(measure)} | {_escape(first['against'] or '')} | {_target(first)} | "
            + " | ".join(_cell(row) for row in rows)
            + " |"
        )
    settings = sorted({f"{k}={v}" for d in documents for k, v in d["settings"].items()})
    if settings:
        lines += ["", "Settings: " + ", ".join(f"`{_escape(s)}`" for s in settings) + "."]
    return lines


def _summary(runs: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    lines = [
        "## Targets",
        "",
        "Every row with a target, on every interpreter (✓ met, **missed** not).",
        "",
        "| bench | measure | ratio of | target | " + " | ".join(_all_versions(runs)) + " |",
        "| --- | --- | --- | --- | " + " | ".join("---:" for _ in _all_versions(runs)) + " |",
    ]
    for bench in _benches(runs):
        documents = runs[bench]
        for measure in _measures(documents.values()):
            rows = [
                _row(documents[v], measure) if v in documents else None for v in _all_versions(runs)
            ]
            first = next(row for row in rows if row is not None)
            if first["target"] is None:
                continue
            lines.append(
                f"| `{bench}` | {_escape(measure)} | {_escape(first['against'] or '')} | "
                f"{_target(first)} | "
                + " | ".join(_ratio(row) if row else "-" for row in rows)
                + " |"
            )
    return lines


def _all_versions(runs: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    return sorted({v for by_python in runs.values() for v in by_python}, key=_version_key)


def render(runs: dict[str, dict[str, dict[str, Any]]], *, fsync: float, date: str) -> str:
    machine = (
        f"Measured on {date} on {_escape(_processor())}, {os.cpu_count()} logical CPUs, "
        f"{_escape(platform.platform())}; an fsync of 4 KB in the temporary folder took "
        f"{fsync * 1e3:.2f} ms (median of 50, measured when the page was written). "
        f"Interpreters: {', '.join('CPython ' + v for v in _all_versions(runs))}."
    )
    lines = [INTRO, "", machine, "", *_summary(runs)]
    for bench in _benches(runs):
        lines += ["", f"## {_escape(_title(bench))} (`bench/{bench}.py`)", ""]
        lines += _table(runs[bench])
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / ".cache" / "bench")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "performance.md")
    arguments = parser.parse_args()
    runs = load(arguments.results)
    if not runs:
        raise SystemExit(f"no bench results in {arguments.results}: run make bench")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    arguments.output.write_text(render(runs, fsync=_fsync_cost(), date=date), encoding="utf-8")
    print(
        f"wrote {arguments.output} from {sum(map(len, runs.values()))} runs of {len(runs)} benches"
    )


if __name__ == "__main__":
    main()

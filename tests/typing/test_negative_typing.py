"""The type checker rejects wrong uses of a generated module, and accepts the right ones.

Each ``cases/negative_*.py.txt`` snippet marks the lines mypy must reject with inline comments:
``# E: <part of the error message>`` (one per expected error on that line) and, optionally,
``# N: <part of a note>`` for the detail mypy gives in notes (e.g. the missing protocol member).
Every marked line must get its errors and no other line may get any. ``positive_usage.py.txt``
uses the API correctly: no errors at all, and it runs. One mypy run checks all snippets together
with a freshly generated ``pegasus_task`` module; a second one with the modules in the shape of a
machine above ``render.MATCH_LIMIT`` (see ``tests/compiler/shapes.py``), whose typed API is the
same; both for every supported Python.
"""

from __future__ import annotations

import shutil
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.pipeline import module_source

from tests.compiler.shapes import large_shape
from tests.mypy_cache import TARGETS
from tests.typing import CASES, REPO, Message, Run, expectations, generate, run, run_mypy

SNIPPETS = sorted(path.name.removesuffix(".py.txt") for path in CASES.glob("negative_*.py.txt"))
POSITIVE = "positive_usage"


@dataclass(frozen=True)
class Checked:
    folder: Path
    result: Run
    messages: tuple[Message, ...]


@pytest.fixture(
    scope="module",
    params=[(shape, target) for shape in ("small", "large") for target in TARGETS],
    ids=lambda param: "-".join(param),
)
def checked(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Checked:
    shape, target = request.param
    folder = tmp_path_factory.mktemp(f"consumer_{shape}")
    specs = (REPO / "spec" / "pegasus_task.toml", REPO / "examples" / "door.toml")
    for spec in (*specs, CASES / "only_internal.toml"):
        if shape == "small":
            generate(spec, folder)
            continue
        machine, _ = compile_spec(spec)
        with large_shape():
            source = module_source(machine)
        assert machine.chart or "_transition_table()" in source
        (folder / f"{machine.module_name}.py").write_text(source, encoding="utf-8")
    chart = REPO / "tests" / "cases" / "chart_sink" / "expected.py"
    shutil.copyfile(chart, folder / "chart_sink.py")
    golden = "expected_large.py" if request.param == "large" else "expected.py"
    shutil.copyfile(REPO / "tests" / "cases" / "data_task" / golden, folder / "data_task.py")
    for name in [*SNIPPETS, POSITIVE]:
        shutil.copyfile(CASES / f"{name}.py.txt", folder / f"{name}.py")
    modules = ["pegasus_task.py", "door.py", "chart_sink.py", "data_task.py", "only_internal.py"]
    files = [*modules, *(f"{name}.py" for name in [*SNIPPETS, POSITIVE])]
    result, messages = run_mypy(files, folder, target=target)
    assert result.code in {0, 1}, result.output  # 2 would be a mypy usage error or crash
    return Checked(folder, result, tuple(messages))


def _expectations(name: str) -> dict[int, dict[str, list[str]]]:
    return expectations(CASES / f"{name}.py.txt")


def _by_line(checked: Checked, file: str, kind: str) -> dict[int, list[str]]:
    lines: dict[int, list[str]] = defaultdict(list)
    for message in checked.messages:
        if message.path == file and message.kind == kind:
            lines[message.line].append(message.message)
    return lines


def test_snippets_are_well_formed() -> None:
    assert SNIPPETS, f"no negative snippets in {CASES}"
    for name in SNIPPETS:
        assert any(marks["E"] for marks in _expectations(name).values()), name
    assert _expectations(POSITIVE) == {}


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("name", SNIPPETS)
def test_marked_lines_and_only_those_are_rejected(checked: Checked, name: str) -> None:
    expected = _expectations(name)
    errors = _by_line(checked, f"{name}.py", "error")
    notes = _by_line(checked, f"{name}.py", "note")
    problems = []
    for line, marks in sorted(expected.items()):
        for substring in marks["E"]:
            if not any(substring in error for error in errors.get(line, [])):
                problems.append(f"line {line}: no error containing {substring!r}: {errors[line]}")
        for substring in marks["N"]:
            if not any(substring in note for note in notes.get(line, [])):
                problems.append(f"line {line}: no note containing {substring!r}: {notes[line]}")
        if len(errors.get(line, [])) > len(marks["E"]):
            problems.append(f"line {line}: more errors than expected: {errors[line]}")
    for line in sorted(set(errors) - set(expected)):
        problems.append(f"line {line}: unexpected error: {errors[line]}")
    assert not problems, "\n".join(problems) + "\n\nmypy output:\n" + checked.result.output


@pytest.mark.slow
@pytest.mark.main_only
def test_correct_use_type_checks_and_runs(checked: Checked) -> None:
    for file in ("pegasus_task.py", "data_task.py", f"{POSITIVE}.py"):
        assert not _by_line(checked, file, "error"), checked.result.output
    executed = run([sys.executable, f"{POSITIVE}.py"], checked.folder)
    assert executed.code == 0, executed.output

"""Initial and history defaults that lead back to themselves are diagnostics, never a hang.

Entering a compound state follows its ``initial``; entering a history state with nothing
remembered follows its ``default`` (or, without one, its parent's initial). When that chain comes
back to a history state it has already passed, entering never ends: SCXML gives such a chart no
meaning. Each cycle is one ``path:line:col: error`` at the spec text that closes it; every other
command (``generate``, ``docs``, ``diagram``) answers the same, and a history state that defaults
to a sibling history without a cycle still compiles.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.charts.harness import compile_chart
from tests.conftest import run_cli

HEADER = """\
[machine]
name = "Loop"
initial = "outer"

[events]
GO = {}

"""

#: (spec body, the one diagnostic it must produce)
CYCLES = {
    "initial is its own history without a default": (
        """\
[states.outer]
initial = "hist"
on.GO = "outer"

[states.a]
parent = "outer"

[states.hist]
parent = "outer"
kind = "history"
""",
        "loop.toml:9:11: error[invalid-initial]: initial state 'hist' of 'outer' is a history "
        "state whose default leads back to it: entering 'outer' never ends (hist -> hist)",
    ),
    "history default is itself": (
        """\
[states.outer]
on.GO = "hist"

[states.a]
parent = "outer"

[states.hist]
parent = "outer"
kind = "history"
default = "hist"
""",
        "loop.toml:17:11: error[invalid-history]: history state 'hist' has a default that "
        "leads back to it: entering it with nothing remembered never ends (hist -> hist)",
    ),
    "two histories default to each other": (
        """\
[states.outer]
on.GO = "first"

[states.a]
parent = "outer"

[states.first]
parent = "outer"
kind = "history"
default = "second"

[states.second]
parent = "outer"
kind = "history"
history = "deep"
default = ["first"]
""",
        "loop.toml:17:11: error[invalid-history]: history state 'first' has a default that "
        "leads back to it: entering it with nothing remembered never ends "
        "(first -> second -> first)",
    ),
    "a history default leads to the initial history": (
        """\
[states.outer]
initial = "first"
on.GO = "outer"

[states.a]
parent = "outer"

[states.first]
parent = "outer"
kind = "history"
default = "second"

[states.second]
parent = "outer"
kind = "history"
""",
        "loop.toml:9:11: error[invalid-initial]: initial state 'first' of 'outer' is a history "
        "state whose default leads back to it: entering 'outer' never ends "
        "(first -> second -> first)",
    ),
    "a parallel state's history defaults to itself": (
        """\
[states.outer]
kind = "parallel"
on.GO = "hist"

[states.left]
parent = "outer"

[states.right]
parent = "outer"

[states.hist]
parent = "outer"
kind = "history"
default = "hist"
""",
        "loop.toml:21:11: error[invalid-history]: history state 'hist' has a default that "
        "leads back to it: entering it with nothing remembered never ends (hist -> hist)",
    ),
}


@pytest.mark.parametrize("body", CYCLES, ids=list(CYCLES))
@pytest.mark.parametrize("command", ["validate", "generate", "docs", "diagram"])
def test_a_cycle_of_defaults_is_one_diagnostic(tmp_path: Path, body: str, command: str) -> None:
    text, expected = CYCLES[body]
    (tmp_path / "loop.toml").write_text(HEADER + text, encoding="utf-8")
    arguments = {
        "validate": ["validate", "loop.toml"],
        "generate": ["generate", "loop.toml", "-o", "out", "--docs", "pages"],
        "docs": ["docs", "loop.toml", "-o", "pages"],
        "diagram": ["diagram", "loop.toml"],
    }[command]
    result = run_cli(arguments, cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.code == 1
    errors = [line for line in result.stderr.splitlines() if ": error[" in line]
    assert errors == [expected]


def test_a_history_default_to_a_sibling_history_without_a_cycle_compiles(
    tmp_path: Path,
) -> None:
    """``initial`` at a history whose default is another history that has a real default."""
    spec = HEADER + (
        """\
[states.outer]
initial = "first"
on.GO = "outer"

[states.a]
parent = "outer"

[states.b]
parent = "outer"

[states.first]
parent = "outer"
kind = "history"
default = "second"

[states.second]
parent = "outer"
kind = "history"
default = "b"
"""
    )
    (tmp_path / "loop.toml").write_text(spec, encoding="utf-8")
    result = run_cli(["generate", "loop.toml", "-o", "out", "--no-docs"], cwd=tmp_path)
    assert result.code == 0, result.stderr
    machine = compile_chart(spec, "loop").LoopMachine(None)
    assert machine.state.value == "b"
    machine.send("GO")
    assert machine.state.value == "b"

"""Machines above ``render.MATCH_LIMIT`` get a module shaped to keep mypy fast (see
docs/performance.md): the same public names, tables and typed API, built differently. These tests
force that shape on specs with every feature and compare it with the small shape."""

from __future__ import annotations

import ast
import functools
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from statewright_compiler.check.validate import compile_spec, validate_source
from statewright_compiler.codegen.formatter import format_source
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.compiler.shapes import large_shape
from tests.compiler.soundness import lint_findings, ruff_formatted
from tests.compiler.specgen import RandomSpec, random_specs
from tests.fuzz import examples
from tests.mypy_cache import STRICT, TARGETS, run_mypy

REPO = Path(__file__).parents[2]
SPECS = sorted(
    [*REPO.glob("tests/cases/*/spec.toml"), *REPO.glob("spec/*.toml"), REPO / "examples/door.toml"]
)
SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
#: A machine with no transitions: an empty table in the large shape too.
NO_TRANSITIONS = '[machine]\nname = "Still"\ninitial = "idle"\n[states.idle]\n[events.POKE]\n'


def spec_name(path: Path) -> str:
    return path.parent.name if path.name == "spec.toml" else path.stem


@functools.cache  # a spec's modules, once per worker (the mypy test checks them per target)
def both_shapes(path: Path) -> tuple[str, str]:
    machine, _ = compile_spec(path, path.relative_to(REPO).as_posix())
    small = module_source(machine)
    with large_shape():
        return small, module_source(machine)


def from_text(text: str, name: str) -> str:
    machine, _ = validate_source(parse_spec_text(text, f"{name}.toml"))
    return module_source(machine)


def load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__["SOURCE"] = source  # for tables(): the names it imports are not its own
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def tables(module: types.ModuleType) -> dict[str, Any]:
    """What the module hands the runtime and its dispatch functions answer, as plain data in
    table order (members by value, guard functions by name), comparable across modules."""
    spec = module.SPEC
    imported = {
        alias.asname or alias.name
        for node in ast.walk(ast.parse(module.SOURCE))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }

    def alternatives(row: Any) -> list[Any]:
        return [
            (a.target.value, a.guard and a.guard.__name__, a.actions, a.checkpoint) for a in row
        ]

    return {
        "public names": sorted(
            name for name in vars(module) if not name.startswith("_") and name not in imported
        ),
        "initial": (spec.initial.value, module.INITIAL_STATE.value),
        "final_states": sorted(state.value for state in spec.final_states),
        "transitions": [
            (state.value, [(event.value, alternatives(found)) for event, found in row.items()])
            for state, row in spec.transitions.items()
        ],
        "entry_actions": [(state.value, names) for state, names in spec.entry_actions.items()],
        "exit_actions": [(state.value, names) for state, names in spec.exit_actions.items()],
        "error_routes": [
            (state.value, route.target.value, route.actions)
            for state, route in spec.error_routes.items()
        ],
        "tags": [(tag, sorted(state.value for state in found)) for tag, found in spec.tags.items()],
        "handler_names": sorted(spec.handler_names),
        "payloads": [(event.value, fields) for event, fields in spec.payloads.items()],
        "event_descriptions": [(e.value, text) for e, text in spec.event_descriptions.items()],
        "dispatch": [
            (
                state.value,
                sorted(event.value for event in module.allowed_events(state)),
                [
                    (event.value, [t.value for t in module.transition_targets(state, event)])
                    for event in spec.event_type
                    if spec.chart is None  # a chart's targets depend on history and regions
                ],
            )
            for state in spec.state_type
        ],
        "chart": None if spec.chart is None else chart_data(spec.chart),
    }


def chart_data(chart: Any) -> Any:
    """A chart as plain data (guard functions by name, members by value)."""

    def plain(value: Any) -> Any:
        if callable(value):
            return value.__name__
        if hasattr(value, "__match_args__"):
            return [type(value).__name__, *(plain(getattr(value, f)) for f in value.__match_args__)]
        if isinstance(value, (tuple, frozenset)):
            return (
                sorted(map(plain, value), key=repr)
                if isinstance(value, frozenset)
                else [plain(item) for item in value]
            )
        return getattr(value, "value", value)

    return plain(chart)


def assert_clean(source: str) -> None:
    assert format_source(source) == source
    assert lint_findings(source) == ""
    assert ruff_formatted(source) == source


@pytest.mark.parametrize("path", SPECS, ids=[spec_name(path) for path in SPECS])
def test_large_shape_builds_the_tables_of_the_small_shape(path: Path) -> None:
    small, large = both_shapes(path)
    assert "TRANSITIONS = _transition_table()" not in small
    # A chart has no TRANSITIONS table: its CHART is the same in both shapes.
    assert "_transition_table()" in large or "CHART: Final = Chart(" in large
    assert "match state:" not in large
    assert tables(load(large, "large")) == tables(load(small, "small"))
    assert_clean(large)


@pytest.mark.slow
@SETTINGS
@given(random_specs())
def test_large_shape_of_random_specs_agrees_and_is_clean(spec: RandomSpec) -> None:
    small = from_text(spec.toml(), "random_spec")
    with large_shape():
        large = from_text(spec.toml(), "random_spec")
        assert from_text(spec.toml(), "random_spec") == large
    assert tables(load(large, "large")) == tables(load(small, "small"))
    assert_clean(large)


def test_large_shape_of_a_machine_without_transitions() -> None:
    with large_shape():
        source = from_text(NO_TRANSITIONS, "still")
    assert '_TRANSITION_LINES: Final = ""\n' in source
    assert load(source, "still").TRANSITIONS == {}
    assert_clean(source)


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_large_shape_modules_pass_mypy_strict(tmp_path: Path, target: str) -> None:
    for path in SPECS:
        _, large = both_shapes(path)
        (tmp_path / f"large_{spec_name(path)}.py").write_text(large, encoding="utf-8")
    with large_shape():
        (tmp_path / "large_still.py").write_text(from_text(NO_TRANSITIONS, "still"), "utf-8")
    # generated/: the README's research machine, which the invoke_task case invokes
    search = os.pathsep.join(str(REPO / folder) for folder in ("runtime", "generated"))
    completed = run_mypy(
        [*STRICT, "--python-version", target],
        sorted(p.name for p in tmp_path.glob("*.py")), cwd=tmp_path, cache_dir=tmp_path / ".cache",
        env={**os.environ, "MYPYPATH": search},
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr

"""Property tests: random valid specs compile to modules that agree with their spec's table."""

from __future__ import annotations

import ast
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from statewright import InvalidTransition, MachineOptions
from statewright_compiler.check.validate import validate_source
from statewright_compiler.codegen.formatter import format_source
from statewright_compiler.codegen.render import render_module
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.compiler.soundness import lint_findings, ruff_formatted
from tests.compiler.specgen import RandomSpec, random_specs
from tests.fuzz import examples
from tests.mypy_cache import STRICT, TARGETS, run_mypy

RUNTIME = Path(__file__).parents[2] / "runtime"
SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def compile_text(text: str, name: str = "random_spec") -> str:
    machine, _ = validate_source(parse_spec_text(text, f"{name}.toml"))
    return module_source(machine)


def load_module(source: str, name: str = "random_spec") -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses and typing resolve names through sys.modules
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


@SETTINGS
@given(random_specs())
def test_dispatch_functions_and_tables_agree_with_the_spec(spec: RandomSpec) -> None:
    source = compile_text(spec.toml())
    module = load_module(source)
    state_type, event_type = module.RandomState, module.RandomEvent
    assert [member.value for member in state_type] == list(spec.states)
    for state in spec.states:
        expected_allowed = {event for event in spec.events if spec.table.get((state, event))}
        assert {e.value for e in module.allowed_events(state_type(state))} == expected_allowed
        for event in spec.events:
            expected = tuple(alt.target for alt in spec.table.get((state, event), ()))
            targets = module.transition_targets(state_type(state), event_type(event))
            assert tuple(target.value for target in targets) == expected
            row = module.TRANSITIONS.get(state_type(state), {}).get(event_type(event), ())
            assert tuple(alternative.target.value for alternative in row) == expected
    assert {state.value for state in module.FINAL_STATES} == set(spec.finals)


@pytest.mark.slow
@SETTINGS
@given(random_specs())
def test_output_is_byte_stable_lint_clean_and_already_formatted(spec: RandomSpec) -> None:
    machine, _ = validate_source(parse_spec_text(spec.toml(), "random_spec.toml"))
    rendered = render_module(machine)
    first = module_source(machine)
    assert compile_text(spec.toml()) == first
    # The layout step changes lines, never code, and is idempotent.
    assert ast.dump(ast.parse(first)) == ast.dump(ast.parse(rendered))
    assert format_source(first) == first
    assert lint_findings(first) == ""
    assert ruff_formatted(first) == first


class FixedGuards:
    """Guards with fixed answers, so the spec table predicts every step."""

    def __init__(self, answers: dict[str, bool]) -> None:
        self.answers = answers

    def __getattr__(self, name: str) -> Any:
        if name in self.answers:
            return lambda context, payload: self.answers[name]
        raise AttributeError(name)


@SETTINGS
@given(random_specs(), st.data())
def test_runtime_follows_the_spec_table(spec: RandomSpec, data: st.DataObject) -> None:
    module = load_module(compile_text(spec.toml()))
    answers = {name: data.draw(st.booleans(), label=name) for name in spec.guards}
    machine = module.RandomMachine(None, FixedGuards(answers), options=MachineOptions())
    state = spec.states[0]
    for event in data.draw(st.lists(st.sampled_from(spec.events), max_size=12), label="events"):
        alternatives = spec.table.get((state, event), ())
        chosen = next(
            (alt for alt in alternatives if alt.guard is None or answers[alt.guard]), None
        )
        if chosen is None or state in spec.finals:
            try:
                machine.send(event)
            except InvalidTransition:
                pass
            else:
                raise AssertionError(f"{state} --{event}--> should be rejected")
        else:
            assert machine.send(event).value == chosen.target
            state = chosen.target
        assert machine.state.value == state


# One example of four modules, one mypy run per target Python; no shrinking (each step would be a
# mypy run). Each target gets its own example (tests/conftest.py seeds each case of the test).
@settings(
    max_examples=1,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(random_specs(), min_size=4, max_size=4))
@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_sampled_random_modules_pass_mypy_strict(
    tmp_path_factory: Any, target: str, specs: list[RandomSpec]
) -> None:
    folder: Path = tmp_path_factory.mktemp("mypy")
    for index, spec in enumerate(specs):
        name = f"random_{index}"
        (folder / f"{name}.py").write_text(compile_text(spec.toml(), name), encoding="utf-8")
    completed = run_mypy(
        [*STRICT, "--python-version", target],
        sorted(folder.glob("*.py")),
        cwd=folder, cache_dir=folder / ".cache", env={**os.environ, "MYPYPATH": str(RUNTIME)},
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr


def large_spec() -> str:
    states = 70  # above render.MATCH_LIMIT
    lines = ['[machine]\nname = "Random"\ninitial = "s0"\n']
    for index in range(states):
        lines.append(f'[states.s{index}]\non.NEXT = "s{(index + 1) % states}"')
        if index % 3 == 0:
            lines.append('on.JUMP = [{ to = "s0", guard = "g" }, { to = "s1" }]')
    lines += ["[events.NEXT]", "[events.JUMP]"]
    return "\n".join(lines) + "\n"


def test_large_machines_get_table_backed_dispatch_that_agrees_with_the_table() -> None:
    source = compile_text(large_spec())
    assert "match state:" not in source
    module = load_module(source)
    for state in module.RandomState:
        row = module.TRANSITIONS.get(state, {})
        assert module.allowed_events(state) == frozenset(row)
        for event in module.RandomEvent:
            expected = tuple(alternative.target for alternative in row.get(event, ()))
            assert module.transition_targets(state, event) == expected


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_large_machine_module_passes_mypy_strict(tmp_path: Path, target: str) -> None:
    (tmp_path / "random_spec.py").write_text(compile_text(large_spec()), encoding="utf-8")
    completed = run_mypy(
        [*STRICT, "--python-version", target], ["random_spec.py"],
        cwd=tmp_path, cache_dir=tmp_path / ".cache", env={**os.environ, "MYPYPATH": str(RUNTIME)},
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr


def keyed_specs() -> dict[str, str]:
    """Payload fields named like ``send_once``'s key, in the small and the large shape."""
    small = (
        '[machine]\nname = "Keyed"\ninitial = "a"\n[states.a]\non.PUT = "b"\n[states.b]\n'
        'on.TAKE = "a"\n[events.PUT]\npayload = { key = "str", key_ = "int" }\n'
        '[events.TAKE]\npayload = { key = "str" }\n'
    )
    large = large_spec().replace(
        "[events.NEXT]", '[events.NEXT]\npayload = { key = "str", "key_" = "int | None" }'
    )
    return {"keyed_small": small, "keyed_large": large}


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_payload_fields_named_like_send_once_s_key_pass_mypy_strict(
    tmp_path: Path, target: str
) -> None:
    for name, text in keyed_specs().items():
        source = compile_text(text, name)
        assert "def send_once(" in source and "key__: str" in source
        load_module(source)  # a duplicate parameter would be a SyntaxError here
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    completed = run_mypy(
        [*STRICT, "--python-version", target],
        ["keyed_small.py", "keyed_large.py"],
        cwd=tmp_path, cache_dir=tmp_path / ".cache", env={**os.environ, "MYPYPATH": str(RUNTIME)},
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr

"""``statewright tools``: each state's events as tool definitions, the same ones a running
machine's ``tools()`` gives in that state, and valid JSON Schemas."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.commands.tools import tool_definitions

from tests.conftest import REPO, run_cli

SPECS = [REPO / "spec" / f"{name}.toml" for name in ("pegasus_task", "remem", "approval_workflow")]


class AnyHandlers:
    def __getattr__(self, name: str) -> object:
        return lambda context, payload: True


@pytest.mark.parametrize("spec", SPECS, ids=lambda path: path.stem)
@pytest.mark.parametrize("flavour", ["openai", "anthropic", "mcp"])
def test_the_command_and_the_running_machine_agree(spec: Path, flavour: str) -> None:
    machine, _ = compile_spec(spec)
    module = importlib.import_module(machine.module_name)
    running = getattr(module, f"{machine.name}Machine")(None, AnyHandlers())
    shape = {"openai": "for_openai", "anthropic": "for_anthropic", "mcp": "for_mcp"}[flavour]
    members = getattr(module, f"{machine.name}State")
    expected = {
        state.name: [getattr(tool, shape)() for tool in running.tools(members[state.member])]
        for state in machine.states
        if state.is_leaf
    }
    assert tool_definitions(machine, flavour) == expected  # type: ignore[arg-type]  # a str from the list
    result = run_cli(["tools", str(spec), "--format", flavour])
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout) == expected


def test_schemas_are_valid_and_names_fit_every_api() -> None:
    for spec in SPECS:
        machine, _ = compile_spec(spec)
        for tools in tool_definitions(machine, "anthropic").values():
            for tool in tools:
                Draft202012Validator.check_schema(tool["input_schema"])
                assert 1 <= len(tool["name"]) <= 64 and tool["name"].isidentifier()
                assert tool["description"]


def test_one_state_and_a_wrong_state() -> None:
    result = run_cli(["tools", str(REPO / "examples" / "door.toml"), "--state", "locked"])
    assert result.code == 0
    assert [tool["name"] for tool in json.loads(result.stdout)["locked"]] == ["UNLOCK"]
    wrong = run_cli(["tools", str(REPO / "examples" / "door.toml"), "--state", "ajar"])
    assert wrong.code == 2 and "'ajar' is not a state of Door" in wrong.stderr

"""Payload types: the generated module imports exactly the ``typing`` names its payloads use."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.pipeline import module_source

from tests.compiler.soundness import ruff_binary

SPEC = """\
[machine]
name = "Carrier"
initial = "idle"

[states.idle]
on.GO = "done"

[states.done]
kind = "final"

[events.GO]
payload = {{ data = {payload} }}
"""


@pytest.mark.parametrize(
    ("payload", "typing_names"),
    [
        ('"Any"', {"Any"}),
        ('"dict[str, Any] | None"', {"Any"}),
        ('"list[object]"', set()),
        ("\"Literal['Any']\"", set()),
        ("\"Literal['x'] | Any\"", {"Any"}),
    ],
)
def test_typing_imports_follow_payload_types(
    tmp_path: Path, payload: str, typing_names: set[str]
) -> None:
    spec = tmp_path / "carrier.toml"
    spec.write_text(SPEC.format(payload=payload), encoding="utf-8")
    machine, _ = compile_spec(spec, "carrier.toml")
    source = module_source(machine)
    imported = {
        alias.name
        for node in ast.parse(source).body
        if isinstance(node, ast.ImportFrom) and node.module == "typing"
        for alias in node.names
    }
    # The machine has no guards, so nothing but the payload asks for Any.
    # Literal is always there: the per-event signatures of send name each event by it.
    fixed = {"TYPE_CHECKING", "ClassVar", "Final", "Literal", "Protocol", "TypedDict", "TypeVar"}
    fixed |= {"final"}
    assert imported - fixed == typing_names
    lint = subprocess.run(
        [ruff_binary(), "check", "--isolated", "--select", "F", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout

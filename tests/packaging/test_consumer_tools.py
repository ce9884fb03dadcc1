"""A consumer project's own ruff, old and new, over the whole tree never makes output stale.

The project is what ``statewright init`` makes, with nothing added: ruff runs with its default
settings (``ruff format .`` then ``ruff check --fix .``), and ``statewright check`` still passes
because generated modules tell formatters and linters to leave them alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import Environment

pytestmark = pytest.mark.slow


def _tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".ruff_cache" not in path.parts
    }


@pytest.mark.parametrize("ruff", ["old", "newest"])
def test_consumer_ruff_leaves_generated_output_alone(
    compiler_environment: Environment, tmp_path: Path, ruff: str
) -> None:
    environment = compiler_environment  # the compiler next to the old ruff a project pinned
    project = tmp_path / "project"
    project.mkdir()
    statewright = environment.command("statewright")
    for command in (["init", "--name", "Order"], ["generate"]):
        result = environment.run([statewright, *command], cwd=project)
        assert result.returncode == 0, result.stdout + result.stderr
    generated = _tree(project)
    assert "generated/order.py" in generated
    # The old ruff is the consumer's pin; the newest is the one this repository develops with.
    ruff_command = (
        [environment.command("ruff")] if ruff == "old" else [sys.executable, "-m", "ruff"]
    )
    version = environment.run([*ruff_command, "--version"], cwd=project)
    assert version.returncode == 0, version.stderr
    for arguments in (["format", "."], ["check", "--fix", "."]):
        result = environment.run([*ruff_command, *arguments], cwd=project)
        assert result.returncode == 0, f"{version.stdout}: {result.stdout}{result.stderr}"
    assert _tree(project) == generated, version.stdout
    result = environment.run([statewright, "check"], cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr

"""The ``statewright`` command as a user drives it: exit codes, staleness, nothing half-written."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

SPEC = """\
[machine]
name = "Door"
initial = "closed"

[states.closed]
on.OPEN = "open"

[states.open]
on.CLOSE = "closed"

[events.OPEN]
[events.CLOSE]
"""

PYPROJECT = """\
[tool.statewright]
specs = ["spec/*.toml"]
output = "generated"
docs = "docs/machines"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A consumer project with one spec and a [tool.statewright] table."""
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "door.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return tmp_path


def test_generate_then_check_is_clean(project: Path) -> None:
    generated = run_cli(["generate"], cwd=project)
    assert generated.code == 0, generated.stderr
    assert "wrote generated/door.py" in generated.stdout
    assert (project / "docs" / "machines" / "door.md").is_file()
    checked = run_cli(["check"], cwd=project)
    assert checked.code == 0, checked.stderr
    assert run_cli(["generate"], cwd=project).stdout.endswith("up to date\n")


def test_mutated_spec_makes_check_fail_and_name_the_file(project: Path) -> None:
    assert run_cli(["generate"], cwd=project).code == 0
    spec = project / "spec" / "door.toml"
    spec.write_text(SPEC.replace('on.CLOSE = "closed"', 'on.CLOSE = "closed"\non.OPEN = "open"'))
    result = run_cli(["check", "--diff"], cwd=project)
    assert result.code == 1
    assert "stale: generated/door.py" in result.stderr
    assert "stale: docs/machines/door.md" in result.stderr
    assert "+++ generated/door.py (generated)" in result.stdout


def test_hand_edited_output_is_stale(project: Path) -> None:
    assert run_cli(["generate"], cwd=project).code == 0
    module = project / "generated" / "door.py"
    module.write_text(module.read_text() + "\n# edited\n")
    assert run_cli(["check"], cwd=project).code == 1


def test_orphaned_module_is_stale_and_removed_by_generate(project: Path) -> None:
    assert run_cli(["generate"], cwd=project).code == 0
    shutil.copy(project / "generated" / "door.py", project / "generated" / "old.py")
    assert "old.py has no spec" in run_cli(["check"], cwd=project).stderr
    assert run_cli(["generate"], cwd=project).code == 0
    assert not (project / "generated" / "old.py").exists()


def test_invalid_spec_writes_nothing(project: Path) -> None:
    assert run_cli(["generate"], cwd=project).code == 0
    before = (project / "generated" / "door.py").read_text()
    (project / "spec" / "door.toml").write_text(SPEC.replace('"open"\n', '"opne"\n', 1))
    (project / "spec" / "window.toml").write_text(SPEC.replace("Door", "Window"))
    result = run_cli(["generate"], cwd=project)
    assert result.code == 1
    assert "spec/door.toml:6:11: error[unknown-state]" in result.stderr
    assert "did you mean 'open'?" in result.stderr
    assert "nothing written" in result.stderr
    assert (project / "generated" / "door.py").read_text() == before
    assert not (project / "generated" / "window.py").exists()


def test_generation_needs_no_formatter(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The bytes do not depend on the user's tools: the same output without any ruff at all."""
    with_ruff = tmp_path_factory.mktemp("with_ruff")
    shutil.copytree(project, with_ruff, dirs_exist_ok=True)
    assert run_cli(["generate"], cwd=with_ruff).code == 0
    monkeypatch.setitem(sys.modules, "ruff", None)  # as if ruff were not installed
    monkeypatch.setitem(sys.modules, "ruff.__main__", None)
    monkeypatch.setenv("PATH", "")
    result = run_cli(["generate"], cwd=project)
    assert result.code == 0, result.stderr
    generated = project / "generated" / "door.py"
    assert generated.read_bytes() == (with_ruff / "generated" / "door.py").read_bytes()


def test_output_is_deterministic(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    other = tmp_path_factory.mktemp("again")
    shutil.copytree(project, other, dirs_exist_ok=True)
    assert run_cli(["generate"], cwd=project).code == 0
    assert run_cli(["generate"], cwd=other).code == 0
    for relative in ["generated/door.py", "docs/machines/door.md"]:
        assert (project / relative).read_bytes() == (other / relative).read_bytes()


def test_validate_reports_counts(project: Path) -> None:
    result = run_cli(["validate", "spec/door.toml"], cwd=project)
    assert result.code == 0
    assert result.stdout == "spec/door.toml: ok (2 states, 2 events, 2 transitions)\n"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["validate", "spec/missing.toml"], "no such spec file: spec/missing.toml"),
        (["generate", "--bogus"], "unrecognized arguments: --bogus"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_usage_errors_exit_2(project: Path, arguments: list[str], message: str) -> None:
    result = run_cli(arguments, cwd=project)
    assert result.code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_unreadable_and_non_utf8_specs(project: Path) -> None:
    bad = project / "spec" / "bad.toml"
    bad.write_bytes(b'[machine]\nname = "X\xff"\n')
    result = run_cli(["validate", "spec/bad.toml"], cwd=project)
    assert result.code == 1
    expected = "spec/bad.toml:2:10: error[toml-syntax]: the file is not valid UTF-8"
    assert result.stderr.startswith(expected)


def test_no_specs_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    result = run_cli(["generate"], cwd=tmp_path)
    assert result.code == 2
    assert "no spec files found" in result.stderr


def test_bad_configuration_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.statewright]\nspecz = ["x"]\n')
    result = run_cli(["generate"], cwd=tmp_path)
    assert result.code == 2
    assert "unknown [tool.statewright] keys: specz" in result.stderr


def test_schema_is_json_and_names_every_section() -> None:
    result = run_cli(["schema"])
    schema = json.loads(result.stdout)
    assert result.code == 0
    assert set(schema["properties"]) == {
        "machine", "imports", "states", "events", "transitions", "error_handlers", "data",
    }  # fmt: skip


def test_seed_specs_are_valid(repo: Path) -> None:
    result = run_cli(["validate"], cwd=repo)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    specs = [*(repo / "spec").glob("*.toml"), *(repo / "examples").glob("*.toml")]
    assert result.stdout.count(": ok (") == len(specs)


def test_configured_schema_file_is_generated_and_checked(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PYPROJECT + 'schema = "spec/statewright.schema.json"\n')
    assert run_cli(["generate"], cwd=project).code == 0
    schema = project / "spec" / "statewright.schema.json"
    assert schema.read_text() == run_cli(["schema"]).stdout
    schema.write_text("{}\n")
    result = run_cli(["check"], cwd=project)
    assert result.code == 1
    assert "stale: spec/statewright.schema.json" in result.stderr


@pytest.mark.slow
def test_python_dash_m_entry_point(repo: Path) -> None:
    import subprocess
    import sys

    completed = subprocess.run(
        [sys.executable, "-m", "statewright_compiler", "--version"],
        capture_output=True, text=True, check=False, cwd=REPO,
    )  # fmt: skip
    assert completed.returncode == 0
    assert completed.stdout.startswith("statewright ")

"""``statewright init``: a project set up in one command, idempotently, never overwriting a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from statewright_compiler.spec.schema import schema_json
from statewright_compiler.spec.toml_compat import tomllib

from tests.conftest import run_cli


def _files(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_init_sets_up_a_project_that_generates_and_checks(tmp_path: Path) -> None:
    result = run_cli(["init", "--name", "Order"], cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines()[:4] == [
        "created pyproject.toml",
        "created spec/order.toml",
        "created spec/statewright.schema.json",
        "created .pre-commit-config.yaml",
    ]
    config = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["statewright"]
    assert config["schema"] == "spec/statewright.schema.json"
    spec = (tmp_path / "spec" / "order.toml").read_text()
    assert spec.startswith("#:schema ./statewright.schema.json\n")
    assert 'name = "Order"' in spec
    assert (tmp_path / "spec" / "statewright.schema.json").read_text() == schema_json()
    assert "entry: statewright check" in (tmp_path / ".pre-commit-config.yaml").read_text()
    assert run_cli(["generate"], cwd=tmp_path).code == 0
    assert (tmp_path / "generated" / "order.py").is_file()
    assert run_cli(["check"], cwd=tmp_path).code == 0


def test_init_twice_changes_nothing(tmp_path: Path) -> None:
    assert run_cli(["init"], cwd=tmp_path).code == 0
    before = _files(tmp_path)
    again = run_cli(["init"], cwd=tmp_path)
    assert again.code == 0, again.stderr
    assert "already set up; nothing changed" in again.stdout
    assert _files(tmp_path) == before


def test_init_never_overwrites_and_writes_nothing_on_conflict(tmp_path: Path) -> None:
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "task.toml").write_text("# mine\n", encoding="utf-8")
    result = run_cli(["init"], cwd=tmp_path)
    assert result.code == 1
    assert "task.toml exists with other content" in result.stderr
    assert "nothing written" in result.stderr
    assert _files(tmp_path) == {"spec/task.toml": "# mine\n"}


def test_init_appends_its_table_to_an_existing_pyproject(tmp_path: Path) -> None:
    original = '[project]\nname = "shop"\nversion = "1"\n\n[tool.ruff]\nline-length = 88\n'
    (tmp_path / "pyproject.toml").write_text(original, encoding="utf-8")
    result = run_cli(["init", "--no-pre-commit"], cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert "added [tool.statewright] to pyproject.toml" in result.stdout
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(original)
    assert tomllib.loads(text)["tool"]["ruff"] == {"line-length": 88}
    assert not (tmp_path / ".pre-commit-config.yaml").exists()


def test_init_follows_an_existing_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.statewright]\nspecs = ["machines/*.toml"]\noutput = "src/app/machines"\n',
        encoding="utf-8",
    )
    before = (tmp_path / "pyproject.toml").read_text()
    result = run_cli(["init", "--name", "Payment", "--no-pre-commit"], cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert (tmp_path / "pyproject.toml").read_text() == before
    assert (tmp_path / "machines" / "payment.toml").is_file()
    assert run_cli(["generate"], cwd=tmp_path).code == 0
    assert (tmp_path / "src" / "app" / "machines" / "payment.py").is_file()


def test_a_pre_commit_config_without_the_hook_is_a_conflict(tmp_path: Path) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    result = run_cli(["init"], cwd=tmp_path)
    assert result.code == 1
    assert "--no-pre-commit" in result.stderr and "statewright-check" in result.stderr
    assert _files(tmp_path) == {".pre-commit-config.yaml": "repos: []\n"}


@pytest.mark.parametrize("name", ["order", "Not-A-Name", "class"])
def test_a_bad_name_is_a_usage_error(tmp_path: Path, name: str) -> None:
    result = run_cli(["init", "--name", name], cwd=tmp_path)
    assert result.code == 2
    assert "PascalCase" in result.stderr
    assert _files(tmp_path) == {}

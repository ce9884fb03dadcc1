"""``statewright check`` against a deploy baseline (``--against REV`` or ``[tool.statewright]
deploy_baseline``): a spec changed incompatibly since the baseline must have raised its
``version``; without a baseline ``check`` behaves as before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.deploy.bases import FLAT, edited
from tests.deploy.git_repository import git, remove_rejected

BASELINE = '\ndeploy_baseline = "main"\n'


def _generate(repo: Path) -> None:
    assert run_cli(["generate"], cwd=repo).code == 0


def test_an_incompatible_change_without_a_bump_is_refused(repository: Path) -> None:
    remove_rejected(repository)
    _generate(repository)
    result = run_cli(["check", "--against", "main"], cwd=repository)
    assert result.code == 1
    line = next(line for line in result.stderr.splitlines() if "version-not-bumped" in line)
    assert re.fullmatch(
        r"spec/order\.toml:4:11: error\[version-not-bumped\]: changed incompatibly since "
        r"main:spec/order\.toml but kept version 1: state-removed states\.rejected",
        line,
    ), line
    assert "hint: set version = 2 and migrate stored instances" in result.stderr
    assert "Traceback" not in result.stderr


def test_without_a_baseline_check_behaves_as_before(repository: Path) -> None:
    remove_rejected(repository)
    _generate(repository)
    result = run_cli(["check"], cwd=repository)
    assert result.code == 0, result.stderr
    assert "version-not-bumped" not in result.stderr


def test_the_baseline_from_the_configuration(repository: Path) -> None:
    pyproject = repository / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + BASELINE, encoding="utf-8")
    remove_rejected(repository)
    _generate(repository)
    assert "error[version-not-bumped]" in run_cli(["check"], cwd=repository).stderr
    # --against overrides the configuration: at HEAD~0 = main, the same verdict; a bump passes
    remove_rejected(repository, version=2)
    _generate(repository)
    result = run_cli(["check"], cwd=repository)
    assert result.code == 0, result.stderr


def test_a_bumped_version_or_a_compatible_change_passes(repository: Path) -> None:
    remove_rejected(repository, version=2)
    _generate(repository)
    assert run_cli(["check", "--against", "main"], cwd=repository).code == 0
    spec = repository / "spec" / "order.toml"
    spec.write_text(FLAT.replace('"An order."', '"A customer order."'), encoding="utf-8")
    _generate(repository)
    assert run_cli(["check", "--against", "main"], cwd=repository).code == 0


def test_a_spec_the_baseline_does_not_have_is_new(repository: Path) -> None:
    text = edited(FLAT, (('name = "Order"', 'name = "Refund"'),))
    (repository / "spec" / "refund.toml").write_text(text, encoding="utf-8")
    _generate(repository)
    result = run_cli(["check", "--against", "main"], cwd=repository)
    assert result.code == 0, result.stderr


def test_a_stale_output_and_a_missing_bump_are_both_reported(repository: Path) -> None:
    _generate(repository)
    remove_rejected(repository)
    result = run_cli(["check", "--against", "main"], cwd=repository)
    assert result.code == 1
    assert "error[version-not-bumped]" in result.stderr
    assert "stale: generated/order.py" in result.stderr


def test_an_unknown_baseline_is_a_usage_error(repository: Path) -> None:
    _generate(repository)
    result = run_cli(["check", "--against", "no-such-branch"], cwd=repository)
    assert result.code == 2
    assert result.stderr.startswith("statewright: error: deploy baseline 'no-such-branch': ")
    assert "Traceback" not in result.stderr


def test_a_baseline_outside_a_git_repository_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "order.toml").write_text(FLAT, encoding="utf-8")
    _generate(tmp_path)
    result = run_cli(["check", "--against", "main"], cwd=tmp_path)
    assert result.code == 2
    assert "Traceback" not in result.stderr


def test_a_baseline_that_does_not_compile_is_a_warning(repository: Path) -> None:
    (repository / "spec" / "order.toml").write_text(FLAT.replace('"review"', '"reviw"', 1))
    git(repository, "commit", "-q", "-am", "broken")
    (repository / "spec" / "order.toml").write_text(FLAT, encoding="utf-8")
    _generate(repository)
    result = run_cli(["check", "--against", "HEAD"], cwd=repository)
    assert result.code == 0, result.stderr
    assert "warning[baseline-invalid]: HEAD:spec/order.toml does not compile" in result.stderr


@pytest.mark.parametrize("value", ['""', "1", "[]"])
def test_a_malformed_deploy_baseline_is_a_configuration_error(repository: Path, value: str) -> None:
    pyproject = repository / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + f"deploy_baseline = {value}\n", encoding="utf-8")
    result = run_cli(["check"], cwd=repository)
    assert result.code == 2
    assert "tool.statewright.deploy_baseline must be a git revision" in result.stderr

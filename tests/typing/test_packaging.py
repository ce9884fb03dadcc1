"""mypy resolves both packages for a consumer project after an editable and a normal install.

No network: the wheels are built in-process with hatchling's PEP 517 hooks, installed by
unpacking them into a fresh virtual environment (made without pip), and mypy from this
environment checks a consumer project against that interpreter (``--python-executable``).
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import working_directory
from tests.typing import CASES, REPO, TIMEOUT, run_mypy

BuildHook = Callable[[str], str]
PACKAGES = ("statewright", "statewright_compiler")


def _build_hooks() -> dict[str, BuildHook]:
    """hatchling's ``build_wheel`` and ``build_editable``; skip without hatchling, except in CI."""
    try:
        backend = importlib.import_module("hatchling.build")
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("hatchling is not importable; the packaging tests must run in CI")
        pytest.skip("hatchling is not importable")
    return {"wheel": backend.build_wheel, "editable": backend.build_editable}


def _build(kind: str, directory: Path) -> Path:
    directory.mkdir()
    with working_directory(REPO):
        name = _build_hooks()[kind](str(directory))
    return directory / name


def _venv(path: Path) -> tuple[Path, Path]:
    """A fresh virtual environment without pip: its interpreter and its site-packages."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=TIMEOUT
    )
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    ).stdout.strip()
    return python, Path(purelib)


def _consumer(path: Path) -> Path:
    path.mkdir()
    shutil.copyfile(CASES / "packaging_consumer.py.txt", path / "consumer.py")
    shutil.copyfile(REPO / "generated" / "pegasus_task.py", path / "pegasus_task.py")
    return path


def _check_editable_wheel(names: list[str], archive: zipfile.ZipFile) -> None:
    """A plain .pth of folder paths: no import hook (a finder module) that mypy cannot follow."""
    pth = [name for name in names if name.endswith(".pth")]
    assert len(pth) == 1, names
    lines = archive.read(pth[0]).decode().splitlines()
    expected = [str(REPO / folder) for folder in ("runtime", "generator", "generated")]
    assert sorted(lines) == sorted(expected), lines
    top_level_code = [name for name in names if "/" not in name and name.endswith(".py")]
    assert top_level_code == [], f"editable wheel installs an import hook: {top_level_code}"


def _check_wheel(names: list[str]) -> None:
    expected = [f"{package}/{file}" for package in PACKAGES for file in ("__init__.py", "py.typed")]
    assert [name for name in expected if name not in names] == [], "missing from the wheel"
    assert "statewright_compiler/templates/module.py.jinja" in names


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["editable", "wheel"])
def test_mypy_resolves_installed_packages(tmp_path: Path, kind: str) -> None:
    wheel = _build(kind, tmp_path / "dist")
    python, site_packages = _venv(tmp_path / "venv")
    consumer = _consumer(tmp_path / "consumer")

    # Control: before the install mypy finds neither package, so the check below is meaningful.
    result, _ = run_mypy(["consumer.py"], consumer, python_executable=python)
    assert result.code == 1, result.output
    for package in PACKAGES:
        assert f'module named "{package}"' in result.output, result.output

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        if kind == "editable":
            _check_editable_wheel(names, archive)
        else:
            _check_wheel(names)
        archive.extractall(site_packages)

    result, messages = run_mypy(["consumer.py"], consumer, python_executable=python)
    assert (result.code, messages) == (0, []), result.output

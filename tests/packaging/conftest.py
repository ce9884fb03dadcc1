"""Fixtures: the statewright wheel (built in-process with hatchling) and fresh environments.

Installs never reach a package index: ``pip install --no-index`` from the built wheel and from
``.cache/wheelhouse``, which ``make wheelhouse`` fills (the compiler's dependencies and an old
ruff). Without it these tests skip locally and fail under ``CI=true``.

The environments are made without pip (``venv --without-pip``) and pip -- this interpreter's, the
real one -- installs into them with ``--python``: seeding pip into each new environment
(ensurepip) cost some five CPU seconds per environment, more than the installs themselves.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO, working_directory

TIMEOUT = 300
WHEELHOUSE = REPO / ".cache" / "wheelhouse"


def _require(condition: bool, message: str) -> None:
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message} [CI=true: the packaging tests must run]", pytrace=False)
    pytest.skip(message)


@dataclass(frozen=True)
class Environment:
    """A fresh virtual environment without pip, isolated from the user's pip configuration; pip
    runs from this interpreter and installs into it (``pip --python``)."""

    root: Path

    @property
    def python(self) -> Path:
        return self.root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

    def command(self, name: str) -> Path:
        return self.root / ("Scripts" if os.name == "nt" else "bin") / name

    def run(
        self, arguments: Sequence[str | Path], cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(argument) for argument in arguments],
            cwd=cwd,
            env=clean_environment(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )

    @property
    def _pip(self) -> list[str | Path]:
        return [sys.executable, "-m", "pip", "--python", self.python]

    def pip_install(self, *requirements: str, find_links: Sequence[Path]) -> None:
        links = [argument for folder in find_links for argument in ("--find-links", str(folder))]
        result = self.run([*self._pip, "install", "--no-index", *links, *requirements])
        assert result.returncode == 0, result.stdout + result.stderr

    def installed(self) -> dict[str, str]:
        """Distribution name (lower case) -> version, as ``pip list`` reports them."""
        result = self.run([*self._pip, "list", "--format", "json"])
        assert result.returncode == 0, result.stderr
        return {item["name"].lower(): item["version"] for item in json.loads(result.stdout)}


def clean_environment() -> dict[str, str]:
    """The caller's environment without pip settings, PYTHONPATH or an active virtualenv."""
    drop = {"PYTHONPATH", "MYPYPATH", "VIRTUAL_ENV", "PYTHONHOME"}
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in drop and not name.startswith("PIP_")
    }
    environment["PIP_CONFIG_FILE"] = os.devnull
    environment["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return environment


def make_environment(path: Path) -> Environment:
    result = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(path)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return Environment(path)


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the statewright wheel, built from this checkout without network."""
    try:
        backend = importlib.import_module("hatchling.build")
    except ImportError:
        _require(False, "hatchling is not importable")
        raise
    folder = tmp_path_factory.mktemp("dist")
    with working_directory(REPO):
        backend.build_wheel(str(folder))
    return folder


@pytest.fixture(scope="session")
def wheelhouse() -> Path:
    _require(
        (WHEELHOUSE / ".complete").is_file(),
        f"no wheelhouse at {WHEELHOUSE}: run `make wheelhouse`",
    )
    return WHEELHOUSE


@pytest.fixture(scope="session")
def compiler_environment(
    dist: Path, wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory
) -> Environment:
    """``pip install 'statewright[compiler]' ruff==<old>``: the compiler installed next to the old
    ruff a project pinned. Installed once for the test that checks that install and those that use
    it (an install into a fresh environment costs some ten CPU seconds); none of them changes it."""
    environment = make_environment(tmp_path_factory.mktemp("compiler") / "venv")
    environment.pip_install(
        "statewright[compiler]",
        f"ruff=={old_ruff_version(wheelhouse)}",
        find_links=[dist, wheelhouse],
    )
    return environment


def old_ruff_version(wheelhouse: Path) -> str:
    """The ruff release the wheelhouse holds (the one a project "pins")."""
    wheels = sorted(wheelhouse.glob("ruff-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0].name.split("-")[1]

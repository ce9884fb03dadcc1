"""What ``pip install statewright`` and ``pip install 'statewright[compiler]'`` bring along."""

from __future__ import annotations

import shutil
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from statewright_compiler.spec.toml_compat import tomllib

from tests.conftest import REPO
from tests.packaging.conftest import Environment, make_environment, old_ruff_version

pytestmark = pytest.mark.slow

SCENARIO = """\
from pegasus_task import PegasusTaskMachine, PegasusTaskState

class Decide:
    def __getattr__(self, name):
        return lambda context, payload: False

machine = PegasusTaskMachine(None, Decide())
machine.task_created(input_text="hello", source="cli")
assert machine.state is PegasusTaskState.PERCEIVING, machine.state
import sys
heavy = sorted({"jinja2", "statewright_compiler"} & set(sys.modules))
assert not heavy, heavy
print("ran")
"""


def _wheel(dist: Path) -> Path:
    wheels = sorted(dist.glob("statewright-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_metadata_licence_urls_classifiers_and_no_dependencies(dist: Path) -> None:
    with zipfile.ZipFile(_wheel(dist)) as archive:
        names = archive.namelist()
        metadata_name = next(name for name in names if name.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
        licence = [name for name in names if name.endswith("/licenses/LICENSE")]
        assert licence, names
        assert "MIT License" in archive.read(licence[0]).decode()
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Requires-Python"] == ">=3.10"
    assert {url.split(",")[0] for url in metadata.get_all("Project-URL") or []} >= {
        "Homepage",
        "Documentation",
        "Repository",
        "Issues",
    }
    classifiers = metadata.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert {f"Programming Language :: Python :: 3.{minor}" for minor in range(10, 14)} <= set(
        classifiers
    )
    # Every requirement belongs to an extra: the runtime needs nothing.
    requirements = metadata.get_all("Requires-Dist") or []
    assert requirements and all("extra ==" in requirement for requirement in requirements)
    assert not any(requirement.startswith("ruff") and "extra == \"compiler\"" in requirement
                   for requirement in requirements)  # fmt: skip


def test_the_mcp_extra_brings_the_sdk_and_the_compiler_and_ships_the_server(dist: Path) -> None:
    with zipfile.ZipFile(_wheel(dist)) as archive:
        names = archive.namelist()
        metadata_name = next(name for name in names if name.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
    assert "statewright_compiler/mcp_server/server.py" in names
    assert "mcp" in (metadata.get_all("Provides-Extra") or [])
    requirements = {
        r.replace(" ", "").replace('"', "'") for r in metadata.get_all("Requires-Dist") or []
    }
    # (hatchling writes the compiler extra's own requirements in place of statewright[compiler])
    assert {"mcp>=2.3;extra=='mcp'", "jinja2>=3.1;extra=='mcp'"} <= requirements
    # only statewright_compiler.mcp_server imports the SDK: tests/test_structure.py holds it to that


def test_runtime_only_install_adds_nothing_else_and_runs_generated_modules(
    dist: Path, tmp_path: Path
) -> None:
    environment = make_environment(tmp_path / "venv")
    before = environment.installed()
    environment.pip_install("statewright", find_links=[dist])
    added = set(environment.installed()) - set(before)
    assert added == {"statewright"}

    app = tmp_path / "app"
    app.mkdir()
    shutil.copyfile(REPO / "generated" / "pegasus_task.py", app / "pegasus_task.py")
    (app / "main.py").write_text(SCENARIO, encoding="utf-8")
    result = environment.run([environment.python, "main.py"], cwd=app)
    assert (result.returncode, result.stdout) == (0, "ran\n"), result.stderr

    # The command is there, and says what is missing instead of a traceback.
    result = environment.run([environment.command("statewright"), "generate"], cwd=app)
    assert result.returncode == 2
    assert "pip install 'statewright[compiler]'" in result.stderr
    assert "Traceback" not in result.stderr

    # --version answers without the compiler, and names what the commands need.
    result = environment.run([environment.command("statewright"), "--version"], cwd=app)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"statewright {_project_version()} (runtime only;")
    assert "pip install 'statewright[compiler]'" in result.stdout
    for arguments in (["init"], ["check"], ["--help"], []):
        result = environment.run([environment.command("statewright"), *arguments], cwd=app)
        assert result.returncode == 2, (arguments, result.stdout, result.stderr)
        assert "pip install 'statewright[compiler]'" in result.stderr
        assert "Traceback" not in result.stderr


def _project_version() -> str:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    version: str = project["version"]
    return version


def test_compiler_installs_next_to_an_old_pinned_ruff(
    compiler_environment: Environment, wheelhouse: Path
) -> None:
    """``compiler_environment`` (conftest.py) is that install: it succeeded, and brought this."""
    environment = compiler_environment
    installed = environment.installed()
    assert installed["ruff"] == old_ruff_version(wheelhouse)
    assert {"statewright", "jinja2", "markupsafe"} <= set(installed)
    if sys.version_info < (3, 11):
        assert "tomli" in installed
    result = environment.run([environment.command("statewright"), "--version"])
    assert result.returncode == 0, result.stderr


def test_installed_environment_fixture_is_isolated(tmp_path: Path) -> None:
    """Control: a fresh environment has no statewright, so the checks above are meaningful."""
    environment: Environment = make_environment(tmp_path / "venv")
    assert "statewright" not in environment.installed()

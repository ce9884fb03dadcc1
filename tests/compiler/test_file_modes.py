"""Files the ``statewright`` command writes get the mode ``open()`` would give them.

A container built as root and run as another user must be able to read generated modules: every
command that writes a file (atomically or not) creates it with 0666 less the umask, as ``open()``
does, rather than the 0600 of a private temporary file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli

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

CHART = (
    '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="a">'
    '<state id="a"><transition event="go" target="done"/></state><final id="done"/></scxml>'
)


@pytest.fixture(params=[0o022, 0o077], ids=["umask022", "umask077"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    mask: int = request.param
    previous = os.umask(mask)
    try:
        yield mask
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _written(root: Path) -> dict[str, int]:
    return {
        path.relative_to(root).as_posix(): _mode(path)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _project(root: Path) -> Path:
    (root / "spec").mkdir()
    (root / "spec" / "door.toml").write_text(SPEC, encoding="utf-8")
    (root / "door.scxml").write_text(CHART, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("arguments", "written"),
    [
        (
            ["generate", "spec/door.toml", "-o", "out", "--docs", "pages"],
            ["out/door.py", "pages/door.md"],
        ),
        (["docs", "spec/door.toml", "-o", "pages"], ["pages/door.md"]),
        (["import-scxml", "door.scxml", "-o", "spec/imported.toml"], ["spec/imported.toml"]),
        (["export-scxml", "spec/door.toml", "-o", "door.out.scxml"], ["door.out.scxml"]),
        (["diagram", "spec/door.toml", "-o", "door.mmd"], ["door.mmd"]),
        (["init", "--name", "Order"], ["pyproject.toml", "spec/order.toml"]),
    ],
    ids=["generate", "docs", "import-scxml", "export-scxml", "diagram", "init"],
)
def test_written_files_honour_the_umask(
    umask: int, tmp_path: Path, arguments: list[str], written: list[str]
) -> None:
    project = _project(tmp_path)
    before = set(_written(project))
    result = run_cli(arguments, cwd=project)
    assert result.code == 0, result.stderr
    modes = {name: mode for name, mode in _written(project).items() if name not in before}
    assert set(written) <= set(modes)
    assert modes == dict.fromkeys(modes, 0o666 & ~umask), {k: oct(v) for k, v in modes.items()}


def test_a_replaced_file_honours_the_umask_too(umask: int, tmp_path: Path) -> None:
    """An atomic rewrite (temp file, rename) of a changed module gets the same mode."""
    project = _project(tmp_path)
    assert run_cli(["generate", "spec/door.toml", "-o", "out"], cwd=project).code == 0
    spec = project / "spec" / "door.toml"
    spec.write_text(SPEC.replace("[events.CLOSE]", '[events.CLOSE]\ndescription = "Shut."'))
    result = run_cli(["generate", "spec/door.toml", "-o", "out"], cwd=project)
    assert "wrote out/door.py" in result.stdout, result.stderr
    assert _mode(project / "out" / "door.py") == 0o666 & ~umask
    assert not [path for path in (project / "out").iterdir() if path.name.startswith(".")]

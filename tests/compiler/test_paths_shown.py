"""Paths in messages: relative to the project or the working folder when inside it, else as given.

A spec elsewhere used to be shown relative to the working folder (``../../../../tmp/x.toml``);
now it is shown as the user wrote it, so an absolute path stays absolute.
"""

from __future__ import annotations

from pathlib import Path

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


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    """A working folder deep inside one tree, and a spec folder in another."""
    work = tmp_path / "work" / "a" / "b" / "c"
    work.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "door.toml").write_text(SPEC, encoding="utf-8")
    return work, elsewhere


def test_a_spec_elsewhere_is_shown_as_given(tmp_path: Path) -> None:
    work, elsewhere = _folders(tmp_path)
    spec = (elsewhere / "door.toml").as_posix()
    result = run_cli(["validate", spec], cwd=work)
    assert result.code == 0, result.stderr
    assert result.stdout.startswith(f"{spec}: ok (")
    (elsewhere / "door.toml").write_text(SPEC.replace('"open"\n', '"opn"\n', 1))
    result = run_cli(["validate", spec], cwd=work)
    assert result.stderr.startswith(f"{spec}:6:")
    assert "../" not in result.stderr


def test_outputs_elsewhere_are_shown_as_given(tmp_path: Path) -> None:
    work, elsewhere = _folders(tmp_path)
    out = (elsewhere / "out").as_posix()
    result = run_cli(["generate", "../../../../elsewhere/door.toml", "-o", out], cwd=work)
    assert result.code == 0, result.stderr
    assert result.stdout == f"wrote {out}/door.py\n"
    header = (elsewhere / "out" / "door.py").read_text().splitlines()[1]
    assert header == "# Source: ../../../../elsewhere/door.toml"


def test_paths_inside_the_working_folder_stay_relative(tmp_path: Path) -> None:
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "door.toml").write_text(SPEC, encoding="utf-8")
    result = run_cli(["generate", str(tmp_path / "spec" / "door.toml"), "-o", "out"], cwd=tmp_path)
    assert result.stdout == "wrote out/door.py\n", result.stderr
    assert run_cli(["validate", "spec/door.toml"], cwd=tmp_path).stdout.startswith(
        "spec/door.toml: ok ("
    )

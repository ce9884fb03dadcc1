"""``statewright diagram -o FILE``: the file's extension picks the format when --format is not
given, so ``-o x.svg`` writes SVG; an extension that names no format is a usage error (exit 2),
never Mermaid text in a file named for something else."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.docs.tools import dot_executable

SPEC = REPO / "examples" / "door.toml"

#: What each format's bytes look like.
SIGNATURES: dict[str, Callable[[bytes], bool]] = {
    "svg": lambda data: b"<svg" in data and not data.startswith(b"stateDiagram"),
    "png": lambda data: data.startswith(b"\x89PNG\r\n\x1a\n"),
    "pdf": lambda data: data.startswith(b"%PDF-"),
    "mermaid": lambda data: data.startswith(b"stateDiagram-v2\n"),
    "dot": lambda data: b"\ndigraph " in data,
}


@pytest.mark.parametrize(
    ("file_name", "kind"),
    [
        ("door.svg", "svg"),
        ("door.PNG", "png"),
        ("door.pdf", "pdf"),
        ("door.mmd", "mermaid"),
        ("door.mermaid", "mermaid"),
        ("door.dot", "dot"),
        ("door.gv", "dot"),
    ],
)
def test_the_extension_picks_the_format(tmp_path: Path, file_name: str, kind: str) -> None:
    if kind in {"svg", "png", "pdf"}:
        dot_executable()
    result = run_cli(["diagram", str(SPEC), "-o", file_name], cwd=tmp_path)
    assert result.code == 0, result.stderr
    data = (tmp_path / file_name).read_bytes()
    assert SIGNATURES[kind](data), data[:80]


def test_format_given_wins_over_the_extension(tmp_path: Path) -> None:
    result = run_cli(["diagram", str(SPEC), "--format", "dot", "-o", "door.txt"], cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert SIGNATURES["dot"]((tmp_path / "door.txt").read_bytes())


@pytest.mark.parametrize("file_name", ["door.txt", "door", "door.jpeg"])
def test_an_extension_that_names_no_format_is_a_usage_error(tmp_path: Path, file_name: str) -> None:
    result = run_cli(["diagram", str(SPEC), "-o", file_name], cwd=tmp_path)
    assert result.code == 2
    assert f"cannot tell the diagram format from {file_name!r}" in result.stderr
    assert "--format" in result.stderr and ".svg" in result.stderr
    assert not (tmp_path / file_name).exists()


@pytest.mark.slow
def test_standard_output_is_mermaid_by_default(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "statewright_compiler", "diagram", str(SPEC)]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, check=False)
    assert result.returncode == 0, result.stderr
    assert SIGNATURES["mermaid"](result.stdout)

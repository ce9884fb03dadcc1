"""The README and the walkthrough run as written, and every link in the docs resolves.

See :mod:`tests.docs.runnable` for how each kind of block is run. The pages run in a copy of the
repository, so commands that write files leave this checkout alone.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.docs.runnable import (
    ILLUSTRATIONS,
    Block,
    Shell,
    blocks,
    console_steps,
    environment_with,
    interpreter_bin,
)
from tests.mypy_cache import RUNNING, STRICT, run_mypy

#: Each page, with the blocks it shows without running them (by name; each says why).
PAGES = {
    "README.md": {"install", "make", "config", "mcp-config", "invoke-excerpt"},
    "docs/walkthrough.md": {"spec-excerpt", "protocol-excerpt", "consumer-excerpt"},
}
LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def _copy_of_repository(destination: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def _run_python(block: Block, shell: Shell, index: int) -> None:
    script = shell.cwd / f"readme_block_{index}.py"
    script.write_text(block.body, encoding="utf-8")
    code, output = shell.run(f"python {script.name}")
    assert code == 0, f"{block.where}: the Python block failed:\n{output}"
    config = shell.cwd / "readme_mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    environment = {**shell.environment, "MYPYPATH": str(REPO / "generated")}
    checked = run_mypy(
        ["--config-file", str(config), *STRICT,
         "--python-version", RUNNING], [script],
        cwd=shell.cwd, cache_dir=shell.cwd / ".mypy_cache", env=environment,
    )  # fmt: skip
    assert checked.returncode == 0, f"{block.where}: mypy --strict:\n{checked.stdout}"


def _run_block(block: Block, shell: Shell, index: int) -> None:
    if block.language in {"sh", "bash"}:
        code, output = shell.run("set -e\n" + block.body)
        assert code == 0, f"{block.where}: exit {code}:\n{output}"
    elif block.language == "console":
        for command, expected in console_steps(block.body):
            _, output = shell.run(command)
            assert output.rstrip("\n") == expected, f"{block.where}: $ {command}"
    elif block.language == "python":
        _run_python(block, shell, index)
    elif block.language == "toml" and block.file is not None:
        assert block.body == (REPO / block.file).read_text(encoding="utf-8"), block.where
    else:
        raise AssertionError(
            f"{block.where}: a {block.language!r} block that is not run needs "
            "<!-- not-run: NAME: reason --> on the line before it"
        )


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(PAGES))
def test_page_runs_as_written(page: str, tmp_path: Path) -> None:
    sandbox = _copy_of_repository(tmp_path / "repository")
    shell = Shell(sandbox, environment_with(interpreter_bin()), tmp_path / "folder")
    not_run = set()
    for index, block in enumerate(blocks(REPO / page)):
        if block.not_run is not None:
            assert block.reason, f"{block.where}: say why {block.not_run!r} is not run"
            not_run.add(block.not_run)
        elif block.language not in ILLUSTRATIONS:
            _run_block(block, shell, index)
    assert not_run == PAGES[page]


def test_every_block_kind_is_known() -> None:
    """Control for the test above: the pages have blocks of the kinds it runs."""
    kinds = {block.language for page in PAGES for block in blocks(REPO / page)}
    assert {"sh", "console", "python", "toml"} <= kinds


def _markdown_pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", _markdown_pages(), ids=lambda path: path.name)
def test_links_resolve_inside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for match in LINK.finditer(text):
        target = match.group("target")
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        resolved = (page.parent / target.split("#", 1)[0]).resolve()
        assert resolved.is_relative_to(REPO), f"{page.name}: {target} leaves the repository"
        assert resolved.exists(), f"{page.name}: {target} does not exist"
    assert "/work/" not in text and "shared/seeds" not in text, f"{page.name} names outside paths"

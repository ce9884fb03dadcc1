"""A throwaway git repository for the ``REV:path`` form and the deploy baseline: one spec
(:data:`~tests.deploy.bases.FLAT`) committed on ``main``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.deploy.bases import FLAT, edited

__all__ = ["git", "make_repository", "remove_rejected"]

GIT = shutil.which("git")


def git(repo: Path, *arguments: str) -> None:
    assert GIT is not None
    subprocess.run(
        [GIT, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
         *arguments],
        cwd=repo, check=True, capture_output=True,
    )  # fmt: skip


def make_repository(folder: Path) -> Path:
    """``folder`` as a git repository holding spec/order.toml at ``main``, and a pyproject.toml."""
    if GIT is None:
        pytest.skip("git is not installed")
    (folder / "spec").mkdir()
    (folder / "spec" / "order.toml").write_text(FLAT, encoding="utf-8")
    (folder / "pyproject.toml").write_text(
        '[tool.statewright]\nspecs = ["spec/*.toml"]\noutput = "generated"\n', encoding="utf-8"
    )
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "v1")
    return folder


def remove_rejected(repo: Path, version: int = 1) -> None:
    """Edit the working copy: the state ``rejected`` removed (an incompatible change)."""
    edits = (('on.REJECT = "rejected"\n', ""), ('[states.rejected]\non.REOPEN = "draft"\n', ""))
    text = edited(FLAT, edits).replace("version = 1", f"version = {version}")
    (repo / "spec" / "order.toml").write_text(text, encoding="utf-8")

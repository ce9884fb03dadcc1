"""Shared test helpers: paths, and running the ``statewright`` command in-process."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from statewright_compiler.cli import main

REPO = Path(__file__).resolve().parent.parent
#: Set to refresh golden files after an intended change; review the diff before committing.
UPDATE_GOLDEN = os.environ.get("STATEWRIGHT_UPDATE_GOLDEN") == "1"


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def run_cli(arguments: Sequence[str], cwd: Path | None = None) -> Run:
    """Run ``statewright ARGUMENTS`` in-process, capturing output and the exit code."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with (
        working_directory(cwd or Path.cwd()),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
    ):
        try:
            code = main(list(arguments))
        except SystemExit as exit_:  # argparse usage errors
            code = int(exit_.code or 0)
    return Run(code, stdout.getvalue(), stderr.getvalue())


def check_golden(path: Path, actual: str) -> None:
    """Compare ``actual`` with the golden file, or rewrite it when refreshing."""
    if UPDATE_GOLDEN:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"missing golden file {path}; run with STATEWRIGHT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server of its own for this test session (tests/postgres_server.py)."""
    from tests.postgres_server import running_server

    with running_server() as url:
        yield url

"""Type-checking and packaging tests: mypy on consumer projects outside the repository.

Helpers shared by the test modules: run the ``statewright`` command and mypy as subprocesses in a
temporary consumer folder, isolated from the repository's own configuration and folders.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import statewright
import statewright_compiler

from tests import mypy_cache
from tests.mypy_cache import RUNNING

REPO = Path(__file__).resolve().parent.parent.parent
CASES = Path(__file__).resolve().parent / "cases"
TIMEOUT = 300

#: ``path:line: error: message  [code]`` as mypy prints it without ``--pretty``.
MYPY_LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): (?P<kind>error|note): (?P<message>.*)$")
#: An expectation in a case file: ``# E: <part of an error>`` or ``# N: <part of a note>``.
EXPECTATION = re.compile(r"#\s*(?P<kind>[EN]):\s*(?P<text>.+?)\s*(?=#\s*[EN]:|$)")


@dataclass(frozen=True)
class Run:
    code: int
    output: str


@dataclass(frozen=True)
class Message:
    path: str
    line: int
    kind: str
    message: str


def expectations(case: Path) -> dict[int, dict[str, list[str]]]:
    """Line number -> {"E": [...], "N": [...]} from a case file's inline ``# E:``/``# N:`` marks."""
    found: dict[int, dict[str, list[str]]] = {}
    text = case.read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        for match in EXPECTATION.finditer(line):
            found.setdefault(number, {"E": [], "N": []})[match["kind"]].append(match["text"])
    return found


def _package_root(module_file: str | None) -> str:
    assert module_file is not None
    return str(Path(module_file).resolve().parent.parent)


def subprocess_env(*, isolated: bool = False) -> dict[str, str]:
    """The environment for child processes, without the caller's PYTHONPATH and MYPYPATH.

    Unless ``isolated``, PYTHONPATH is the folders holding the two packages this interpreter
    imports (the repository's ``runtime`` and ``generator`` for an editable install or a
    PYTHONPATH run), as absolute paths, so children in other folders find the same packages.
    """
    env = {
        name: value for name, value in os.environ.items() if name not in {"PYTHONPATH", "MYPYPATH"}
    }
    if not isolated:
        roots = [_package_root(statewright.__file__), _package_root(statewright_compiler.__file__)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(roots))
    return env


def run(arguments: Sequence[str], cwd: Path, *, isolated: bool = False) -> Run:
    completed = subprocess.run(
        list(arguments),
        cwd=cwd,
        env=subprocess_env(isolated=isolated),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    return Run(completed.returncode, completed.stdout + completed.stderr)


def generate(spec: Path, output: Path) -> None:
    """``statewright generate SPEC -o OUTPUT --no-docs``, run in this process (a new interpreter
    would spend more importing the compiler than compiling; tests/compiler/test_cli.py runs the
    command as a subprocess)."""
    from tests.conftest import run_cli

    result = run_cli(["generate", str(spec), "-o", str(output), "--no-docs"], cwd=spec.parent)
    assert result.code == 0, result.stdout + result.stderr


def run_mypy(
    files: Sequence[str],
    cwd: Path,
    *,
    target: str = RUNNING,
    python_executable: Path | None = None,
    config: str = "",
    arguments: Sequence[str] = (),
) -> tuple[Run, list[Message]]:
    """``mypy --strict`` (plus the repository's extra checks) on ``files`` in the folder ``cwd``,
    for Python ``target`` (see :mod:`tests.mypy_cache`: one interpreter checks every target, from
    a warm cache).

    A config file in ``cwd`` (empty unless ``config`` gives lines of its ``[mypy]`` section, e.g.
    ``plugins = ...``) keeps mypy from reading any configuration further up, and the cache stays
    in ``cwd``. With ``python_executable`` mypy resolves installed packages from that interpreter
    only (PYTHONPATH removed). ``arguments`` go on the command line before the files.
    """
    config_file = cwd / "mypy.ini"
    config_file.write_text(f"[mypy]\n{config}", encoding="utf-8")
    options = [
        "--config-file",
        str(config_file),
        "--python-version",
        target,
        *mypy_cache.STRICT,
        "--no-error-summary",
        "--hide-error-context",
        "--no-pretty",
        "--show-error-codes",
    ]
    if python_executable is not None:
        options += ["--python-executable", str(python_executable)]
    options += arguments
    completed = mypy_cache.run_mypy(
        options,
        files,
        cwd=cwd,
        cache_dir=cwd / ".mypy_cache",
        env=subprocess_env(isolated=python_executable is not None),
    )
    result = Run(completed.returncode, completed.stdout + completed.stderr)
    messages = []
    for line in result.output.splitlines():
        match = MYPY_LINE.match(line)
        if match:
            path, number, kind, text = match.group("path", "line", "kind", "message")
            messages.append(Message(Path(path).as_posix(), int(number), kind, text))
    return result, messages

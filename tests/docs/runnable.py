"""The code blocks of a Markdown page, and how each kind is run.

A page's fenced blocks are run in order, in a copy of the repository, the way a reader would type
them (the repository's environment first on PATH, as after ``. .venv/bin/activate``):

* ``sh``: every line is a command; the block must exit 0;
* ``console``: ``$ command`` lines, each followed by the output it must print (stdout and stderr
  together, compared exactly);
* ``python``: run as a script (the test also type-checks it with ``mypy --strict``);
* ``toml`` marked ``<!-- file: PATH -->``: must equal that file of the repository.

A ``cd`` carries over to the next command and block, as in a terminal. ``text`` blocks are
illustrations. Any other block must say why it is not run, on the line before its fence:
``<!-- not-run: NAME: reason -->``; the test lists the names it expects, so a new exception is a
deliberate change.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^\s*(?P<fence>```+)(?P<info>[^`\n]*)$")
MARKER = re.compile(r"^<!-- (?P<kind>not-run|file): (?P<value>[^:]+?)(?:: (?P<reason>.+))? -->$")
ILLUSTRATIONS = frozenset({"text", "mermaid", "json", "yaml", "diff"})
TIMEOUT = 300


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    language: str
    body: str
    #: ``not-run`` name, or the file a ``toml`` block shows.
    not_run: str | None = None
    reason: str | None = None
    file: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening.group("fence")
        end = next(i for i in range(index + 1, len(lines)) if lines[i].strip().startswith(fence))
        marker = MARKER.match(lines[index - 1].strip()) if index else None
        not_run = file = reason = None
        if marker is not None and marker.group("kind") == "not-run":
            not_run, reason = marker.group("value"), marker.group("reason")
        elif marker is not None:
            file = marker.group("value")
        found.append(
            Block(
                path,
                index + 1,
                opening.group("info").strip().split(" ")[0],
                "\n".join(lines[index + 1 : end]) + "\n",
                not_run,
                reason,
                file,
            )
        )
        index = end + 1
    return found


@dataclass
class Shell:
    """Runs commands like a terminal session: the working folder carries over (``cd``)."""

    cwd: Path
    environment: dict[str, str]
    #: Where each command leaves the folder it ended in.
    folder_file: Path

    def run(self, command: str) -> tuple[int, str]:
        script = f"{command}\n__status=$?\npwd > '{self.folder_file}'\nexit $__status\n"
        completed = subprocess.run(
            ["bash", "-c", script],
            cwd=self.cwd,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        if self.folder_file.exists():
            self.cwd = Path(self.folder_file.read_text(encoding="utf-8").strip())
            self.folder_file.unlink()
        return completed.returncode, completed.stdout + completed.stderr


def console_steps(body: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` for each ``$ `` line of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"output before the first command: {line!r}"
            steps[-1][1].append(line)
    return [(command, "\n".join(output)) for command, output in steps]


def environment_with(bin_folder: Path) -> dict[str, str]:
    """The caller's environment with ``bin_folder`` first on PATH, as an activated venv has it."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in {"PYTHONPATH", "MYPYPATH", "CI_PROJECT_DIR"}
    }
    environment["PATH"] = f"{bin_folder}{os.pathsep}{environment.get('PATH', '')}"
    environment["VIRTUAL_ENV"] = str(bin_folder.parent)
    return environment


def interpreter_bin() -> Path:
    """The folder holding this interpreter's ``python`` and ``statewright`` commands."""
    return Path(sys.executable).parent

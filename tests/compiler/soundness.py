"""What every generated module must pass, whatever the spec: the project's ruff rules.

Generated modules carry ``# ruff: noqa`` and ``# fmt: off`` so that a user's own linter and
formatter leave them alone; these checks look through both. Only the codes that spec text kept
verbatim in docstrings can trip (long lines, non-ASCII punctuation) are not asked for.
"""

from __future__ import annotations

import functools
import subprocess
from typing import Final

#: The project's rule set (``[tool.ruff.lint] select`` in pyproject.toml).
RULES: Final = "E,F,W,I,B,UP,SIM,RUF"
VERBATIM_TEXT_CODES: Final = "E501,RUF001,RUF002,RUF003"
FORMAT_OFF: Final = "# fmt: off\n"


@functools.cache
def ruff_binary() -> str:
    """The binary of this interpreter's ruff (``python -m ruff`` starts an interpreter to find it:
    most of the time of a check of one module)."""
    from ruff import find_ruff_bin

    return str(find_ruff_bin())


def _ruff(arguments: list[str], source: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ruff_binary(), *arguments, "--stdin-filename", "generated_module.py"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )


def lint_findings(source: str) -> str:
    """ruff's findings with the project's rules, ``noqa`` ignored; empty when clean."""
    arguments = ["check", "--isolated", "--ignore-noqa", "--select", RULES]
    arguments += ["--ignore", VERBATIM_TEXT_CODES, "--target-version", "py310", "--quiet"]
    completed = _ruff([*arguments, "-"], source)
    return "" if completed.returncode == 0 else completed.stdout + completed.stderr


def ruff_formatted(source: str) -> str:
    """What ``ruff format`` with its default settings makes of ``source`` without its
    ``# fmt: off`` line (so the formatter really looks at the code)."""
    assert FORMAT_OFF in source
    completed = _ruff(["format", "--isolated", "-"], source.replace(FORMAT_OFF, "", 1))
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.replace("# ruff: noqa\n", "# ruff: noqa\n" + FORMAT_OFF, 1)

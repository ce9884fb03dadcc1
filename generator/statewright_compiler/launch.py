"""The ``statewright`` command's entry point, safe to run on a runtime-only install.

``pip install statewright`` installs the runtime and this command, but not the compiler's own
dependencies (``pip install 'statewright[compiler]'``). Nothing here imports them: a missing one
is reported in one line that names the fix, never as an ImportError traceback.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from typing import Final

__all__ = ["main", "missing_dependencies"]

#: Import name -> distribution name, for what the compiler needs beyond the standard library.
_REQUIREMENTS: Final = {"jinja2": "jinja2"} | (
    {"tomli": "tomli"} if sys.version_info < (3, 11) else {}
)
#: Exit code for an incomplete installation: the same as a usage error.
_INCOMPLETE_INSTALL: Final = 2


def missing_dependencies() -> list[str]:
    """Distributions the compiler needs that this interpreter cannot import."""
    return [
        distribution
        for module, distribution in _REQUIREMENTS.items()
        if importlib.util.find_spec(module) is None
    ]


def main(argv: Sequence[str] | None = None) -> int:
    missing = missing_dependencies()
    if missing:
        print(
            f"statewright: error: the compiler needs {', '.join(missing)}, which this Python "
            f"({sys.executable}) does not have; install it with: "
            "pip install 'statewright[compiler]' (the runtime alone needs nothing more)",
            file=sys.stderr,
        )
        return _INCOMPLETE_INSTALL
    from statewright_compiler.cli import main as cli_main

    return cli_main(argv)

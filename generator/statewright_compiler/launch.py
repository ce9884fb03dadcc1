"""The ``statewright`` command's entry point, safe to run on a runtime-only install.

``pip install statewright`` installs the runtime and this command, but not the compiler's own
dependencies (``pip install 'statewright[compiler]'``). Nothing here imports them: ``--version``
still answers, and any other command reports what is missing in one line that names the fix,
never as an ImportError traceback.
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
    arguments = list(sys.argv[1:] if argv is None else argv)
    missing = missing_dependencies()
    if not missing:
        from statewright_compiler.cli import main as cli_main

        return cli_main(arguments)
    from statewright_compiler import __version__  # the package imports nothing else

    install = "pip install 'statewright[compiler]'"
    if arguments[:1] == ["mcp"]:  # its extra brings the compiler and the MCP SDK
        install = "pip install 'statewright[mcp]'"
    if arguments == ["--version"]:
        print(f"statewright {__version__} (runtime only; the commands need: {install})")
        return 0
    named = bool(arguments) and not arguments[0].startswith("-")
    command = f"`statewright {arguments[0]}`" if named else "the statewright command"
    print(
        f"statewright: error: {command} needs the compiler, whose {', '.join(missing)} this "
        f"Python ({sys.executable}) does not have; install it with: {install} (the runtime "
        "alone needs nothing more)",
        file=sys.stderr,
    )
    return _INCOMPLETE_INSTALL

"""The commands on stored instances, ``statewright mcp`` and ``statewright replay``: both read the
``[tool.statewright.mcp]`` table for the store, the machine classes and their factories.

Each is registered by name ("module:function"): its modules (and for ``mcp`` the MCP SDK) load
only when that command runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from statewright_compiler.commands import replay
from statewright_compiler.mcp_server.settings import add_arguments as add_mcp_arguments

__all__ = ["add_stored_commands"]

Add = Callable[[str, str, object], argparse.ArgumentParser]


def add_stored_commands(add: Add) -> None:
    """Register ``mcp`` and ``replay`` with ``add(name, help, handler)`` (the CLI's)."""
    serve = "statewright_compiler.mcp_server.command:command_mcp"
    add_mcp_arguments(
        add("mcp", "serve stored machines to MCP clients (their legal events)", serve)
    )
    run_again = "statewright_compiler.commands.replay:command_replay"
    replay.add_arguments(
        add("replay", "replay stored instances' histories on new machine classes", run_again)
    )

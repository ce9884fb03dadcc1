"""``statewright mcp``: read the settings, import the machines, open the store, serve.

Everything that can be wrong with the configuration (the SDK missing, a key, an import path, a
class, a factory, the store) is found before the transport starts and reported in one line with
exit code 2, never as a traceback and never on the protocol's stream.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from statewright_compiler.config import ConfigError
from statewright_compiler.diagnostics import ExitCode
from statewright_compiler.mcp_server.settings import Settings, settings_from

__all__ = ["command_mcp", "serve"]

#: How to get the SDK, named wherever it is missing.
INSTALL = "pip install 'statewright[mcp]'"


def command_mcp(arguments: argparse.Namespace) -> ExitCode:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
    if importlib.util.find_spec("mcp") is None:
        print(
            f"statewright: error: `statewright mcp` needs the MCP SDK, which this Python "
            f"({sys.executable}) does not have; install it with: {INSTALL}",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    serve(settings_from(arguments, Path.cwd()))
    return ExitCode.OK


def serve(settings: Settings) -> None:
    """Serve ``settings`` on its transport (ConfigError for a bad configuration)."""
    import anyio
    from statewright import StatewrightError, open_store

    from statewright_compiler.mcp_server.hosting import hosted_types

    machine_types = hosted_types(settings)
    try:
        store = open_store(settings.store)
    except StatewrightError as error:
        raise ConfigError(f"store {settings.store}: {error}") from None
    with store:
        # The SDK (~1.7 s of imports) only once the configuration is known to be good: a wrong
        # one is reported at once.
        from statewright_compiler.mcp_server.server import build_server

        server = build_server(settings, store, machine_types)
        if settings.transport == "stdio":
            from mcp.server.stdio import stdio_server

            async def over_stdio() -> None:
                async with stdio_server() as (read_stream, write_stream):
                    await server.run(
                        read_stream, write_stream, server.create_initialization_options()
                    )

            anyio.run(over_stdio)
        else:
            import uvicorn

            # 127.0.0.1 only: the SDK then also refuses other Host and Origin headers (DNS
            # rebinding); anything wider needs authentication this command does not set up.
            app = server.streamable_http_app(host="127.0.0.1")
            uvicorn.run(app, host="127.0.0.1", port=settings.port, log_level="warning")

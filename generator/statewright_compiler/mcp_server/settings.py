"""What ``statewright mcp`` serves: ``[tool.statewright.mcp]`` in pyproject.toml, then the
command line over it.

Every key, its command-line option and its default:

================== ========================= =================================================
key                option                    meaning
================== ========================= =================================================
``store``          ``--store URL``           the store (``open_store``); a relative ``sqlite:``
                                             or ``file:`` path is relative to the project root
``machines``       ``--machine MODULE:CLASS`` the machine classes served (one option each)
``handlers``       ``--handlers MODULE:NAME`` ``NAME(machine_class)`` returns its handlers
``context``        ``--context MODULE:NAME``  ``NAME(machine_class)`` returns a new instance's
                                             context (default: ``None``)
``path``           ``--path FOLDER``          folders put first on ``sys.path`` (default: the
                                             project root)
``instance_prefix`` ``--instance-prefix P``   the server sees and creates only ids starting so
``read_only``      ``--read-only``            no tool that writes is offered
``allow_create``   ``--allow-create``         offer ``create_instance``
``history``        ``--history N``            records a read shows (default 20)
``transport``      ``--transport stdio|http`` default stdio; http is streamable HTTP
``port``           ``--port N``               the HTTP port on 127.0.0.1 (default 8000)
================== ========================= =================================================

Only ``machines``, ``handlers`` and ``context`` name code, and only those three are imported.
A wrong key or value is a :class:`~statewright_compiler.config.ConfigError` (exit code 2).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from statewright_compiler.config import ConfigError, statewright_table

__all__ = ["TRANSPORTS", "Settings", "add_arguments", "settings_from"]

TRANSPORTS: Final = ("stdio", "http")
#: Where ``statewright mcp --help`` and errors point.
_TABLE: Final = "[tool.statewright.mcp]"
_DEFAULT_HISTORY: Final = 20
_DEFAULT_PORT: Final = 8000
#: A prefix of an instance id (see statewright's INSTANCE_ID_PATTERN), or nothing.
_PREFIX: Final = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]{0,99})?")


@dataclass(frozen=True)
class Settings:
    """One server's configuration, checked (see the module docstring for each field)."""

    root: Path
    store: str
    machines: tuple[str, ...]
    handlers: str | None = None
    context: str | None = None
    path: tuple[Path, ...] = ()
    instance_prefix: str = ""
    read_only: bool = False
    allow_create: bool = False
    history: int = _DEFAULT_HISTORY
    transport: Literal["stdio", "http"] = "stdio"
    port: int = _DEFAULT_PORT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``statewright mcp`` (each one overrides its key in the table)."""
    parser.add_argument(
        "--project", help="folder whose pyproject.toml to read (default: the working folder's)"
    )
    parser.add_argument("--store", help="store URL: sqlite:///path, postgresql://..., file:///dir")
    parser.add_argument(
        "--machine",
        action="append",
        dest="machines",
        metavar="MODULE:CLASS",
        help="a machine class to serve (repeat for several)",
    )
    parser.add_argument("--handlers", metavar="MODULE:NAME", help="NAME(cls) -> handlers")
    parser.add_argument("--context", metavar="MODULE:NAME", help="NAME(cls) -> a new context")
    parser.add_argument(
        "--path", action="append", metavar="FOLDER", help="put FOLDER first on sys.path"
    )
    parser.add_argument("--instance-prefix", help="serve and create only ids with this prefix")
    parser.add_argument("--read-only", action="store_true", default=None, help="no writes")
    parser.add_argument(
        "--allow-create", action="store_true", default=None, help="offer create_instance"
    )
    parser.add_argument("--history", type=int, help="history records a read shows (default 20)")
    parser.add_argument("--transport", choices=TRANSPORTS, help="default: stdio")
    parser.add_argument("--port", type=int, help="HTTP port on 127.0.0.1 (default 8000)")


_KEYS: Final = (
    "store",
    "machines",
    "handlers",
    "context",
    "path",
    "instance_prefix",
    "read_only",
    "allow_create",
    "history",
    "transport",
    "port",
)


def settings_from(arguments: argparse.Namespace, working_folder: Path) -> Settings:
    """The table of the project's pyproject.toml (``--project`` or the nearest one above
    ``working_folder``), each key overridden by its option when given."""
    start = Path(arguments.project) if arguments.project else working_folder
    if arguments.project and not start.is_dir():
        raise ConfigError(f"--project {arguments.project}: no such folder")
    found = statewright_table(start)
    root, table, where = start.resolve(), {}, "the command line"
    if found is not None:
        pyproject, section = found
        root, where = pyproject.parent, f"{pyproject} {_TABLE}"
        table = section.get("mcp", {})
        if not isinstance(table, dict):
            raise ConfigError(f"{pyproject}: tool.statewright.mcp must be a table")
        unknown = sorted(set(table) - set(_KEYS))
        if unknown:
            raise ConfigError(f"{where}: unknown keys: {', '.join(unknown)}")
    values: dict[str, Any] = dict(table)
    for key in _KEYS:
        option = getattr(arguments, key, None)
        if option is not None:
            values[key] = _checked(key, option, "the command line")
        else:
            values[key] = _checked(key, values.get(key), where)
    if values["store"] is None:
        raise ConfigError(f'no store: give --store URL or store = "..." in {_TABLE}')
    if not values["machines"]:
        raise ConfigError(
            f"no machine to serve: give --machine MODULE:CLASS or machines in {_TABLE}"
        )
    return Settings(
        root=root,
        store=_store_url(values["store"], root),
        machines=tuple(values["machines"]),
        handlers=values["handlers"],
        context=values["context"],
        path=tuple(root / folder for folder in values["path"] or ["."]),
        instance_prefix=values["instance_prefix"] or "",
        read_only=bool(values["read_only"]),
        allow_create=bool(values["allow_create"]),
        history=_DEFAULT_HISTORY if values["history"] is None else values["history"],
        transport=values["transport"] or "stdio",
        port=_DEFAULT_PORT if values["port"] is None else values["port"],
    )


def _checked(key: str, value: object, where: str) -> Any:
    """``value`` when it has the key's type (None: not given), else a ConfigError."""
    if value is None:
        return None
    expected = _EXPECTED[key]
    ok = {
        "str": lambda: isinstance(value, str) and value != "",
        "names": lambda: isinstance(value, list) and all(_is_name(v) for v in value),
        "name": lambda: _is_name(value),
        "folders": lambda: isinstance(value, list) and all(isinstance(v, str) for v in value),
        "bool": lambda: isinstance(value, bool),
        "count": lambda: type(value) is int and 0 <= value <= 1000,
        "port": lambda: type(value) is int and 1 <= value <= 65535,
        "transport": lambda: value in TRANSPORTS,
        "prefix": lambda: isinstance(value, str) and _PREFIX.fullmatch(value) is not None,
    }[expected[0]]()
    if not ok:
        raise ConfigError(f"{where}: {key} must be {expected[1]}, not {value!r:.80}")
    return value


#: Each key's kind and how an error describes it.
_EXPECTED: Final[Mapping[str, tuple[str, str]]] = {
    "store": ("str", "a store URL"),
    "machines": ("names", "a list of 'module:Class' names"),
    "handlers": ("name", "a 'module:name' import path"),
    "context": ("name", "a 'module:name' import path"),
    "path": ("folders", "a list of folders"),
    "instance_prefix": ("prefix", "letters, digits, '.', '_' or '-', from a letter or digit"),
    "read_only": ("bool", "true or false"),
    "allow_create": ("bool", "true or false"),
    "history": ("count", "a whole number from 0 to 1000"),
    "transport": ("transport", " or ".join(TRANSPORTS)),
    "port": ("port", "a port number from 1 to 65535"),
}


def _is_name(value: object) -> bool:
    """``module:qualified.name``: the one form of import path this server takes."""
    if not isinstance(value, str):
        return False
    module, colon, name = value.partition(":")
    parts = [*module.split("."), *name.split(".")]
    return bool(colon) and all(part.isidentifier() for part in parts)


def _store_url(url: str, root: Path) -> str:
    """``url``, with a relative SQLite or JSON-folder path made relative to the project root
    (an MCP client starts the server in a folder of its own choosing)."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("sqlite", "file") or parts.netloc or not parts.path:
        return url
    if Path(parts.path).is_absolute():
        return url
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme}://{(root / parts.path).as_posix()}{query}"

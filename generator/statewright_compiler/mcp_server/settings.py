"""What ``statewright mcp`` serves: ``[tool.statewright.mcp]`` in pyproject.toml, then the
command line over it.

Each key has an option of the same name (``instance_prefix``: ``--instance-prefix``; ``machines``:
``--machine``, repeated): ``store`` (a store URL; a relative ``sqlite:`` or ``file:`` path is
relative to the project root), ``machines`` (``module:Class`` each), ``handlers``, ``context``
and ``data`` (``module:name`` of a factory called with the machine class; ``data``'s gives a new
instance's initial data), ``path`` (folders put first on
``sys.path``; default the project root), ``instance_prefix``, ``read_only``, ``allow_create``,
``history`` (records a read shows; default 20), ``transport`` (``stdio`` or ``http``) and
``port`` (default 8000, on 127.0.0.1). docs/runtime.md ("statewright mcp") has the table;
:data:`_EXPECTED` says what each one takes.

Only ``machines``, ``handlers``, ``context`` and ``data`` name code, and only those are imported.
A wrong key or value is a :class:`~statewright_compiler.config.ConfigError` (exit code 2).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from statewright_compiler.config import ConfigError, statewright_table

__all__ = ["TRANSPORTS", "Settings", "add_arguments", "add_code_arguments", "settings_from"]

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
    data: str | None = None
    path: tuple[Path, ...] = ()
    instance_prefix: str = ""
    read_only: bool = False
    allow_create: bool = False
    history: int = _DEFAULT_HISTORY
    transport: Literal["stdio", "http"] = "stdio"
    port: int = _DEFAULT_PORT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``statewright mcp`` (each one overrides its key in the table)."""
    add_code_arguments(parser, "a machine class to serve (repeat for several)")
    parser.add_argument("--instance-prefix", help="serve and create only ids with this prefix")
    parser.add_argument("--read-only", action="store_true", default=None, help="no writes")
    parser.add_argument(
        "--allow-create", action="store_true", default=None, help="offer create_instance"
    )
    parser.add_argument("--history", type=int, help="history records a read shows (default 20)")
    parser.add_argument("--transport", choices=TRANSPORTS, help="default: stdio")
    parser.add_argument("--port", type=int, help="HTTP port on 127.0.0.1 (default 8000)")


def add_code_arguments(parser: argparse.ArgumentParser, machine_help: str) -> None:
    """The options naming the store and the code to load (the project, the machine classes,
    their factories, the folders to import from): ``statewright mcp``'s and ``replay``'s."""
    parser.add_argument(
        "--project", help="folder whose pyproject.toml to read (default: the working folder's)"
    )
    parser.add_argument("--store", help="store URL: sqlite:///path, postgresql://..., file:///dir")
    parser.add_argument(
        "--machine", action="append", dest="machines", metavar="MODULE:CLASS", help=machine_help
    )
    parser.add_argument("--handlers", metavar="MODULE:NAME", help="NAME(cls) -> handlers")
    parser.add_argument("--context", metavar="MODULE:NAME", help="NAME(cls) -> a new context")
    parser.add_argument(
        "--data", metavar="MODULE:NAME", help="NAME(cls) -> a new instance's initial data"
    )
    parser.add_argument(
        "--path", action="append", metavar="FOLDER", help="put FOLDER first on sys.path"
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
        unknown = sorted(set(table) - set(_EXPECTED))
        if unknown:
            raise ConfigError(f"{where}: unknown keys: {', '.join(unknown)}")
    values: dict[str, Any] = dict(table)
    for key in _EXPECTED:
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
        data=values["data"],
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
    kind, described = _EXPECTED[key]
    if not _VALID[kind](value):
        raise ConfigError(f"{where}: {key} must be {described}, not {value!r:.80}")
    return value


def _is_name(value: object) -> bool:
    """``module:qualified.name``: the one form of import path this server takes."""
    if not isinstance(value, str):
        return False
    module, colon, name = value.partition(":")
    parts = [*module.split("."), *name.split(".")]
    return bool(colon) and all(part.isidentifier() for part in parts)


#: Each key (in the order they are read): its kind, and how an error describes it.
_EXPECTED: Final[Mapping[str, tuple[str, str]]] = {
    "store": ("url", "a store URL"),
    "machines": ("names", "a list of 'module:Class' names"),
    "handlers": ("name", "a 'module:name' import path"),
    "context": ("name", "a 'module:name' import path"),
    "data": ("name", "a 'module:name' import path"),
    "path": ("folders", "a list of folders"),
    "instance_prefix": ("prefix", "letters, digits, '.', '_' or '-', from a letter or digit"),
    "read_only": ("bool", "true or false"),
    "allow_create": ("bool", "true or false"),
    "history": ("count", "a whole number from 0 to 1000"),
    "transport": ("transport", " or ".join(TRANSPORTS)),
    "port": ("port", "a port number from 1 to 65535"),
}
#: Each kind's check.
_VALID: Final[Mapping[str, Callable[[Any], bool]]] = {
    "url": lambda value: isinstance(value, str) and value != "",
    "names": lambda value: isinstance(value, list) and all(_is_name(v) for v in value),
    "name": _is_name,
    "folders": lambda value: isinstance(value, list) and all(isinstance(v, str) for v in value),
    "bool": lambda value: isinstance(value, bool),
    "count": lambda value: type(value) is int and 0 <= value <= 1000,
    "port": lambda value: type(value) is int and 1 <= value <= 65535,
    "transport": lambda value: value in TRANSPORTS,
    "prefix": lambda value: isinstance(value, str) and _PREFIX.fullmatch(value) is not None,
}


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

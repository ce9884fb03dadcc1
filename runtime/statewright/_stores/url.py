"""``open_store(url)``: a store chosen by a URL, so configuration names a backend and a place.

| URL | store |
| --- | --- |
| ``memory://`` | a new :class:`MemoryStore` (this process only) |
| ``file:///var/lib/app/machines`` | :class:`JsonFileStore` on that directory |
| ``sqlite:///var/lib/app/machines.db`` | :class:`SqliteStore` on that file (the embedded default) |
| ``postgresql://user@host/db`` | :class:`PostgresStore` (needs ``statewright[postgres]``) |

The path of ``file:`` and ``sqlite:`` URLs is the URL's path, so three slashes start an
absolute one; ``sqlite:relative.db`` (no slashes) is relative to the working directory.
``sqlite:`` takes ``?synchronous=NORMAL`` and ``?timeout=5``; everything after
``postgresql://`` goes to libpq as it is (``?host=/run/postgresql`` for a unix socket).
"""

from __future__ import annotations

from typing import Any

from statewright._errors import StoreError
from statewright._stores.protocol import ClosableStore

__all__ = ["open_store"]


def open_store(url: str) -> ClosableStore:
    """The store ``url`` names (see the module docstring); :class:`StoreError` when the URL
    names no backend, or the backend cannot be opened. Every one of them is a
    :class:`ClosableStore`: a :class:`TimerStore` (and so a :class:`Store`) with ``close()``,
    usable in a ``with`` block."""
    from urllib.parse import parse_qs, unquote, urlsplit

    if not isinstance(url, str):
        raise StoreError(f"a store URL is a string, not {type(url).__name__}")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    path = unquote(parts.path)
    if scheme == "memory":
        _no_options(url, options)
        from statewright._stores.memory import MemoryStore

        return MemoryStore()
    if scheme == "file":
        _no_options(url, options)
        if not path or parts.netloc not in ("", "localhost"):
            raise StoreError(f"{url!r}: expected file:///path/to/directory")
        from statewright._stores.files import JsonFileStore

        return JsonFileStore(path)
    if scheme == "sqlite":
        if not path or parts.netloc:
            raise StoreError(f"{url!r}: expected sqlite:///path/to/database")
        from statewright._stores.sqlite import SqliteStore

        return SqliteStore(path, **_sqlite_options(url, options))
    if scheme in ("postgresql", "postgres"):
        from statewright._stores.postgres import PostgresStore

        return PostgresStore(url)
    raise StoreError(
        f"{url!r:.120}: no store for the scheme {parts.scheme!r}; use memory://, "
        "file:///directory, sqlite:///file or postgresql://..."
    )


def _no_options(url: str, options: dict[str, str]) -> None:
    if options:
        raise StoreError(f"{url!r}: this store takes no options ({', '.join(sorted(options))})")


def _sqlite_options(url: str, options: dict[str, str]) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for key, value in options.items():
        if key == "synchronous" and value.upper() in ("FULL", "NORMAL"):
            chosen[key] = value.upper()
        elif key == "timeout":
            try:
                chosen[key] = float(value)
            except ValueError:
                raise StoreError(f"{url!r}: timeout must be seconds, not {value!r}") from None
        else:
            raise StoreError(
                f"{url!r}: unknown SQLite option {key}={value}; use synchronous=FULL|NORMAL "
                "or timeout=<seconds>"
            )
    return chosen

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

from typing import Any, NamedTuple

from statewright._errors import StoreError
from statewright._stores.protocol import ClosableStore

__all__ = ["StoreLocation", "open_store", "store_location"]


class StoreLocation(NamedTuple):
    """Where a store URL points: its backend (``memory``, ``file``, ``sqlite`` or
    ``postgresql``), the place (a path; for PostgreSQL the URL itself) and the SQLite store's
    keyword options (checked)."""

    backend: str
    place: str
    options: dict[str, Any]


def store_location(url: str) -> StoreLocation:
    """What ``url`` names (see the module docstring), checked; :class:`StoreError` when it names
    no backend or is malformed. Nothing is opened."""
    from urllib.parse import parse_qs, unquote, urlsplit

    if not isinstance(url, str):
        raise StoreError(f"a store URL is a string, not {type(url).__name__}")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    path = unquote(parts.path)
    if scheme == "memory":
        _no_options(url, options)
        return StoreLocation("memory", "", {})
    if scheme == "file":
        _no_options(url, options)
        if not path or parts.netloc not in ("", "localhost"):
            raise StoreError(f"{url!r}: expected file:///path/to/directory")
        return StoreLocation("file", path, {})
    if scheme == "sqlite":
        if not path or parts.netloc:
            raise StoreError(f"{url!r}: expected sqlite:///path/to/database")
        return StoreLocation("sqlite", path, _sqlite_options(url, options))
    if scheme in ("postgresql", "postgres"):
        return StoreLocation("postgresql", url, {})
    raise StoreError(
        f"{url!r:.120}: no store for the scheme {parts.scheme!r}; use memory://, "
        "file:///directory, sqlite:///file or postgresql://..."
    )


def open_store(url: str) -> ClosableStore:
    """The store ``url`` names (see the module docstring); :class:`StoreError` when the URL
    names no backend, or the backend cannot be opened. Every one of them is a
    :class:`ClosableStore`: a :class:`TimerStore` (and so a :class:`Store`) with ``close()``,
    usable in a ``with`` block."""
    backend, place, options = store_location(url)
    if backend == "memory":
        from statewright._stores.memory import MemoryStore

        return MemoryStore()
    if backend == "file":
        from statewright._stores.files import JsonFileStore

        return JsonFileStore(place)
    if backend == "sqlite":
        from statewright._stores.sqlite import SqliteStore

        return SqliteStore(place, **options)
    from statewright._stores.postgres import PostgresStore

    return PostgresStore(place)


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

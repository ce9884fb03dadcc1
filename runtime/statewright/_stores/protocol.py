"""The store interface on its own, so the machines can name it cheaply.

:class:`Store` is what any store does (a store of your own needs only these four methods).
The built-in backends, one module each (``memory``, ``files``, ``sqlite``, ``postgres`` in this
package, with what they share in ``codec``), also do the two other parts:
:class:`IncrementalStore` (saves that append history records instead of rewriting the whole
snapshot) and :class:`TimerStore` (a due-timer index that workers claim from). The backends
import json, pathlib, tempfile, sqlite3 or psycopg; the package imports them on first use, while
the machines, options and the registry, which only mention ``Store``, import this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from statewright._errors import StoreError

if TYPE_CHECKING:
    from statewright._stores.codec import SnapshotUpdate

__all__ = [
    "INSTANCE_ID_PATTERN",
    "IncrementalStore",
    "Store",
    "TimerStore",
    "check_instance_id",
    "is_instance_id",
]

#: Instance ids become file names and keys: letters, digits, ``._-``, at most 200 characters.
INSTANCE_ID_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}"


def is_instance_id(value: object) -> bool:
    import re  # here, not at the top: generated modules import this module

    return isinstance(value, str) and re.fullmatch(INSTANCE_ID_PATTERN, value) is not None


def check_instance_id(instance_id: str) -> str:
    """``instance_id`` itself, or :class:`StoreError` when it is no valid id."""
    if not is_instance_id(instance_id):
        raise StoreError(
            f"invalid instance id {instance_id!r:.80}: use 1-200 letters, digits, '.', '_' or "
            "'-', starting with a letter or digit"
        )
    return instance_id


@runtime_checkable
class Store(Protocol):
    """Persistence for machine snapshots keyed by instance id."""

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        """The latest saved snapshot, or None when the instance was never saved."""
        ...

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        """Store ``snapshot`` if the stored revision is ``expected_revision``; return the new."""
        ...

    def delete(self, instance_id: str, /) -> bool:
        """Forget the instance; False if it was not stored."""
        ...

    def list_ids(self) -> list[str]:
        """Every stored instance id, sorted."""
        ...


@runtime_checkable
class IncrementalStore(Store, Protocol):
    """A store that keeps history as records: a save writes the snapshot's head and only the
    records that are new, so it costs the same whatever the history's length."""

    def save_update(
        self, instance_id: str, update: SnapshotUpdate, expected_revision: int, /
    ) -> int:
        """Store ``update`` (the head and the new history records) if the stored revision is
        ``expected_revision``; return the new one."""
        ...


@runtime_checkable
class TimerStore(Store, Protocol):
    """A store with a due-timer index: each save records when the instance's earliest timer
    falls due, and workers claim the instances whose timers are due."""

    def claim_due(self, now: float, limit: int, lease_seconds: float) -> list[str]:
        """At most ``limit`` instance ids with a timer due at ``now``, leased to the caller for
        ``lease_seconds`` (no other caller gets them until the lease ends or is released)."""
        ...

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id``."""
        ...

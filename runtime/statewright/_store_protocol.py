"""The :class:`Store` interface on its own, so the machines can name it cheaply.

The implementations (:mod:`statewright._stores`, :mod:`statewright._sqlite`) import json, pathlib,
tempfile and sqlite3; the package imports them on first use, while the machines, options and the
registry, which only mention ``Store``, import this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["Store"]


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

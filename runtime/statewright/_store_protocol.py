"""The :class:`Store` interface on its own, so the machines can name it cheaply.

The implementations (:mod:`statewright._stores`, :mod:`statewright._sqlite`) import json, pathlib,
tempfile and sqlite3; the package imports them on first use, while the machines, options and the
registry, which only mention ``Store``, import this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol, runtime_checkable

from statewright._errors import StoreError

__all__ = ["INSTANCE_ID_PATTERN", "Store", "check_instance_id", "is_instance_id"]

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

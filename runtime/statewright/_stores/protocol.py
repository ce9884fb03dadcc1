"""The store interface on its own, so the machines can name it cheaply.

:class:`Store` is what any store does (a store of your own needs only these four methods).
The built-in backends, one module each (``memory``, ``files``, ``sqlite``, ``postgres`` in this
package, with what they share in ``codec``), also do the two other parts:
:class:`IncrementalStore` (saves that append history records instead of rewriting the whole
snapshot) and :class:`TimerStore` (a due-timer index that workers claim from), and they close:
:class:`ClosableStore`, what ``open_store`` returns. The backends
import json, pathlib, tempfile, sqlite3 or psycopg; the package imports them on first use, while
the machines, options and the registry, which only mention ``Store``, import this module.

:class:`SnapshotUpdate` (what an :class:`IncrementalStore` is handed) lives here, beside the
protocol that names it, so that ``codec`` imports this module and never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol, TypeVar, runtime_checkable

from statewright._errors import SnapshotError, StoreError

__all__ = [
    "INSTANCE_ID_PATTERN",
    "ClosableStore",
    "IncrementalStore",
    "OwnText",
    "SnapshotUpdate",
    "Store",
    "TimerStore",
    "check_instance_id",
    "is_instance_id",
]

#: Instance ids become file names and keys: letters, digits, ``._-``, at most 200 characters.
INSTANCE_ID_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}"


def is_instance_id(value: object) -> bool:
    return isinstance(value, str) and _instance_id_match()(value) is not None


def _instance_id_match() -> Callable[[str], object]:
    """The compiled pattern's ``fullmatch``, compiled on first use (generated modules import
    this module, and ``re`` with it would cost them)."""
    global _MATCH
    if _MATCH is None:
        import re

        _MATCH = re.compile(INSTANCE_ID_PATTERN).fullmatch
    return _MATCH


_MATCH: Callable[[str], object] | None = None


def check_instance_id(instance_id: str) -> str:
    """``instance_id`` itself, or :class:`StoreError` when it is no valid id."""
    if not is_instance_id(instance_id):
        raise StoreError(
            f"invalid instance id {instance_id!r:.80}: use 1-200 letters, digits, '.', '_' or "
            "'-', starting with a letter or digit"
        )
    return instance_id


class OwnText:
    """A machine's own update as text (``statewright._snapshot_text``): the canonical text of
    its head split where the revision's value goes (``before`` + revision + ``after``; the
    machine's own ``revision`` is its revision before the save), its new records' canonical
    texts, the newest event id, the machine's name and its earliest due timer (the one
    :func:`~statewright._stores.codec.earliest_due` finds in the head)."""

    __slots__ = ("after", "before", "due", "machine", "records", "revision", "total")

    def __init__(
        self,
        before: str,
        after: str,
        revision: int,
        records: list[str],
        total: int,
        machine: str,
        due: float | None,
    ) -> None:
        self.before, self.after, self.revision = before, after, revision
        self.records, self.total, self.machine, self.due = records, total, machine, due


class SnapshotUpdate:
    """A save as a machine hands it to a store that keeps history as records.

    ``head`` is the snapshot without ``"history"``; ``records`` are the history records (their
    JSON form, as in a snapshot) with event ids above ``since``, oldest first; ``retained`` is
    how many records the snapshot has: the ones with the last ``retained`` event ids up to
    ``head["total_transitions"]``. ``since`` is the event id up to which the store already holds
    this instance's records (the machine saved to, or loaded from, this store then); ``None``
    means "the store's records are not this machine's": ``records`` then holds every retained
    record and the store replaces what it had.
    """

    __slots__ = ("_head", "_own", "_records", "_text", "retained", "since")

    def __init__(
        self,
        head: dict[str, Any],
        records: list[dict[str, Any]],
        retained: int,
        since: int | None,
    ) -> None:
        self._head: dict[str, Any] | None = head
        self._records: list[dict[str, Any]] | None = records
        self.retained = retained
        self.since = since
        #: Set by a machine that built this update for this save and hands it straight to a
        #: built-in store (``statewright._snapshot.own_store``): its head and records are JSON
        #: data already (the machine checked what it encoded), so the store writes them without
        #: walking them again. An update made anywhere else is checked value by value.
        self._own = False
        #: A machine's own update as text (:meth:`of_text`), else None.
        self._text: OwnText | None = None

    @classmethod
    def of_text(cls, text: OwnText, retained: int, since: int | None) -> SnapshotUpdate:
        """A machine's own update, handed straight to a built-in store, as the canonical texts
        of its head and records (``statewright._snapshot_text``): ``head`` and ``records`` are
        parsed from them if anything asks."""
        update = cls.__new__(cls)
        update._head = update._records = None
        update.retained, update.since = retained, since
        update._own, update._text = True, text
        return update

    @property
    def head(self) -> dict[str, Any]:
        """The snapshot without ``"history"`` (its ``revision`` the machine's before the save)."""
        if self._head is None:
            import json

            text = self._text
            assert text is not None  # one of the two is always there
            self._head = json.loads(f"{text.before}{text.revision}{text.after}")
        return self._head

    @head.setter
    def head(self, head: dict[str, Any]) -> None:
        if self._text is not None:  # from now on a dict update: its records as dicts too
            self._records = self.records
        self._head, self._text = head, None

    @property
    def records(self) -> list[dict[str, Any]]:
        """The new history records, oldest first."""
        if self._records is None:
            import json

            text = self._text
            assert text is not None
            self._records = [json.loads(record) for record in text.records]
        return self._records

    @records.setter
    def records(self, records: list[dict[str, Any]]) -> None:
        if self._text is not None:
            self._head = self.head
        self._records, self._text = records, None

    @property
    def total(self) -> int:
        """The event id of the newest transition (the head's ``total_transitions``)."""
        if self._text is not None:
            return self._text.total
        total = self.head.get("total_transitions")
        if type(total) is not int:
            raise SnapshotError("an update's head needs an integer", field="total_transitions")
        return total

    def __repr__(self) -> str:
        return (
            f"SnapshotUpdate(total={self.total}, "
            f"new={len(self.records)}, retained={self.retained}, since={self.since})"
        )


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


@runtime_checkable
class ClosableStore(TimerStore, Protocol):
    """A :class:`TimerStore` that holds a resource (a connection, a lock file) until closed:
    every built-in store, and what ``open_store`` returns, so ``store.close()`` and
    ``with open_store(url) as store:`` type-check."""

    def close(self) -> None:
        """Release what the store holds; the store is not used afterwards."""
        ...

    def __enter__(self: _Closable) -> _Closable: ...

    def __exit__(self, *exc_info: object) -> None: ...


#: Defined after the class so that its bound is no string (typing compiles a string bound, and
#: this module is imported with every generated module).
_Closable = TypeVar("_Closable", bound=ClosableStore)

"""The data model's part of a statechart's running state, and its undo journal.

A macrostep works on a copy of the chart's state and the machine keeps the copy only when the
whole macrostep succeeded (:mod:`statewright._chart`). Copying the machine's data for every event
would cost what the data weighs, so every copy shares the one data object instead and records
each assignment it makes in its own journal: a discarded macrostep (a failed action with
``on_error = "raise"``, a failed checkpoint save, an error route tried instead) undoes its
journal, newest first, and leaves the data as it was. Values are stored as checked copies
(:func:`~statewright._data_values.stored`), so undoing an assignment restores exactly what was
there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from statewright._data_values import check_growth
from statewright._event_info import UNBOUND

if TYPE_CHECKING:
    from statewright._event_info import EventInfo, System

__all__ = ["DataState"]


class _Missing:
    """What a journal records for a dict key, or a data field, that was not there before."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class DataState:
    """The machine's data object (shared by every copy), its system variables, the event being
    processed (``_event``: :data:`~statewright._event_info.UNBOUND` before the first), the
    states whose own data late binding has initialized, the fields given at construction
    whose initializers have not run yet (they are skipped: the given value stays), and this
    copy's journal of assignments."""

    __slots__ = ("current", "data", "given", "initialized", "journal", "system")

    def __init__(
        self,
        data: Any,
        system: System | None = None,
        current: EventInfo[Any] = UNBOUND,
        initialized: frozenset[int] = frozenset(),
        given: frozenset[str] = frozenset(),
    ) -> None:
        self.data = data
        self.system = system
        self.current = current
        self.initialized = initialized
        self.given = given
        #: ``(object, field or key, value before, whether a field)``, oldest first.
        self.journal: list[tuple[Any, Any, Any, bool]] = []

    def copy(self) -> DataState:
        """The next macrostep's: the same data, an empty journal."""
        return DataState(self.data, self.system, self.current, self.initialized, self.given)

    def assign(self, name: str, value: Any) -> None:
        """Store ``value`` (a checked copy) in the data field ``name``, which may be unset (a
        computed field before its initializer ran, a late-bound state's before its entry)."""
        data = self.data
        self.journal.append((data, name, getattr(data, name, MISSING), True))
        setattr(data, name, value)

    def assign_item(self, container: Any, key: Any, value: Any) -> None:
        """Store ``value`` at ``key`` of ``container``, a list (an existing index) or a dict (a
        string key): anything else is a ``TypeError``, an index out of range an ``IndexError``."""
        kind = type(container)
        if kind is list:
            if type(key) is not int:
                raise TypeError(f"a list index must be an integer, not {type(key).__name__}")
            self.journal.append((container, key, container[key], False))
        elif kind is dict:
            if type(key) is not str:
                raise TypeError(f"a dict key must be a string, not {type(key).__name__}")
            check_growth(container, key)
            self.journal.append((container, key, container.get(key, MISSING), False))
        else:
            raise TypeError(f"cannot assign an item of {kind.__name__}")
        container[key] = value

    def rollback(self) -> None:
        """Undo this copy's assignments, newest first."""
        journal = self.journal
        while journal:
            target, key, before, field = journal.pop()
            if field:
                if before is MISSING:
                    delattr(target, key)
                else:
                    setattr(target, key, before)
            elif before is MISSING:
                del target[key]
            else:
                target[key] = before

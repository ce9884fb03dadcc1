"""The data model part of a :class:`~statewright.MachineSpec`: the machine's data fields, and the
executable content that reads and writes them, as a generated module describes them.

Every expression of a spec (a condition, an assigned value, a sent event's data, a delay, a log
line) is compiled by statewright's compiler into a small typed function in the generated module,
``fn(data, event, system, active)`` over the machine's data object, the ``_event`` value
(:class:`~statewright._event_info.EventInfo`), the system variables
(:class:`~statewright._event_info.System`) and the indexes of the active states (for ``In``).
The runtime only ever calls those functions: no spec or chart text is evaluated. Like the other
spec values these are plain slotted classes.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from statewright._frozen import FrozenValue

__all__ = ["Assign", "DataModel", "Expression", "Foreach", "If"]

#: A compiled expression: ``fn(data, event, system, active) -> value`` (generated code).
Expression = Callable[[Any, Any, Any, Container[int]], Any]

_set = object.__setattr__


class DataModel(FrozenValue):
    """The machine's data: ``factory()`` makes a fresh data object (an instance of the generated
    ``<Name>Data`` class, its fields holding their literal initial values); ``fields`` are
    ``(name, type, required)`` in the payload shapes of :mod:`statewright._payloads`, what a
    snapshot's ``data`` is checked against; ``binding`` is SCXML's: ``"early"`` initializes
    every state's own fields at start, ``"late"`` when the state is first entered."""

    __match_args__ = ("factory", "fields", "binding")
    __slots__ = __match_args__

    factory: Callable[[], Any]
    fields: tuple[tuple[str, tuple[Any, ...], bool], ...]
    binding: str

    def __init__(
        self,
        factory: Callable[[], Any],
        fields: tuple[tuple[str, tuple[Any, ...], bool], ...],
        binding: str = "early",
    ) -> None:
        _set(self, "factory", factory)
        _set(self, "fields", fields)
        _set(self, "binding", binding)


class Assign(FrozenValue):
    """Executable content: store what ``value`` computes in the data field ``field`` or, when
    ``container`` is given, at ``key`` (computed) of the list or dict ``container`` computes (an
    item of a field: ``items[0]``, ``table["k"]``). ``location`` is the spec's text of where it
    stores, for errors and logs. A failure (the expression raises, the key is out of range)
    stops the block: SCXML's ``error.execution``."""

    __match_args__ = ("location", "value", "field", "container", "key")
    __slots__ = __match_args__

    location: str
    value: Expression
    field: str | None
    container: Expression | None
    key: Expression | None

    def __init__(
        self,
        location: str,
        value: Expression,
        field: str | None = None,
        container: Expression | None = None,
        key: Expression | None = None,
    ) -> None:
        _set(self, "location", location)
        _set(self, "value", value)
        _set(self, "field", field)
        _set(self, "container", container)
        _set(self, "key", key)


class If(FrozenValue):
    """Executable content: the steps of the first branch whose condition holds (``if`` then each
    ``elif``), else ``otherwise``. A condition that raises counts as false (SCXML 5.9), with
    ``error.execution`` (or, with ``on_error = "raise"``, the event fails)."""

    __match_args__ = ("branches", "otherwise")
    __slots__ = __match_args__

    branches: tuple[tuple[Expression, tuple[Any, ...]], ...]
    otherwise: tuple[Any, ...]

    def __init__(
        self,
        branches: tuple[tuple[Expression, tuple[Any, ...]], ...],
        otherwise: tuple[Any, ...] = (),
    ) -> None:
        _set(self, "branches", branches)
        _set(self, "otherwise", otherwise)


class Foreach(FrozenValue):
    """Executable content: ``steps`` once per item of the list (or the keys of the dict)
    ``array`` computes, a shallow copy taken first (SCXML), each item stored in the data field
    ``item`` and its position in ``index`` (when given) before the steps run."""

    __match_args__ = ("array", "item", "index", "steps")
    __slots__ = __match_args__

    array: Expression
    item: str
    index: str | None
    steps: tuple[Any, ...]

    def __init__(
        self, array: Expression, item: str, index: str | None, steps: tuple[Any, ...]
    ) -> None:
        _set(self, "array", array)
        _set(self, "item", item)
        _set(self, "index", index)
        _set(self, "steps", steps)

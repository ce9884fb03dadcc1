"""Executable content as a chart's spec describes it: what a state's entry and exit, a
transition and an invoke's ``finalize`` run, step by step (SCXML's executable content). A step is
a handler action's name or one of these values; the data model's steps (:class:`Assign`,
:class:`If`, :class:`Foreach`) are in :mod:`statewright._data_spec`. Plain slotted classes, like
the other spec values: a generated module builds them while it is imported.
"""

from __future__ import annotations

from typing import Any

from statewright._data_spec import Assign, Expression, Foreach, If
from statewright._frozen import FrozenValue

__all__ = ["Cancel", "Log", "Raise", "Send", "Step"]

_set = object.__setattr__


class Raise(FrozenValue):
    """Executable content: put ``event`` (a member of the event enum) on the internal queue."""

    __match_args__ = ("event",)
    __slots__ = __match_args__

    event: Any

    def __init__(self, event: Any) -> None:
        _set(self, "event", event)


class Log(FrozenValue):
    """Executable content: log ``text`` under ``label`` (SCXML's ``<log>``), or, when ``expr``
    is given, what it computes, as a string (``str``), instead of ``text``."""

    __match_args__ = ("label", "text", "expr")
    __slots__ = __match_args__

    label: str
    text: str
    expr: Expression | None

    def __init__(self, label: str, text: str, expr: Expression | None = None) -> None:
        _set(self, "label", label)
        _set(self, "text", text)
        _set(self, "expr", expr)


class Send(FrozenValue):
    """Executable content: send ``event`` to the machine itself after ``delay`` seconds (or what
    the delay handler ``handler`` returns), as timer ``id`` (a later send with the same id
    replaces it). ``on_restore`` says what a restored machine does with it: ``"fire"`` at its
    due time (at once when overdue), ``"resume"`` with the time it had left, ``"restart"``.

    The data model's forms (SCXML 6.2), each a compiled expression where its name ends in
    ``_expr``: ``event_expr`` (the event's name, instead of ``event``), ``delay_expr`` (seconds,
    or a duration such as ``"1.5s"``), ``data`` (the event's data: a dict of its params and
    namelist, or its content), ``target``/``target_expr`` (``None`` or ``"#_scxml_<session>"``:
    this machine's external queue; ``"#_internal"``: its internal queue; anything else cannot be
    delivered), ``type``/``type_expr`` (the SCXML event processor, by URI or ``"scxml"``), and
    ``id_location`` (the data field that receives the send id; ``id`` is then "" and the
    machine makes one up). ``id`` "" without an ``id_location`` is a send the spec gave no id:
    the machine makes one up too, and the event's ``_event.sendid`` is blank (SCXML 5.10.1)."""

    __match_args__ = (
        "event",
        "id",
        "delay",
        "handler",
        "on_restore",
        "event_expr",
        "delay_expr",
        "id_location",
        "data",
        "target",
        "target_expr",
        "type",
        "type_expr",
    )
    __slots__ = __match_args__

    event: Any
    id: str
    delay: float | None
    handler: str | None
    on_restore: str
    event_expr: Expression | None
    delay_expr: Expression | None
    id_location: str | None
    data: Expression | None
    target: str | None
    target_expr: Expression | None
    type: str | None
    type_expr: Expression | None

    def __init__(
        self,
        event: Any,
        id: str,  # SCXML's name for it
        delay: float | None = None,
        handler: str | None = None,
        on_restore: str = "fire",
        event_expr: Expression | None = None,
        delay_expr: Expression | None = None,
        id_location: str | None = None,
        data: Expression | None = None,
        target: str | None = None,
        target_expr: Expression | None = None,
        type: str | None = None,  # SCXML's name for it
        type_expr: Expression | None = None,
    ) -> None:
        _set(self, "event", event)
        _set(self, "id", id)
        _set(self, "delay", delay)
        _set(self, "handler", handler)
        _set(self, "on_restore", on_restore)
        _set(self, "event_expr", event_expr)
        _set(self, "delay_expr", delay_expr)
        _set(self, "id_location", id_location)
        _set(self, "data", data)
        _set(self, "target", target)
        _set(self, "target_expr", target_expr)
        _set(self, "type", type)
        _set(self, "type_expr", type_expr)


class Cancel(FrozenValue):
    """Executable content: cancel the pending timer ``id``, or the one whose id ``id_expr``
    computes (nothing happens if there is none)."""

    __match_args__ = ("id", "id_expr")
    __slots__ = __match_args__

    id: str
    id_expr: Expression | None

    def __init__(self, id: str, id_expr: Expression | None = None) -> None:
        _set(self, "id", id)
        _set(self, "id_expr", id_expr)


#: One piece of executable content: a handler action's name, :class:`Raise`, :class:`Log`,
#: :class:`Send`, :class:`Cancel`, or the data model's :class:`Assign`, :class:`If` and
#: :class:`Foreach`.
Step = str | Raise | Log | Send | Cancel | Assign | If | Foreach

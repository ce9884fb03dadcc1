"""Where a data model's ``send`` goes and when (SCXML 6.2), as plain functions of the values its
expressions computed: the delay, the target and type, and the ids the machine makes up.

Targets (SCXML 6.2.4 and C.1): none, or ``#_scxml_<its own session id>``, is the machine's
external queue (a timer, due at once without a delay); ``#_internal`` its internal queue;
``#_parent`` the machine that invoked this one, ``#_<invokeid>`` a child machine this one runs
(a :class:`~statewright._chart_state.Message` on its way there: :mod:`statewright._tree`); a
machine that has no parent, an invoke id of no running child and any other
``#_scxml_<session>`` cannot be reached (``error.communication``); anything else is no target
the SCXML event processor takes (``error.execution``). The type must be that processor, by its
URI or ``scxml`` (else ``error.execution``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from statewright._chart_spec import MAX_DELAY
from statewright._event_info import SCXML_PROCESSOR

if TYPE_CHECKING:
    from statewright._event_info import System

__all__ = [
    "ANONYMOUS",
    "EXTERNAL_QUEUE",
    "INTERNAL_QUEUE",
    "LOCATED",
    "MESSAGE",
    "PARENT",
    "Unreachable",
    "made_up_id",
    "made_up_invoke_id",
    "made_up_kind",
    "route",
    "seconds",
]

#: Where a send goes: the external queue (a timer) or the internal queue.
EXTERNAL_QUEUE: Final = "external"
INTERNAL_QUEUE: Final = "internal"
#: The machine that invoked this one, as a send's target.
PARENT: Final = "#_parent"
#: The prefixes of the ids the machine makes up: for a send with an ``id_location`` (the id is
#: its ``_event.sendid``), for one with neither id nor location (``_event.sendid`` blank), and
#: for a message no send named (one received from another machine, one forwarded to a child).
#: No spec id has a ``-``: a made-up id never names a spec's timer.
LOCATED: Final = "send-"
ANONYMOUS: Final = "anon-"
MESSAGE: Final = "msg-"
_MADE_UP: Final = re.compile(r"(send|anon|msg)-[0-9a-f]{16}")
#: A duration as SCXML writes one (CSS2: ``"1s"``, ``".5s"``, ``"200ms"``), with the spec's
#: other units too (``"5m"``, ``"1h30m"``, ``"2d"``): each unit at most once.
_PART: Final = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h|d)")
_UNITS: Final = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_PROCESSORS: Final = frozenset({SCXML_PROCESSOR, "scxml"})


class Unreachable(Exception):
    """A target this machine cannot deliver to: SCXML's ``error.communication``."""


def seconds(value: Any) -> float:
    """The delay a ``delay_expr`` computed: seconds (a number from 0 to ten years) or a
    duration string; ``ValueError``/``TypeError`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(f"a delay is seconds or a duration such as '1.5s', not {value!r:.60}")
    if isinstance(value, str):
        text = value.strip()
        parts = _PART.findall(text)
        units = [unit for _, unit in parts]
        if not parts or "".join(n + u for n, u in parts) != text or len(set(units)) < len(units):
            raise ValueError(f"{value!r:.60} is not a duration such as '1s', '.5s' or '200ms'")
        value = sum(float(number) * _UNITS[unit] for number, unit in parts)
    if not 0 <= value <= MAX_DELAY:  # NaN fails too
        raise ValueError(f"a delay of {value!r:.40} seconds is not from 0 to ten years")
    return float(value)


def route(
    target: Any,
    kind: Any,
    system: System | None,
    children: Mapping[str, tuple[int, int, Any]] | None = None,
) -> str:
    """Where a send with ``target`` and ``kind`` (``type``) goes from the machine of ``system``:
    :data:`EXTERNAL_QUEUE`, :data:`INTERNAL_QUEUE`, or the target itself for another machine
    of its tree (:data:`PARENT` when a parent invoked it, ``#_<invokeid>`` for a running child
    among ``children``); :class:`Unreachable` for a session it cannot reach, ``ValueError`` for
    a type or a target the SCXML event processor does not take."""
    if kind is not None and kind not in _PROCESSORS:
        raise ValueError(f"{kind!r:.80} is not an event processor type this machine has")
    if target is None or (system is not None and target == f"#_scxml_{system.sessionid}"):
        return EXTERNAL_QUEUE
    if target == "#_internal":
        return INTERNAL_QUEUE
    if isinstance(target, str) and target.startswith("#_"):
        if target == PARENT:
            if system is not None and system.parent:
                return PARENT
            raise Unreachable("#_parent: this machine was not invoked by another one")
        child = None if children is None else children.get(target[2:])
        if child is not None and child[2] is not None:
            return target
        if not target.startswith("#_scxml_"):
            raise Unreachable(f"{target!r:.80} names no child machine this machine runs")
        raise Unreachable(f"{target!r:.80} is a session this machine cannot reach")
    raise ValueError(f"{target!r:.80} is not a target of the SCXML event processor")


def made_up_id(anonymous: bool, prefix: str | None = None) -> str:
    """A fresh send id (SCXML's ``idlocation``, or a send without an id), or with ``prefix``
    (:data:`MESSAGE`) a message's."""
    import os

    if prefix is None:
        prefix = ANONYMOUS if anonymous else LOCATED
    return f"{prefix}{os.urandom(8).hex()}"


def made_up_invoke_id(state: str) -> str:
    """A fresh invoke id for an invoke of ``state`` that names none: ``<state>.<16 hex digits>``
    (SCXML's ``stateid.platformid``)."""
    import os

    return f"{state}.{os.urandom(8).hex()}"


def made_up_kind(timer_id: str) -> str | None:
    """:data:`LOCATED`, :data:`ANONYMOUS` or :data:`MESSAGE` for an id :func:`made_up_id`
    made, else None."""
    if _MADE_UP.fullmatch(timer_id) is None:
        return None
    return timer_id[: timer_id.index("-") + 1]

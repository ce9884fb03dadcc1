"""Transition history: cheap to record, pleasant to read.

The hot path appends one plain tuple per transition (a frozen dataclass costs about three tuples)
and keeps the epoch float from the clock; :class:`TransitionRecord` objects, ISO-8601 strings and
JSON forms of payloads are only built when someone reads the history.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Listener", "RawRecord", "TransitionRecord", "format_timestamp", "to_json_value"]


#: What the machine stores per transition: ``(counter_index, epoch, payload)``, plus the error
#: text as a fourth item for error-route transitions. The counter index names the
#: ``(source, event, target)`` triple in the machine's table. A small plain tuple of an int, a
#: float and a (usually untracked) dict is cheap to build, and the garbage collector stops
#: tracking it, so a long history does not slow every collection down. The event id is not
#: stored: it follows from the record's position and the machine's transition count.
RawRecord = tuple[Any, ...]


def format_timestamp(epoch: float) -> str:
    """UTC ISO-8601 with microseconds and offset, e.g. ``2026-01-01T00:00:00.000000+00:00``."""
    from datetime import datetime, timezone  # only readers need it: 1-2 ms off the import

    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="microseconds")


def to_json_value(value: object) -> Any:
    """The JSON form of a payload value: enums by value, dataclasses as dicts, tuples as lists.

    Anything else that JSON cannot hold becomes its ``repr`` so that history never fails to record.
    """
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return to_json_value(value.value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_json_value(v) for v in items]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json_value(dataclasses.asdict(value))
    return repr(value)


@dataclasses.dataclass(frozen=True, slots=True)
class TransitionRecord:
    """One applied transition, as readers see it. Built lazily from the stored tuple.

    ``source``, ``event`` and ``target`` are the machine's enum members (``StrEnum``, so they
    compare equal to their string values). They are typed ``Any`` so that one non-generic record
    type serves every machine and indexes enum-keyed tables without casts.
    """

    source: Any
    event: Any
    target: Any
    epoch: float
    event_id: int
    payload: Mapping[str, Any]
    #: The error text when this transition was taken through an error route.
    error: str | None = None

    @property
    def timestamp(self) -> str:
        """UTC ISO-8601 timestamp of the transition."""
        return format_timestamp(self.epoch)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"from", "event", "to", "timestamp", "event_id", "payload"}``.

        ``"error"`` is added only for error-route transitions.
        """
        out: dict[str, Any] = {
            "from": str(self.source),
            "event": str(self.event),
            "to": str(self.target),
            "timestamp": self.timestamp,
            "event_id": self.event_id,
            "payload": to_json_value(self.payload),
        }
        if self.error is not None:
            out["error"] = self.error
        return out


#: Called after every applied transition with its record.
Listener = Callable[[TransitionRecord], object]

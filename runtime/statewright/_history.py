"""Transition history: cheap to record, pleasant to read.

The hot path appends one plain tuple per transition (a frozen dataclass costs about three tuples)
and keeps the epoch float from the clock; :class:`TransitionRecord` objects, ISO-8601 strings and
JSON forms of payloads are only built when someone reads the history.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any, Final

from statewright._jsondata import MAX_INT_BITS

__all__ = [
    "MAX_PAYLOAD_DEPTH",
    "Listener",
    "RawRecord",
    "TransitionRecord",
    "format_timestamp",
    "to_json_value",
]


#: What the machine stores per transition: ``(counter_index, epoch, payload)``, or just
#: ``(counter_index, epoch)`` when the payload is empty (most are: an empty dict per record would
#: be 64 of its 152 bytes; readers get a fresh empty dict); plus the error text as a fourth item
#: for error-route transitions, and a timer's lateness as a fifth (the fourth is then the error
#: or None); a record restored from a snapshot of another spec has that spec's fingerprint as a
#: sixth (None when not known), as snapshots write it. The counter index names the ``(source,
#: event, target)`` triple in the machine's table. A small plain tuple of an int, a float and a
#: (usually untracked) dict is cheap to build, and the garbage collector stops tracking it, so a
#: long history does not slow every collection down. The event id is not stored: it follows from
#: the record's position and the machine's transition count.
RawRecord = tuple[Any, ...]


def format_timestamp(epoch: float) -> str:
    """UTC ISO-8601 with microseconds and offset, e.g. ``2026-01-01T00:00:00.000000+00:00``."""
    from datetime import datetime, timezone  # only readers need it: 1-2 ms off the import

    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="microseconds")


#: Nesting kept in a payload's JSON form; deeper values are replaced by a marker string.
MAX_PAYLOAD_DEPTH: Final = 64
#: Integers longer than snapshots take (:data:`~statewright._jsondata.MAX_INT_BITS`) are
#: replaced too.


def to_json_value(value: object, depth: int = 0) -> Any:
    """The JSON form of a payload value: enums by value, dataclasses as dicts, tuples as lists.

    Always strict JSON data, so that history never fails to record or to snapshot: anything else
    becomes its ``repr`` (a non-finite float too), keys become strings, and what nests deeper than
    :data:`MAX_PAYLOAD_DEPTH` or is too long an integer becomes a short marker string.
    """
    if value is None or value is True or value is False:
        return value
    if isinstance(value, enum.Enum):
        return to_json_value(value.value, depth)
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            return f"<int of {value.bit_length()} bits>"
        return int(value)
    if isinstance(value, float):
        return float(value) if value - value == 0.0 else repr(float(value))
    if isinstance(value, str):
        return str.__str__(value)
    if depth >= MAX_PAYLOAD_DEPTH:
        return f"<{type(value).__name__} nested more than {MAX_PAYLOAD_DEPTH} levels deep>"
    if isinstance(value, Mapping):
        return {_key(k): to_json_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_json_value(v, depth + 1) for v in items]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return to_json_value(fields, depth)
    try:
        return repr(value)
    except Exception as exc:  # a broken __repr__ must not break history
        return f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"


def _key(key: object) -> str:
    if isinstance(key, str):
        return str(key)  # a StrEnum key by its value
    try:
        return str(key)
    except Exception as exc:  # see to_json_value
        return f"<{type(key).__name__} whose str raised {type(exc).__name__}>"


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
    #: For a transition a timer's event made: how late it fired, in seconds (the time
    #: ``fire_due`` ran at minus the timer's due time); None for every other transition.
    lateness: float | None = None

    @property
    def timestamp(self) -> str:
        """UTC ISO-8601 timestamp of the transition."""
        return format_timestamp(self.epoch)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"from", "event", "to", "timestamp", "event_id", "payload"}``.

        ``"error"`` is added only for error-route transitions, ``"lateness"`` only for
        transitions of timers.
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
        if self.lateness is not None:
            out["lateness"] = self.lateness
        return out


#: Called after every applied transition with its record.
Listener = Callable[[TransitionRecord], object]

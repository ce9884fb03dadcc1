"""The clock rule: every epoch a machine records is a finite float that a timestamp can show.

History keeps the raw epoch a clock returned and formats it (``datetime.fromtimestamp``) only when
someone reads a timestamp or takes a snapshot, so a clock that once returned ``NaN``, ``None`` or a
year-20000 value would make every later ``snapshot()`` fail. A user-supplied clock is therefore
wrapped once, at construction, by :func:`checked_clock`: a clock that raises, or returns anything
but a number in ``[MIN_EPOCH, MAX_EPOCH]``, raises :class:`ClockError` before the machine changed.
The default ``time.time`` is used as it is, so the hot path pays nothing for the rule.

Imported with every generated module: ``time`` is built in, nothing else is imported.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final

from statewright._errors import ClockError

__all__ = ["MAX_EPOCH", "MIN_EPOCH", "checked_clock", "is_epoch"]

#: 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the range ``datetime`` can format.
MIN_EPOCH: Final = -62135596800.0
MAX_EPOCH: Final = 253402300799.0


def is_epoch(value: object) -> bool:
    """Whether ``value`` is a number (not a bool) in the formattable range (NaN is not)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and MIN_EPOCH <= value <= MAX_EPOCH
    )


def checked_clock(clock: Callable[[], float]) -> Callable[[], float]:
    """``clock`` itself when it is ``time.time``, otherwise a wrapper enforcing the rule."""
    if clock is time.time:
        return clock

    def checked() -> float:
        try:
            value: Any = clock()
        except Exception as exc:
            raise ClockError(f"the clock {clock!r} raised {type(exc).__name__}: {exc}") from exc
        if not is_epoch(value):
            raise ClockError(
                f"the clock {clock!r} returned {value!r}; a clock returns seconds since the "
                "epoch (UTC) as a finite number between 0001-01-01 and 9999-12-31"
            )
        return float(value)

    return checked

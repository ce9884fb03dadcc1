"""Timer delays as a spec writes them: ``"30s"``, ``"5m"``, ``"1h30m"``, ``"250ms"``, ``"2d"``, or
ISO 8601 durations such as ``"PT1H"``, ``"P1DT12H"`` and ``"PT0.5S"``. Parsed to seconds when the
spec compiles, so the generated module and the runtime only ever see a number."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAX_DELAY", "DurationError", "parse_duration"]

#: Ten years: a timer further out than that is a unit mistake, not a plan.
MAX_DELAY: Final = 10 * 365 * 24 * 3600.0

_UNITS: Final = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_SHORT: Final = re.compile(r"(?:(\d+(?:\.\d+)?)(ms|s|m|h|d))+")
_SHORT_PART: Final = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_ISO: Final = re.compile(
    r"P(?:(?P<d>\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?"
)


class DurationError(ValueError):
    """Text that is not a duration this language accepts."""


def parse_duration(text: str, *, allow_zero: bool = False) -> float:
    """Seconds in ``text``; :class:`DurationError` says what is wrong. Zero only where
    ``allow_zero`` (a sent event due at once, SCXML's undelayed ``<send>``)."""
    stripped = text.strip()
    seconds: float | None = None
    if stripped.startswith("P"):
        match = _ISO.fullmatch(stripped)
        if match is not None and stripped not in ("P", "PT") and not stripped.endswith("T"):
            parts = {key: float(value) for key, value in match.groupdict().items() if value}
            seconds = sum(parts.get(key, 0.0) * unit for key, unit in _ISO_UNITS.items())
    elif _SHORT.fullmatch(stripped):
        units = [unit for _, unit in _SHORT_PART.findall(stripped)]
        if len(units) == len(set(units)):
            seconds = sum(
                float(number) * _UNITS[unit] for number, unit in _SHORT_PART.findall(stripped)
            )
    if seconds is None:
        raise DurationError(
            f"{text!r} is not a duration: write e.g. '30s', '5m', '1h30m', '250ms' or 'PT1H'"
        )
    if not (seconds >= 0 if allow_zero else seconds > 0) or seconds > MAX_DELAY:
        least = "at least" if allow_zero else "more than"
        raise DurationError(f"{text!r} must be {least} 0 and at most ten years")
    return seconds


_ISO_UNITS: Final = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}

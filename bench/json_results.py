"""``--json FILE`` for the benches that measure an issue-#22 target: what ``make bench`` turns
into docs/performance.md's tables.

A bench builds its rows with :func:`row` and hands them to :func:`write`, which writes the file
the page generator reads (one object: ``bench``, ``python``, ``implementation``, ``settings``,
``results``; nothing else). A ratio that misses its target is still written: the page shows it
as missed.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any, Final

__all__ = ["UNITS", "row", "write"]

#: The units a row's value may have.
UNITS: Final = frozenset({"ns", "us", "ms", "s", "B", "x"})


def row(
    measure: str,
    value: float,
    unit: str,
    *,
    against: str | None = None,
    ratio: float | None = None,
    target: float | None = None,
    target_op: str | None = None,
) -> dict[str, Any]:
    """One result: ``value`` in ``unit``; ``ratio`` is ``value`` over the row ``against``'s,
    held to ``target`` by ``target_op`` (``"<="`` or ``">="``) when the issue sets one."""
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r} is not one of {sorted(UNITS)}")
    if (target is None) != (target_op is None):
        raise ValueError("a target needs its operator, and an operator its target")
    return {
        "measure": measure,
        "value": round(value, 3),
        "unit": unit,
        "against": against,
        "ratio": None if ratio is None else round(ratio, 3),
        "target": target,
        "target_op": target_op,
    }


def write(
    path: str | Path, bench: str, settings: dict[str, str], rows: list[dict[str, Any]]
) -> None:
    """Write (overwrite) ``path`` as the contract's UTF-8 JSON document."""
    document = {
        "bench": bench,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "settings": {str(key): str(value) for key, value in settings.items()},
        "results": rows,
    }
    Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")

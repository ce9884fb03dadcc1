"""What a bench measured, as data: the rows ``make bench`` turns into docs/performance.md.

A bench prints its own table for whoever runs it by hand; given ``--json FILE`` it also writes
what it measured there, one :class:`Results` per run (the format: see :meth:`Results.write`).
``bench/performance_page.py`` reads every such file and writes the page, so the page's figures
are always the ones the code gave on the machine that ran ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path
from typing import Any

UNITS = frozenset({"ns", "us", "ms", "s", "B", "KB", "MB", "x", "count"})
OPERATORS = frozenset({"<=", ">="})


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--json FILE`` option every bench that feeds the page takes."""
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="also write what was measured to FILE (JSON, read by bench/performance_page.py)",
    )


class Results:
    """The rows one bench run measured: values, and ratios of a value to another row's."""

    def __init__(self, bench: str, **settings: object) -> None:
        self.bench = bench
        self.settings = {name: str(value) for name, value in settings.items()}
        self.rows: list[dict[str, Any]] = []
        self._values: dict[str, float] = {}

    def add(
        self,
        measure: str,
        value: float,
        unit: str,
        *,
        against: str | None = None,
        target: float | None = None,
        target_op: str = "<=",
    ) -> float | None:
        """Record ``measure``; with ``against`` (a row added before), its ratio to that row's
        value, and the issue's ``target`` for that ratio. Returns the ratio."""
        assert unit in UNITS, unit
        assert target_op in OPERATORS, target_op
        assert target is None or against is not None, "a target is for a ratio"
        ratio = None if against is None else value / self._values[against]
        self._values[measure] = value
        self.rows.append(
            {
                "measure": measure,
                "value": value,
                "unit": unit,
                "against": against,
                "ratio": ratio,
                "target": target,
                "target_op": target_op if target is not None else None,
            }
        )
        return ratio

    def write(self, path: Path | None) -> None:
        """Write the run to ``path`` (nothing without one)::

        {"bench": ..., "python": "3.11.7", "implementation": "CPython", "settings": {...},
         "results": [{"measure", "value", "unit", "against", "ratio", "target", "target_op"}]}
        """
        if path is None:
            return
        document = {
            "bench": self.bench,
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "settings": self.settings,
            "results": self.rows,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")

"""Fuzzing: mutated seed specs through the compiler, corrupted snapshots through the runtime,
SCXML documents in hostile encodings through the importer.

A bounded budget runs in ``make test``; ``make fuzz`` runs a long one with a fresh seed. The
budget and the seed come from ``STATEWRIGHT_FUZZ_BUDGET`` (cases) and ``STATEWRIGHT_FUZZ_SEED``;
a failure prints the seed and the case so that it can be replayed.
"""

from __future__ import annotations

import os
from typing import Final

#: Cases per fuzz test in ``make test`` (a few seconds each).
DEFAULT_BUDGET: Final = 300


def budget() -> int:
    return int(os.environ.get("STATEWRIGHT_FUZZ_BUDGET", DEFAULT_BUDGET))


def seed() -> int:
    return int(os.environ.get("STATEWRIGHT_FUZZ_SEED", "0"))

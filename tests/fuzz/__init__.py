"""Fuzzing: mutated seed specs through the compiler, corrupted snapshots through the runtime.

A bounded budget runs in ``make test``; ``make fuzz`` runs a long one with a fresh seed. The
budget and the seed come from ``STATEWRIGHT_FUZZ_BUDGET`` (cases) and ``STATEWRIGHT_FUZZ_SEED``;
a failure prints the seed and the case so that it can be replayed.

``make test`` runs the suite on several interpreters: each gets its own seed and its share of the
budget (``STATEWRIGHT_FUZZ_PARTS`` interpreters share it), so together they cover the whole budget
with different cases instead of each repeating the same ones.
"""

from __future__ import annotations

import os
from typing import Final

#: Cases per fuzz test in ``make test`` (a few seconds each), over all interpreters.
DEFAULT_BUDGET: Final = 300


def budget(fraction: int = 1) -> int:
    """This interpreter's cases for a test given ``1/fraction`` of the budget: its share of them,
    rounded up, plus one (every seed starts from the same simplest example), so that the
    interpreters together run at least as many different cases as the whole budget."""
    whole = int(os.environ.get("STATEWRIGHT_FUZZ_BUDGET", DEFAULT_BUDGET)) // fraction
    parts = int(os.environ.get("STATEWRIGHT_FUZZ_PARTS", "1"))
    return whole if parts == 1 else -(-whole // parts) + 1


def seed() -> int:
    return int(os.environ.get("STATEWRIGHT_FUZZ_SEED", "0"))

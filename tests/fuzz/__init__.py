"""Fuzzing: mutated seed specs through the compiler, corrupted snapshots through the runtime,
SCXML documents in hostile encodings through the importer.

A bounded budget runs in ``make test``; ``make fuzz`` runs a long one with a fresh seed. The
budget and the seed come from ``STATEWRIGHT_FUZZ_BUDGET`` (cases) and ``STATEWRIGHT_FUZZ_SEED``;
a failure prints the seed and the case so that it can be replayed.

``make test`` runs the suite on several interpreters: each gets its own seed and its share of the
budget (``STATEWRIGHT_FUZZ_PARTS`` interpreters share it), so together they cover the whole budget
with different cases instead of each repeating the same ones. The suite's other property tests
share their examples the same way (:func:`examples`).
"""

from __future__ import annotations

import os
from typing import Final

#: Cases per fuzz test in ``make test`` (a few seconds each), over all interpreters.
DEFAULT_BUDGET: Final = 300
#: Cases each interpreter adds to its share: Hypothesis starts every seed from the same simplest
#: examples, so a few of each interpreter's cases are another's (two to three of 26, measured).
OVERLAP: Final = 3


def parts() -> int:
    """How many interpreters share the budget (``make test`` sets one per interpreter it runs)."""
    return int(os.environ.get("STATEWRIGHT_FUZZ_PARTS", "1"))


def whole_budget() -> int:
    return int(os.environ.get("STATEWRIGHT_FUZZ_BUDGET", DEFAULT_BUDGET))


def examples(count: int) -> int:
    """This interpreter's examples for a property test written for ``count`` (scaled like the
    budget where it is another: ``make check`` runs a tenth): like :func:`budget`, its share of
    them plus :data:`OVERLAP`, each interpreter from its own seed, so that the interpreters
    together run at least ``count`` different cases instead of each repeating ``count``."""
    return _share(max(1, count * whole_budget() // DEFAULT_BUDGET))


def budget(fraction: int = 1) -> int:
    """This interpreter's cases for a test given ``1/fraction`` of the budget: its share of them,
    rounded up, plus :data:`OVERLAP`, so that the interpreters together run at least as many
    different cases as the whole budget."""
    return _share(whole_budget() // fraction)


def _share(whole: int) -> int:
    """This interpreter's part of ``whole`` cases, rounded up, plus :data:`OVERLAP`."""
    return whole if parts() == 1 else -(-whole // parts()) + OVERLAP


def main_only_examples(count: int) -> int:
    """:func:`examples` for a property test that runs on the main interpreter only: as many as all
    the interpreters ran together when it ran on each of them."""
    return max(1, count * whole_budget() // DEFAULT_BUDGET) * parts()


def seed() -> int:
    return int(os.environ.get("STATEWRIGHT_FUZZ_SEED", "0"))

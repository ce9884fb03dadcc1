"""Helpers shared by the seed tests: a fake clock, a store that records saves, path finding."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

from statewright import Alternative, MemoryStore, StrEnum

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)

#: 2025-10-30T10:23:45Z, the timestamp of seed 000's ``context.FSM`` example.
SEED_000_EPOCH = datetime(2025, 10, 30, 10, 23, 45, tzinfo=timezone.utc).timestamp()


class FakeClock:
    """Deterministic clock: returns ``now`` and then moves it on by ``step`` seconds."""

    def __init__(self, start: float = SEED_000_EPOCH, step: float = 1.0) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value

    def advance(self, seconds: float) -> None:
        self.now += seconds


def iso(epoch: float) -> str:
    """The runtime's timestamp format (UTC, microseconds, explicit offset)."""
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="microseconds")


class RecordingStore(MemoryStore):
    """A :class:`MemoryStore` that remembers every save as ``(state, last event, revision)``."""

    def __init__(self) -> None:
        super().__init__()
        self.saves: list[tuple[str, str | None, int]] = []
        #: Every saved snapshot, as stored (JSON round trip, with its revision).
        self.snapshots: list[dict[str, Any]] = []

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        revision = super().save(instance_id, snapshot, expected_revision)
        history = snapshot.get("history") or []
        last_event = str(history[-1]["event"]) if history else None
        self.saves.append((str(snapshot["state"]), last_event, revision))
        stored = self.load(instance_id)
        assert stored is not None
        self.snapshots.append(stored)
        return revision


def shortest_path(
    transitions: Mapping[S, Mapping[E, tuple[Alternative[S], ...]]], start: S, goal: S
) -> list[E]:
    """Events leading from ``start`` to ``goal`` through unguarded alternatives (BFS)."""
    paths: dict[S, list[E]] = {start: []}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state == goal:
            return paths[state]
        for event, alternatives in transitions.get(state, {}).items():
            for alternative in alternatives:
                target = alternative.target
                if (
                    alternative.guard is None
                    and isinstance(target, StrEnum)
                    and target not in paths
                ):
                    paths[target] = [*paths[state], event]
                    queue.append(target)
    raise AssertionError(f"{goal} is not reachable from {start}")

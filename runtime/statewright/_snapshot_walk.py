"""Whether a snapshot's parts tell one story: its state is where its history ends and, for a
flat machine, its counts, ``previous`` and history describe one walk from the initial state
(a statechart's walk depends on its configuration, which :mod:`statewright._chart_snapshot`
checks instead). Part of the strict decoder (:mod:`statewright._snapshot_decode`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from statewright._errors import SnapshotError

if TYPE_CHECKING:
    from statewright._table import Table

__all__ = ["check_last", "check_walk"]


def check_last(table: Table, state: Any, history: list[tuple[Any, ...]]) -> None:
    """The state is the one the last history record ended in."""
    triples = table.triples
    if history and triples[history[-1][0]][2] is not state:
        raise SnapshotError(
            f"is {state} but the history ends in {triples[history[-1][0]][2]}", field="state"
        )


def check_walk(
    table: Table, counts: list[int], state: Any, previous: Any, history: list[tuple[Any, ...]]
) -> None:
    """Counts, state, previous and history must describe one walk from the initial state."""
    check_last(table, state, history)
    triples = table.triples
    initial = table.spec.initial
    entered = {member: 0 for member in table.states_by_value.values()}
    left = dict(entered)
    entered[initial] = 1  # the start
    for (source, _, target), n in zip(triples, counts, strict=True):
        left[source] += n
        entered[target] += n
    for member in entered:
        if entered[member] - left[member] != (member is state):
            raise SnapshotError(
                f"describe no walk from {initial} to {state}: {member} is entered "
                f"{entered[member]} times (the start included) and left {left[member]} times",
                field="counts",
            )
    if history and len(history) == sum(counts) and triples[history[0][0]][0] is not initial:
        raise SnapshotError(
            f"the first transition must leave the initial state {initial}", field="history[0].from"
        )
    moves = [i for i, n in enumerate(counts) if n and triples[i][0] is not triples[i][2]]
    if previous is None:
        if moves:
            raise SnapshotError(
                "is null but the counts include transitions between states", field="previous"
            )
        return
    if previous is state or not any(
        triples[i][0] is previous and triples[i][2] is state for i in moves
    ):
        raise SnapshotError(
            f"{previous} is no state the counts show a transition from into {state}",
            field="previous",
        )
    for raw in reversed(history):
        source, _, target = triples[raw[0]]
        if source is not target:
            if source is not previous:
                raise SnapshotError(
                    f"is {previous} but the last move in the history came from {source}",
                    field="previous",
                )
            break

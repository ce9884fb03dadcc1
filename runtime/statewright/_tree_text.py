"""A tree's ``children`` field as text, each child's part kept from save to save until the child
changes, so that a save of a tree costs what the children that changed cost, not what all do.

A parent's head embeds the snapshot of each of its running children
(:mod:`statewright._tree_snapshot`), and most children of a tree took nothing since its last
save. So each child keeps its entry (``"<id>":{"invoke":..,"snapshot":{..},"state":..}``) as
the save that wrote it wrote it, and each parent its ``children`` field, with the invoke ids of
the children that changed since: a save encodes those again (and, in each, the grandchildren
that changed) and puts them in the field it kept; the others cost nothing. What a parent keeps is
the field of one mapping of children: a child started or ended replaces the parent's mapping
(never changed in place: :class:`~statewright._chart_state.InvokingChartState`), and a parent
with another mapping builds its field again, from its children's kept entries.

Whatever may change what a child's snapshot says calls :func:`changed` on it, which drops its
entry and marks it, and each machine above it, changed in its parent: an event it committed
(its configuration, data, timers, counters, history, idempotency keys, the children it started
or cancelled: ``BaseMachine._commit``), and, outside its events, a timer of its popped to fire
(taken or not), a message delivered to it or leaving it, and a child of its that finished
(:mod:`statewright._tree`). A restored tree has nothing kept yet. A change made from outside the
machine's own steps (writing to a child's ``data``, which :attr:`MachineInstance.data` says is
neither checked nor undone) is not seen until the child changes.

Every chart of a tree writes the save's time as its ``saved_at``, so what is kept is in *pieces*,
cut where those times go, which a save joins with its time (``time.join(pieces)``: one pass,
where finding marks in a text would be a scan of it). A field's pieces are its entries' run
together: an entry's first piece ends the field's piece before it and its last starts the next,
so an entry that changed is put in place by cutting its old first and last pieces off those.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

__all__ = ["changed", "children_pieces"]

#: An entry of the field in pieces and the earliest due timer of its child's tree, written from
#: its invoke id, invoke position, state's name and child (None: it ended): how
#: :func:`children_pieces` encodes a child that has no kept entry. (The JSON is
#: ``statewright._snapshot_text``'s: this module imports nothing, as every machine imports it.)
EntryPieces = Callable[[str, int, str, Any], tuple[list[str], "float | None"]]
_NEVER: Final = float("inf")


class KeptField:
    """What a parent keeps of its ``children`` field: the mapping it was written from; per
    entry, in the field's order (by invoke id), its pieces, its earliest due time (``inf``
    without one) and where its first piece is among the field's; the field's pieces (None: to
    run together again) and earliest due time; the invoke ids of the children that changed
    since (to put in again)."""

    __slots__ = ("changed", "children", "due", "dues", "entries", "pieces", "positions", "starts")

    def __init__(self, children: Mapping[str, Any]) -> None:
        self.children = children
        order = sorted(children)
        self.positions = {invokeid: i for i, invokeid in enumerate(order)}
        self.entries: list[Sequence[str]] = [()] * len(order)
        self.dues = [_NEVER] * len(order)
        self.starts = [0] * len(order)
        self.pieces: list[str] | None = None
        self.due: float | None = None
        self.changed: set[str] = set(order)


def changed(machine: Any) -> None:
    """``machine``'s snapshot may say something else now: drop its kept entry, and mark it
    changed in its parent, its parent in its own, and so on up to the root.

    A machine without a kept entry has been marked so already, and the machines above it (or
    nothing above it kept it): a save keeps a child's entry before its parent's, and a change
    drops them child first. So the walk stops there, and a tree never saved pays one test."""
    parent = machine._parent
    while parent is not None and machine._kept_entry is not None:
        machine._kept_entry = None
        field = parent._kept_field
        if field is not None:
            field.changed.add(machine._invokeid)
        machine, parent = parent, parent._parent


def children_pieces(machine: Any, entry_pieces: EntryPieces) -> tuple[list[str], float | None]:
    """``machine``'s ``children`` field in pieces (the caller does not change them) and the
    earliest due timer of its children's trees; ``entry_pieces`` encodes a child that has no
    kept entry."""
    children = machine._chart.children
    field = machine._kept_field
    if field is None or field.children is not children:
        field = machine._kept_field = KeptField(children)
    elif not field.changed and field.pieces is not None:
        return field.pieces, field.due
    names = machine._engine.names
    for invokeid in field.changed:
        position = field.positions.get(invokeid)
        if position is None:  # a child of another mapping
            continue
        node, index, child = children[invokeid]
        entry, due = _entry(invokeid, index, names[node], child, entry_pieces)
        if field.pieces is not None and entry is not field.entries[position]:
            _put(field, position, entry)
        field.entries[position], field.dues[position] = entry, due
    if field.pieces is None:
        _run_together(field)
    field.changed = set()  # only now: a save that failed half-way leaves them to put in
    due = min(field.dues, default=_NEVER)
    field.due = None if due == _NEVER else due
    assert field.pieces is not None  # (run together above)
    return field.pieces, field.due


def _entry(
    invokeid: str, index: int, state: str, child: Any, entry_pieces: EntryPieces
) -> tuple[Sequence[str], float]:
    """An entry in pieces and its earliest due time: a child's kept on it until it changes."""
    kept: tuple[Sequence[str], float] | None = None if child is None else child._kept_entry
    if kept is None:
        pieces, due = entry_pieces(invokeid, index, state, child)
        kept = (pieces, _NEVER if due is None else due)
        if child is not None:
            child._kept_entry = kept
    return kept


def _put(field: KeptField, position: int, entry: Sequence[str]) -> None:
    """Put ``entry`` in the field's pieces in place of the one at ``position``, when it has as
    many pieces (more than one: a running child's); else they are run together again."""
    old = field.entries[position]
    count = len(old)
    pieces = field.pieces
    if pieces is None or len(entry) != count or count < 2:
        field.pieces = None
        return
    first = field.starts[position]
    last = first + count - 1
    pieces[first] = pieces[first][: len(pieces[first]) - len(old[0])] + entry[0]
    pieces[first + 1 : last] = entry[1:-1]
    pieces[last] = entry[-1] + pieces[last][len(old[-1]) :]


def _run_together(field: KeptField) -> None:
    """The field's pieces from its entries': ``{``, the entries separated by commas, ``}``."""
    pieces: list[str] = []
    run = ["{"]  # the text up to the next cut
    for position, entry in enumerate(field.entries):
        if position:
            run.append(",")
        run.append(entry[0])
        field.starts[position] = len(pieces)
        if len(entry) > 1:
            pieces.append("".join(run))
            pieces += entry[1:-1]
            run = [entry[-1]]
    run.append("}")
    pieces.append("".join(run))
    field.pieces = pieces

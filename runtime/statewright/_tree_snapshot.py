"""A tree of machines as one snapshot: the parent's embeds its running children's, written,
checked and installed.

A parent whose states invoked children writes ``"children"`` (a machine without any writes
exactly what it wrote before: no key)::

    "children": {"worker": {"state": "running", "invoke": 0, "snapshot": {...}}}

one entry per invoke of an active state, by invoke id: the state and the invoke's position in
it, and the child's own snapshot (its context left out: it is its parent's), or ``null`` once
the child finished or failed to start (the invoke is the state's until the state is left).
Embedded, not linked: the tree is one row of a store, saved by one compare-and-swap, so no crash
leaves a parent waiting for a child that was not saved, or a child nobody runs. A child's
snapshot keeps its newest ``MachineOptions.child_history_limit`` history records. (A save to a
built-in store writes this field as text, each child's kept from save to save until it changes:
:mod:`statewright._tree_text`.)

Restoring checks the tree as the decoder checks one machine; the first problem is a
:class:`~statewright.SnapshotError` naming its field: each entry's state is active and has that
invoke, a fixed id is the spec's and a made-up one ``<state>.<16 hex digits>``, every active
state's invokes have their entry, a child's snapshot restores as its class's (its fields named
below ``children.<id>.snapshot``) and has not finished; a message from a child names one of the
entries, and only a child holds a message from its parent or for it. The children are then
rebuilt from their snapshots: no entry action runs and nothing is invoked again.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from statewright._chart_send import PARENT
from statewright._chart_state import Child, Message
from statewright._errors import SnapshotError

if TYPE_CHECKING:
    from statewright._chart_tables import ChartTables
    from statewright._options import MachineOptions
    from statewright._snapshot_decode import Decoded

__all__ = ["ENTRY_KEYS", "decode_tree", "encode_children", "install_children"]

ENTRY_KEYS: Final = frozenset({"state", "invoke", "snapshot"})
#: A checked child: ``(invoke id, state, invoke index, class, its decoded snapshot or None)``.
Decoded_child = tuple[str, int, int, Any, "Decoded | None"]


def encode_children(machine: Any, saved_at: float, head: bool = False) -> dict[str, Any]:
    """The ``children`` of ``machine``'s snapshot (each child's taken at ``saved_at``); for a
    store's ``head`` (which the store copies as it checks it), each child's history records
    as built at the last save when the child took no event since."""
    names = machine._engine.names
    children: dict[str, Any] = {}
    for invokeid, (node, index, child) in sorted(
        machine._chart.children.items(), key=lambda item: item[1][:2]
    ):
        snapshot = None
        if child is not None:
            history = _history(child) if head else _newest(child)
            snapshot = child._build_snapshot(history, saved_at, head)
        children[invokeid] = {"state": names[node], "invoke": index, "snapshot": snapshot}
    return children


def _newest(child: Any) -> list[dict[str, Any]]:
    """``child``'s newest history records as JSON, at most ``child_history_limit``."""
    after = max(0, child.total_transitions - child._options.child_history_limit)
    records: list[dict[str, Any]] = child._history_json(after)
    return records


def _history(child: Any) -> list[dict[str, Any]]:
    """:func:`_newest`, kept on the child until it takes an event: the records are most of a
    child's snapshot, and most children of a tree took no event since its last save."""
    total = child.total_transitions
    cached = child._saved_history
    if cached is None or cached[0] != total:
        cached = child._saved_history = (total, _newest(child))
    records: list[dict[str, Any]] = cached[1]
    return records


def decode_tree(
    cls: Any, decoded: Decoded, value: Any, options: MachineOptions, as_child: bool, own: bool
) -> list[Decoded_child]:
    """The checked children of a statechart's ``decoded`` snapshot (``value``: its
    ``children``, None without), and its messages checked against them; ``as_child`` when the
    snapshot is a child's (embedded in its parent's); ``own`` when it is the runtime's own
    (``PersistentMachine._restore``), as the children's are then."""
    engine = cls._classdata()[1]
    chart = decoded.chart[0]
    found = _entries(cls, engine, chart.active, {} if value is None else value, options, own)
    ids = {invokeid for invokeid, *_ in found}
    for i, timer in enumerate(chart.timers.values()):
        if type(timer) is Message:
            _check_message(timer, ids, as_child, f"chart.timers[{i}]")
    return found


def _check_message(message: Message, ids: set[str], as_child: bool, field: str) -> None:
    target = message.target
    if target is None and message.invokeid is None and not as_child:
        raise SnapshotError("is a message from a parent, but this machine has none", field=field)
    if target is None and message.invokeid is not None and message.invokeid not in ids:
        reason = f"is a message from child {message.invokeid!r:.60}, which is not among children"
        raise SnapshotError(reason, field=field)
    if target == PARENT and not as_child:
        raise SnapshotError("is a message for a parent, but this machine has none", field=field)
    if target is not None and target != PARENT and target[2:] not in ids:
        reason = f"is a message for {target!r:.60}, which is not among children"
        raise SnapshotError(reason, field=field)


def _entries(
    cls: Any, engine: ChartTables, active: set[int], value: Any, options: MachineOptions, own: bool
) -> list[Decoded_child]:
    if type(value) is not dict:
        raise SnapshotError("expected an object of invoke ids", field="children")
    found: list[Decoded_child] = []
    taken: set[tuple[int, int]] = set()
    for invokeid, entry in value.items():
        field = f"children.{invokeid}"
        if type(entry) is not dict or entry.keys() != ENTRY_KEYS:
            raise SnapshotError(f"expected the keys {', '.join(sorted(ENTRY_KEYS))}", field=field)
        node = engine.node_by_name.get(entry["state"]) if type(entry["state"]) is str else None
        if node is None or node not in engine.invokers:
            reason = f"{entry['state']!r:.60} is no state of {cls.spec.name} that invokes"
            raise SnapshotError(reason, field=f"{field}.state")
        if node not in active:
            reason = f"{engine.names[node]} is not active: its children were cancelled"
            raise SnapshotError(reason, field=f"{field}.state")
        invokes = engine.nodes[node].invokes
        index = entry["invoke"]
        if type(index) is not int or not 0 <= index < len(invokes) or (node, index) in taken:
            reason = f"expected the position of an invoke of {engine.names[node]} not used before"
            raise SnapshotError(reason, field=f"{field}.invoke")
        taken.add((node, index))
        _check_id(invokeid, invokes[index].id, engine.names[node], field)
        child_cls = _child_class(cls, invokes[index], field)
        found.append(
            (invokeid, node, index, child_cls, _child(child_cls, entry, options, field, own))
        )
    for node in sorted(active & engine.invokers):
        for index in range(len(engine.nodes[node].invokes)):
            if (node, index) not in taken:
                reason = (
                    f"{engine.names[node]} is active but its invoke {index} has no entry (a "
                    "running child, or null)"
                )
                raise SnapshotError(reason, field="children")
    return found


def _check_id(invokeid: str, fixed: str, state: str, field: str) -> None:
    if fixed and invokeid != fixed:
        raise SnapshotError(f"the invoke's id is {fixed!r}", field=field)
    if not fixed and re.fullmatch(rf"{re.escape(state)}\.[0-9a-f]{{16}}", invokeid) is None:
        raise SnapshotError(f"expected a made-up id {state}.<16 hex digits>", field=field)


def _child_class(cls: Any, invoke: Any, field: str) -> Any:
    """The class a child of ``cls`` is restored as (its flavour's)."""
    from statewright._tree import child_class

    try:
        return child_class(cls, invoke)
    except Exception as error:  # the child's module cannot be imported, or is no such class
        raise SnapshotError(f"cannot restore the child: {error}", field=field) from error


def _child(cls: Any, entry: dict[str, Any], options: MachineOptions, field: str, own: bool) -> Any:
    """The child's decoded snapshot (None for a child that ended), its errors named below
    ``field``."""
    snapshot = entry["snapshot"]
    if snapshot is None:
        return None
    field = f"{field}.snapshot"
    if type(snapshot) is not dict:
        raise SnapshotError("expected a child's snapshot or null", field=field)
    try:
        decoded = cls._decode(snapshot, options, True, own)
    except SnapshotError as error:
        inner = f"{field}.{error.field}" if error.field else field
        raise SnapshotError(error.reason, field=inner) from None
    if decoded.chart[0].finished:
        reason = "is finished: a child ends when it finishes (its parent got its done.invoke)"
        raise SnapshotError(reason, field=f"{field}.chart.finished")
    return decoded


def install_children(machine: Any, children: list[Decoded_child]) -> None:
    """Rebuild ``machine``'s children from their checked snapshots (no entry action runs)."""
    from statewright._tree import child_parts

    entries: dict[str, Child] = {}
    for invokeid, node, index, cls, decoded in children:
        child = None
        if decoded is not None:
            invoke = machine._engine.nodes[node].invokes[index]
            context, handlers, options = child_parts(machine, invoke, decoded.instance_id)
            child = cls.__new__(cls)  # as restore builds a machine
            child._parent, child._invokeid = machine, invokeid
            child._construct(context, handlers, options, decoded)
        entries[invokeid] = (node, index, child)
    machine._chart.children = entries

"""A statechart's part of a snapshot (the ``chart`` field), written and checked.

What a flat snapshot holds is not enough to continue a chart: it also needs every active state
(not just the first leaf), what each history state remembers, queued internal events, whether
the machine finished, and the pending timers with their absolute due times. Restoring installs
all of it without running any entry action. Checking follows the strict decoder's rules
(:mod:`statewright._snapshot_decode`): the first problem found is a :class:`SnapshotError`
naming its field (``chart.active[2]``, ``chart.timers[0].delay``), and only what a run of this
chart can produce is accepted:

* ``active`` is a legal configuration: every active state's parent active, one child of an
  active compound state, every region of an active parallel state, no history pseudo-state;
* each history state remembers what leaving its parent records: a deep history the leaves of
  one legal configuration below its parent, a shallow one the parent's active children (one
  child of a compound parent, every region of a parallel one), never nothing;
* the internal queue is empty (it is drained within the macrostep that raised the events);
* each pending timer is one the spec starts under that id: an ``after`` timer only while its
  state is active and with the spec's delay (unless a delay handler computes it) and event; a
  send step's timer with the event and delay of a send step of that id; every delay from 0 to
  ten years (:data:`~statewright._chart_spec.MAX_DELAY`), due times epochs
  (:mod:`statewright._timer_snapshot`, with what a data model adds to timers). Numbers are kept
  as they were given (an integer stays an integer);
* with late binding (a data model), ``initialized``: the states whose own data was
  initialized, every active one among them; and ``given`` when fields of states not entered
  yet were given at construction (their initializers will not run: ``Machine(..., data=)``),
  each such a field once. The data itself is the snapshot's ``data`` field
  (:mod:`statewright._data_values`).

Timers are then adjusted by their restore policy: ``fire`` keeps the absolute due time (an
overdue timer fires at the next :meth:`fire_due`), ``resume`` keeps the time that was left when
the snapshot was taken (never more than the delay), ``restart`` starts the full delay again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from statewright._chart_spec import (
    COMPOUND,
    DEEP_HISTORY,
    FINAL,
    PARALLEL,
    SHALLOW_HISTORY,
)
from statewright._chart_state import ChartState, InvokingChartState, ModelChartState, Queued
from statewright._chart_tables import ROOT, ChartTables
from statewright._clock import is_epoch
from statewright._data_state import DataState
from statewright._errors import SnapshotError
from statewright._timer_snapshot import decode_timers, event_member, timer_json

if TYPE_CHECKING:
    from statewright._table import Table

__all__ = ["decode_chart", "encode_chart", "late_fields"]

KEYS: Final = frozenset({"active", "memory", "queue", "finished", "timers", "saved_at"})
#: A chart with late binding has ``initialized`` too.
LATE_KEYS: Final = KEYS | {"initialized"}
_HISTORY: Final = (SHALLOW_HISTORY, DEEP_HISTORY)


def encode_chart(engine: ChartTables, state: ChartState, saved_at: float) -> dict[str, Any]:
    names = engine.names
    encoded = {
        "active": [names[node] for node in sorted(state.active)],
        "memory": {
            names[history]: [names[node] for node in remembered]
            for history, remembered in sorted(state.memory.items())
        },
        "queue": [[str(event), dict(payload)] for event, payload, _ in state.queue],
        "finished": state.finished,
        "timers": [
            timer_json(timer_id, pending)
            for timer_id, pending in state.timers.items()  # started first, first: ties fire so
        ],
        "saved_at": saved_at,
    }
    if engine.late_nodes:
        encoded.update(late_fields(engine, state))
    return encoded


def late_fields(engine: ChartTables, state: ChartState) -> dict[str, list[str]]:
    """With late binding, the states whose data was initialized and the fields given at
    construction of states not entered yet (when there are)."""
    model = state.model
    done = sorted(model.initialized) if model is not None else []
    late = {"initialized": [engine.names[node] for node in done]}
    if model is not None and model.given:  # given fields of states not entered yet
        late["given"] = sorted(model.given)
    return late


def decode_chart(
    value: Any,
    engine: ChartTables,
    table: Table,
    state: Any,
    data: Any = None,
    own: bool = False,
) -> tuple[ChartState, float]:
    """The checked chart state and when it was saved; ``state`` (the snapshot's) must be its
    first active leaf; ``data`` is the checked data object of a machine with a data model.
    ``own``: the runtime's own snapshot under this spec (statewright._snapshot_own), whose
    parts a run produced: converted, not checked again (:func:`_converted`)."""
    if own:
        return _converted(value, engine, table, data)
    if type(value) is not dict:
        raise SnapshotError("expected an object", field="chart")
    keys = LATE_KEYS if engine.late_nodes else KEYS
    missing = sorted(keys - value.keys()) or sorted(value.keys() - keys - _optional(engine))
    if missing:
        reason = "is missing" if keys - value.keys() else "is not a chart field"
        raise SnapshotError(reason, field=f"chart.{missing[0]}")
    active = _nodes(engine, value["active"], "chart.active")
    finished = value["finished"]
    saved_at = value["saved_at"]
    _check_parts(engine, active, state, finished, saved_at)
    parts = (
        active,
        _memory(engine, value["memory"]),
        _queue(table, value["queue"]),
        finished,
        decode_timers(engine, table, value["timers"], set(active)),
    )
    return _chart_state(engine, value, data, parts), float(saved_at)


def _converted(
    value: dict[str, Any], engine: ChartTables, table: Table, data: Any
) -> tuple[ChartState, float]:
    """The chart state of the runtime's own snapshot under this spec: its names looked up, not
    checked (no exact key set, configuration, history memory or timer against the spec: a run
    of this chart produced them). What does not convert raises (a ``LookupError``,
    ``TypeError``, ``ValueError`` or ``AttributeError``), and the strict decoder reads the
    snapshot instead (statewright._snapshot_own)."""
    node = engine.node_by_name.__getitem__
    names, memory = value["active"], value["memory"]
    if type(names) is not list or type(memory) is not dict:
        raise TypeError("active states are an array, a history memory an object")
    active = list(map(node, names))
    if memory:
        converted = {}
        for name, remembered in memory.items():
            if type(remembered) is not list:
                raise TypeError("what a history state remembers is an array")
            converted[node(name)] = tuple(sorted(map(node, remembered)))
        memory = converted
    if value["queue"] != []:  # the strict decoder names what is wrong with it
        raise ValueError("an internal queue is empty between macrosteps")
    finished = value["finished"]
    if type(finished) is not bool:
        raise TypeError("finished is true or false")
    timers = decode_timers(engine, table, value["timers"], active, True)
    queue: list[Queued] = []
    parts = (active, memory, queue, finished, timers)
    return _chart_state(engine, value, data, parts), float(value["saved_at"])


def _chart_state(
    engine: ChartTables,
    value: dict[str, Any],
    data: Any,
    parts: tuple[list[int], dict[int, tuple[int, ...]], list[Queued], bool, dict[str, Any]],
) -> ChartState:
    """The chart state of the checked (or converted) ``parts``; with a data model, with its
    data object ``data`` and what late binding initialized (checked)."""
    if not engine.expressive:
        return ChartState(*parts)
    initialized = _initialized(engine, value, set(parts[0])) if engine.late_nodes else ()
    given = _given(engine, value.get("given", []), initialized)
    model = DataState(data, initialized=frozenset(initialized), given=given)
    kind = InvokingChartState if engine.invoking else ModelChartState  # children: _tree_snapshot
    return kind(model, *parts)


def _check_parts(
    engine: ChartTables, active: list[int], state: Any, finished: Any, saved_at: Any
) -> None:
    """The configuration is legal, ``state`` its first leaf, ``finished`` says whether a
    top-level final state is active, ``saved_at`` is an epoch."""
    _check_configuration(engine, set(active), "chart.active")
    leaves = sorted(node for node in active if engine.atomic[node])
    if not leaves or engine.members[leaves[0]] is not state:
        raise SnapshotError(
            f"is {state} but the chart's first active leaf is "
            f"{engine.names[leaves[0]] if leaves else 'none'}",
            field="state",
        )
    if type(finished) is not bool:
        raise SnapshotError("expected true or false", field="chart.finished")
    top_final = any(engine.parents[n] == -1 and engine.kinds[n] == FINAL for n in active)
    if finished != top_final:
        raise SnapshotError(
            "must be true exactly when a top-level final state is active", field="chart.finished"
        )
    if not is_epoch(saved_at):
        raise SnapshotError("expected seconds since the epoch", field="chart.saved_at")


def _optional(engine: ChartTables) -> frozenset[str]:
    """Keys a chart's part may leave out: with late binding, ``given``."""
    return _GIVEN if engine.late_nodes else frozenset()


_GIVEN: Final = frozenset({"given"})


def _given(engine: ChartTables, value: Any, initialized: Sequence[int]) -> frozenset[str]:
    """The fields given at construction whose states (bound late) have not been entered:
    their initializers are still to be skipped."""
    if type(value) is not list or not all(type(name) is str for name in value):
        raise SnapshotError("expected an array of data field names", field="chart.given")
    waiting = frozenset().union(
        *(fields for node, fields in engine.late_fields.items() if node not in initialized)
    )
    for i, name in enumerate(value):
        if name not in waiting:
            reason = f"{name!r:.60} is not a data field of a state bound late and not entered yet"
            raise SnapshotError(reason, field=f"chart.given[{i}]")
        if name in value[:i]:
            raise SnapshotError(f"{name!r:.60} names the field twice", field=f"chart.given[{i}]")
    return frozenset(value)


def _initialized(engine: ChartTables, value: dict[str, Any], active: set[int]) -> list[int]:
    """The states late binding initialized: states with their own data, every active one."""
    nodes = _nodes(engine, value["initialized"], "chart.initialized")
    for i, node in enumerate(nodes):
        if node not in engine.late_nodes:
            raise SnapshotError(
                f"{engine.names[node]} has no data of its own to initialize",
                field=f"chart.initialized[{i}]",
            )
    for node in sorted(active & engine.late_nodes):
        if node not in nodes:
            raise SnapshotError(
                f"misses {engine.names[node]}, which is active: entering it initialized its data",
                field="chart.initialized",
            )
    return nodes


def _nodes(engine: ChartTables, value: Any, field: str) -> list[int]:
    if type(value) is not list:
        raise SnapshotError("expected an array of state names", field=field)
    nodes: list[int] = []
    for i, name in enumerate(value):
        node = engine.node_by_name.get(name) if type(name) is str else None
        if node is None or node in nodes:
            reason = "names the state twice" if node in nodes else "is not a state of the chart"
            raise SnapshotError(f"{name!r:.60} {reason}", field=f"{field}[{i}]")
        nodes.append(node)
    return nodes


def _check_configuration(
    engine: ChartTables, active: set[int], field: str, root: int = ROOT
) -> None:
    """A legal configuration below ``root`` (the whole chart: :data:`ROOT`): ancestors of
    active states active, one child of an active compound state (and of a compound ``root``),
    every region of an active parallel state (and of a parallel ``root``), no history
    pseudo-state."""
    names = engine.names
    _check_children(engine, root, [node for node in active if engine.parents[node] == root], field)
    for node in sorted(active):
        kind, name = engine.kinds[node], names[node]
        parent = engine.parents[node]
        if kind in _HISTORY:
            raise SnapshotError(f"{name} is a history pseudo-state", field=field)
        if parent != root and parent not in active:
            raise SnapshotError(f"{name} is active but its parent is not", field=field)
        children = [child for child in engine.child_states[node] if child in active]
        if kind == COMPOUND and len(children) != 1:
            raise SnapshotError(f"compound {name} has {len(children)} active children", field=field)
        if kind == PARALLEL and len(children) != len(engine.child_states[node]):
            raise SnapshotError(f"parallel {name} has an inactive region", field=field)


def _check_children(engine: ChartTables, parent: int, children: list[int], field: str) -> None:
    """The active children of ``parent`` (the root: :data:`ROOT`): one, or every region of a
    parallel parent; no history pseudo-state among them."""
    for child in children:
        if engine.kinds[child] in _HISTORY:
            raise SnapshotError(f"{engine.names[child]} is a history pseudo-state", field=field)
    if parent == ROOT:
        if len(children) != 1:
            raise SnapshotError(
                f"has {len(children)} active top-level states, not one", field=field
            )
    elif engine.kinds[parent] == PARALLEL:
        if len(children) != len(engine.child_states[parent]):
            raise SnapshotError(
                f"has {len(children)} of the {len(engine.child_states[parent])} regions of "
                f"parallel {engine.names[parent]}, not all",
                field=field,
            )
    elif len(children) != 1:
        raise SnapshotError(
            f"has {len(children)} children of {engine.names[parent]}, not one", field=field
        )


def _memory(engine: ChartTables, value: Any) -> dict[int, tuple[int, ...]]:
    """What each history state remembers: what leaving its parent records (see the module)."""
    if type(value) is not dict:
        raise SnapshotError("expected an object", field="chart.memory")
    memory: dict[int, tuple[int, ...]] = {}
    for name, remembered in value.items():
        field = f"chart.memory.{name}"
        history = engine.node_by_name.get(name)
        if history is None or engine.kinds[history] not in _HISTORY:
            raise SnapshotError("is not a history state of the chart", field=field)
        nodes = _nodes(engine, remembered, field)
        parent = engine.parents[history]
        deep = engine.kinds[history] == DEEP_HISTORY
        for node in nodes:
            inside = engine.is_descendant(node, parent) if deep else engine.parents[node] == parent
            if not inside or (deep and not engine.atomic[node]) or engine.kinds[node] in _HISTORY:
                raise SnapshotError(
                    f"{engine.names[node]} is not what this history state remembers", field=field
                )
        if deep:  # the leaves and their ancestors below the parent: one legal configuration
            below = set(nodes)
            for node in nodes:
                for ancestor in engine.ancestors[node]:
                    if ancestor == parent:
                        break
                    below.add(ancestor)
            _check_configuration(engine, below, field, parent)
        else:
            _check_children(engine, parent, nodes, field)
        memory[history] = tuple(sorted(nodes))
    return memory


def _queue(table: Table, value: Any) -> list[Queued]:
    """The internal queue: empty, as it is between macrosteps (entries are checked first, so
    that a malformed one is named as such)."""
    if type(value) is not list:
        raise SnapshotError("expected an array", field="chart.queue")
    for i, item in enumerate(value):
        field = f"chart.queue[{i}]"
        if type(item) is not list or len(item) != 2 or type(item[1]) is not dict:
            raise SnapshotError("expected [event, payload]", field=field)
        event_member(table, item[0], field)
    if value:
        raise SnapshotError(
            "is queued, but the internal queue is empty between macrosteps (the macrostep that "
            "raised an event processes it)",
            field="chart.queue[0]",
        )
    return []

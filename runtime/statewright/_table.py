"""Compile a :class:`MachineSpec` once per machine class into tables the hot path can walk.

The hot path must never look an enum member up by attribute (``State.X`` costs an ``EnumType``
``__getattr__`` call) and should hash as little as possible. So every state gets two dicts keyed
by event: ``rows`` (every alternative, for the general path) and ``fast_rows`` (only transitions
that run no user code). A fast entry already holds the canonical event member, the target
member, the target's fast row and the index of its statistics counter, so a trivial transition
is one dict lookup, one tuple unpack and a few attribute stores. (``StrEnum`` members hash like
their string value, so a plain string key finds the same entry.)

:class:`CompiledAlt` and :class:`Table` are immutable slotted classes like the spec values (see
:mod:`statewright._spec`), not dataclasses: machines name them, so this module is imported with
every generated module and must not import :mod:`dataclasses`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, cast

from statewright._frozen import FrozenValue
from statewright._spec import Alternative, MachineSpec, Previous

__all__ = ["UNPLANNED", "CompiledAlt", "Plan", "Table", "compile_spec", "internal_events"]

#: A trivial transition: ``(event, target, target_fast_row, counter_index, sets_previous)``;
#: or a rejection: ``(None, event, arguments of its InvalidTransition, -1, False)``, put in a
#: flat machine's fast row the first time the state rejects an event it has no transition for,
#: so that the next one is raised at once (a missing entry costs a ``KeyError``, as much as the
#: rejection itself).
Fast = tuple[Any, Any, Any, int, bool]
#: A statechart's fast row holds entries of its configurations' planned events (six items:
#: :mod:`statewright._chart_plans`), and this one for an event that runs SCXML's algorithm
#: where the machine is: its event, None, sends the event the general way at once (a missing
#: entry would cost a ``KeyError`` on every such event), and so does its target, None (no event
#: that finds an entry is None, so it is never taken for a rejection's). Every state's row in a
#: statechart's table holds it for every event.
UNPLANNED: Final[tuple[Any, ...]] = (None, None, {}, -1, False, None)


_set = object.__setattr__


class CompiledAlt(FrozenValue):
    """An :class:`Alternative` with its target resolved (``None`` means PREVIOUS)."""

    __match_args__ = ("target", "guard", "actions", "checkpoint")
    __slots__ = __match_args__

    target: Any
    guard: Callable[[Any, Any, Any], bool] | None
    actions: tuple[str, ...]
    checkpoint: bool

    def __init__(
        self,
        target: Any,
        guard: Callable[[Any, Any, Any], bool] | None,
        actions: tuple[str, ...],
        checkpoint: bool,
    ) -> None:
        _set(self, "target", target)
        _set(self, "guard", guard)
        _set(self, "actions", actions)
        _set(self, "checkpoint", checkpoint)


#: ``(event_member, alternatives)`` for one (state, event) pair.
Plan = tuple[Any, tuple[CompiledAlt, ...]]


class Table(FrozenValue):
    """Everything derived from one spec; shared by all instances of a machine class."""

    __match_args__ = (
        "spec",
        "rows",
        "fast_rows",
        "allowed",
        "counter_index",
        "triples",
        "events_by_value",
        "states_by_value",
        "internal",
    )
    __slots__ = __match_args__

    spec: MachineSpec[Any, Any]
    rows: dict[Any, dict[Any, Plan]]
    fast_rows: dict[Any, dict[Any, Fast]]
    #: Events accepted per state (guards not evaluated), internal ones left out; empty for
    #: final states.
    allowed: dict[Any, frozenset[Any]]
    #: ``(source, event, target)`` -> index into a machine's counter list.
    counter_index: dict[tuple[Any, Any, Any], int]
    #: A statechart's table keeps a list its machines extend as triples occur (they depend on
    #: history and regions); a flat machine's is complete and a tuple.
    triples: Sequence[tuple[Any, Any, Any]]
    #: Event string value (and member) -> member, for accepting plain strings.
    events_by_value: dict[str, Any]
    states_by_value: dict[str, Any]
    #: Events only the machine sends itself (see :func:`internal_events`).
    internal: frozenset[Any]

    def __init__(
        self,
        spec: MachineSpec[Any, Any],
        rows: dict[Any, dict[Any, Plan]],
        fast_rows: dict[Any, dict[Any, Fast]],
        allowed: dict[Any, frozenset[Any]],
        counter_index: dict[tuple[Any, Any, Any], int],
        triples: Sequence[tuple[Any, Any, Any]],
        events_by_value: dict[str, Any],
        states_by_value: dict[str, Any],
        internal: frozenset[Any] = frozenset(),
    ) -> None:
        _set(self, "spec", spec)
        _set(self, "rows", rows)
        _set(self, "fast_rows", fast_rows)
        _set(self, "allowed", allowed)
        _set(self, "counter_index", counter_index)
        _set(self, "triples", triples)
        _set(self, "events_by_value", events_by_value)
        _set(self, "states_by_value", states_by_value)
        _set(self, "internal", internal)

    def learn_triple(self, triple: tuple[Any, Any, Any]) -> int:
        """The counter index of a chart's ``(source, event, target)``, registered the first
        time the class meets it (a chart's triples depend on history and regions)."""
        triples = self.triples
        assert isinstance(triples, list)  # a chart's table keeps a growable list
        index = self.counter_index.setdefault(triple, len(triples))
        if index == len(triples):
            triples.append(triple)
        return index


def _compile_alt(alt: Alternative[Any]) -> CompiledAlt:
    target = None if isinstance(alt.target, Previous) else alt.target
    return CompiledAlt(target, alt.guard, tuple(alt.actions), alt.checkpoint)


def compile_spec(spec: MachineSpec[Any, Any]) -> Table:
    """Validate ``spec`` enough to fail early and build its :class:`Table`."""
    # Iterating an enum class: mypy cannot see through ``type[Any]``, so cast to what it is.
    states = list(cast("Iterable[Any]", spec.state_type))
    events = list(cast("Iterable[Any]", spec.event_type))
    if spec.initial not in states:
        raise ValueError(f"{spec.name}: initial state {spec.initial!r} is not a {spec.state_type}")
    triples: list[tuple[Any, Any, Any]] = []
    index: dict[tuple[Any, Any, Any], int] = {}

    def counter(triple: tuple[Any, Any, Any]) -> int:
        if triple not in index:
            index[triple] = len(triples)
            triples.append(triple)
        return index[triple]

    rows: dict[Any, dict[Any, Plan]] = {state: {} for state in states}
    fast_rows: dict[Any, dict[Any, Fast]] = {state: {} for state in states}
    allowed: dict[Any, frozenset[Any]] = {}
    for state in states:
        row = rows[state]
        by_event = {} if state in spec.final_states else spec.transitions.get(state, {})
        route = spec.error_routes.get(state)
        for event, alternatives in by_event.items():
            if event not in events:
                raise ValueError(f"{spec.name}: {event!r} is not a {spec.event_type}")
            alts = tuple(_compile_alt(a) for a in alternatives)
            if not alts:
                continue
            for alt in alts:
                targets = [alt.target] if alt.target is not None else states
                for target in targets:
                    if target is not state or alt.target is not None:
                        counter((state, event, target))
            if route is not None:
                counter((state, event, route.target))
            only = alts[0]
            if (
                len(alts) == 1
                and only.target is not None
                and only.guard is None
                and not only.actions
                and not only.checkpoint
                and not spec.exit_actions.get(state)
                and not spec.entry_actions.get(only.target)
            ):
                target = only.target
                counter_at = index[(state, event, target)]
                fast_rows[state][event] = (
                    event,
                    target,
                    fast_rows[target],
                    counter_at,
                    target is not state,
                )
            row[event] = (event, alts)
        allowed[state] = frozenset(row)
    internal = internal_events(spec)
    if spec.chart is not None:
        allowed = _chart_allowed(spec)
        unplanned = dict.fromkeys(events, UNPLANNED)
        fast_rows = {state: unplanned for state in states}  # never changed
    if internal:
        allowed = {state: events - internal for state, events in allowed.items()}
    return Table(
        spec=spec,
        rows=rows,
        fast_rows=fast_rows,
        allowed=allowed,
        counter_index=index,
        triples=triples if spec.chart is not None else tuple(triples),
        events_by_value={str(e.value): e for e in events},
        states_by_value={str(s.value): s for s in states},
        internal=internal,
    )


def internal_events(spec: MachineSpec[Any, Any]) -> frozenset[Any]:
    """The events only the machine sends itself: the spec's list, and what its chart implies
    (the events its timers send, its ``done.state.*`` and ``error.*`` events), so that a spec
    written by hand, or generated before the list existed (runtime API 2), keeps them out of
    reach of untrusted input too."""
    chart = spec.chart
    if chart is None:
        return frozenset(spec.internal_events)
    events = cast("Iterable[Any]", spec.event_type)
    return frozenset(
        {
            *spec.internal_events,
            *(timer.event for node in chart.nodes for timer in node.timers),
            *(node.done for node in chart.nodes if node.done is not None),
            *(event for event in events if _reserved(str(event.value))),
        }
    )


def _reserved(value: str) -> bool:
    """SCXML's names for the events a chart sends itself: ``done.state.<id>``, ``error.*``."""
    return value == "error" or value.startswith(("error.", "done.state."))


def _chart_allowed(spec: MachineSpec[Any, Any]) -> dict[Any, frozenset[Any]]:
    """Each leaf state's events in a statechart: its transitions' and its ancestors'."""
    chart = spec.chart
    assert chart is not None
    # Not ERROR_ROUTE (no event equals it); internal events are left out by the caller.
    members = set(cast("Iterable[Any]", spec.event_type))
    events: list[set[Any]] = [set() for _ in chart.nodes]
    for transition in chart.transitions:
        events[transition.source] |= transition.events & members
    allowed: dict[Any, frozenset[Any]] = {}
    for index, node in enumerate(chart.nodes):
        if node.member is None:
            continue
        found: set[Any] = set()
        at = index
        while at != -1:
            found |= events[at]
            at = chart.nodes[at].parent
        allowed[node.member] = frozenset(found)
    return allowed

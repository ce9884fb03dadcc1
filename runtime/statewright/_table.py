"""Compile a :class:`MachineSpec` once per machine class into tables the hot path can walk.

The hot path must never look an enum member up by attribute (``State.X`` costs an ``EnumType``
``__getattr__`` call) and should hash as little as possible. So every state gets a *row*: a dict
from event to a :data:`Plan`; a plan already holds the target member, the target's row and the
index of its statistics counter, so an unguarded, action-free transition is a handful of tuple
unpacks and attribute stores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

from statewright._spec import Alternative, MachineSpec, Previous

__all__ = ["CompiledAlt", "Plan", "Table", "compile_spec"]

#: Fast plan for trivial transitions: ``(target, target_row, counter_index, sets_previous)``.
Fast = tuple[Any, "dict[Any, Plan]", int, bool]


@dataclass(frozen=True, slots=True)
class CompiledAlt:
    """An :class:`Alternative` with its target resolved (``None`` means PREVIOUS)."""

    target: Any
    guard: Callable[[Any, Any, Any], bool] | None
    actions: tuple[str, ...]
    checkpoint: bool


#: ``(event_member, fast_or_None, alternatives)`` for one (state, event) pair.
Plan = tuple[Any, "Fast | None", tuple[CompiledAlt, ...]]


@dataclass(frozen=True, slots=True)
class Table:
    """Everything derived from one spec; shared by all instances of a machine class."""

    spec: MachineSpec[Any, Any]
    rows: dict[Any, dict[Any, Plan]]
    #: Events accepted per state (guards not evaluated); empty for final states.
    allowed: dict[Any, frozenset[Any]]
    #: ``(source, event, target)`` -> index into a machine's counter list.
    counter_index: dict[tuple[Any, Any, Any], int]
    triples: tuple[tuple[Any, Any, Any], ...]
    #: Event string value (and member) -> member, for accepting plain strings.
    events_by_value: dict[str, Any]
    states_by_value: dict[str, Any]


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
            fast: Fast | None = None
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
                fast = (target, rows[target], index[(state, event, target)], target is not state)
            row[event] = (event, fast, alts)
        allowed[state] = frozenset(row)
    return Table(
        spec=spec,
        rows=rows,
        allowed=allowed,
        counter_index=index,
        triples=tuple(triples),
        events_by_value={str(e.value): e for e in events},
        states_by_value={str(s.value): s for s in states},
    )

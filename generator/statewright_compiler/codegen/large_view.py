"""The shape of a large machine's module (above ``render.MATCH_LIMIT``), which keeps mypy's time
near its floor (docs/performance.md, "mypy at scale"): ``TRANSITIONS`` built at import from a
text of member names and small tables, and ``_S`` constants only for the states other tables
name, each built from its value (an ``Enum.X`` reference costs mypy time linear in the enum's
size). A mixin of the module view (:mod:`render`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from statewright_compiler.model import PREVIOUS_TARGET, Machine, Transition
from statewright_compiler.spec.literals import data_literal, string_literal, tuple_literal

__all__ = ["LargeMachineView", "Member", "TransitionData"]

#: What a line of a large machine's ``_TRANSITION_LINES`` may contain.
_PLAIN_TEXT: Final = re.compile(r"[A-Za-z0-9_<> ]*")


@dataclass(frozen=True)
class Member:
    name: str
    value: str
    docstring: str | None


@dataclass(frozen=True)
class TransitionData:
    """``TRANSITIONS`` of a large machine as data (see ``MATCH_LIMIT``), as literals.

    ``lines``: a string, one line per alternative, ``STATE EVENT TARGET`` (member names, which
    are identifiers, or ``<previous>``), grouped by state and event, alternatives in order. The
    others say what alternatives do besides moving, naming each by ``(state, event, position)``:
    each guard function and each tuple of actions with the alternatives that have it (grouped
    so that mypy infers lists of plain tuples, not a dict of callables), and the checkpoints.
    """

    lines: str
    #: ``_ALTERNATIVE_GUARDS`` and ``_ALTERNATIVE_ACTIONS``: annotation, ``=`` and value.
    guards: str
    actions: str
    checkpoints: str
    #: The dict ``_transition_table`` reads targets from: member names, and PREVIOUS if used.
    target_lookup: str


class LargeMachineView:
    """Needs the module view's ``machine`` and ``guard_functions``."""

    machine: Machine
    match_dispatch: bool
    guard_functions: Mapping[str, str]

    def state_constants(self) -> list[Member]:
        """The ``_S`` constants of a large machine (none below ``MATCH_LIMIT``): the states that
        tables other than ``TRANSITIONS`` name (final states, tags, entry and exit actions, error
        routes); a chart's ``CHART`` names every leaf."""
        machine = self.machine
        if self.match_dispatch:
            return []
        if machine.chart:
            named = {state.name for state in machine.states if state.is_leaf}
        else:
            named = {state.name for state in machine.states if state.is_final}
            named.update(name for _, names in machine.tags for name in names)
            named.update(s.name for s in machine.states if s.entry_actions or s.exit_actions)
            for handler in machine.error_handlers:
                named.update((*handler.sources, handler.target))
        return [
            Member(state.member, string_literal(state.value), None)
            for state in machine.states
            if state.name in named
        ]

    @cached_property
    def transition_data(self) -> TransitionData:
        """``TRANSITIONS`` as the plain data a large machine builds it from at import."""
        machine = self.machine
        state_names = {state.name: state.member for state in machine.states}
        state_names[PREVIOUS_TARGET] = PREVIOUS_TARGET
        event_names = {event.name: event.member for event in machine.events}
        # Grouped by state, then event, in order of first appearance: the order of TRANSITIONS.
        grouped: dict[str, dict[str, list[Transition]]] = {}
        for transition in machine.transitions:
            row = grouped.setdefault(transition.source, {})
            row.setdefault(transition.event, []).append(transition)
        lines: list[str] = []
        guards: dict[str, list[str]] = {}
        actions: dict[str, list[str]] = {}
        checkpoints: list[str] = []
        for source, row in grouped.items():
            for event, found in row.items():
                for position, transition in enumerate(found):
                    names = (state_names[source], event_names[event])
                    lines.append(" ".join((*names, state_names[transition.target])))
                    key = data_literal((*names, position))
                    if transition.guard_text:
                        guard = self.guard_functions[transition.guard_text]
                        guards.setdefault(guard, []).append(key)
                    if transition.actions:
                        actions.setdefault(data_literal(transition.actions), []).append(key)
                    if transition.checkpoint:
                        checkpoints.append(key)
        lookup = ["**states"]
        if any(transition.returns_to_previous for transition in machine.transitions):
            lookup.append(f"{string_literal(PREVIOUS_TARGET)}: PREVIOUS")
        return TransitionData(
            lines=_lines_literal(lines),
            guards=_grouped_literal(guards, "GuardFunction"),
            actions=_grouped_literal(actions, "tuple[str, ...]"),
            checkpoints=_frozenset_literal(checkpoints),
            target_lookup=f"{{{', '.join(lookup)}}}",
        )


def _lines_literal(lines: list[str]) -> str:
    """A multi-line string literal, one item of ``lines`` per line after an empty first one,
    for text that needs no escaping (identifiers, ``<previous>``, spaces); ``""`` for none."""
    assert all(_PLAIN_TEXT.fullmatch(line) for line in lines)
    return '"""\n' + "".join(f"{line}\n" for line in lines) + '"""' if lines else '""'


def _grouped_literal(groups: dict[str, list[str]], value_type: str) -> str:
    """``((value, [key, ...]), ...)`` from expressions already rendered. Without a declared type,
    which would make mypy check each key against it (slower), unless empty: mypy needs the type
    of an empty tuple's items (``value_type``) to type the loop over it."""
    if not groups:
        return f"Final[tuple[tuple[{value_type}, list[tuple[str, str, int]]], ...]] = ()"
    return "Final = " + tuple_literal(
        f"({value}, [{', '.join(keys)}])" for value, keys in groups.items()
    )


def _frozenset_literal(items: list[str]) -> str:
    """``frozenset({a, b})`` or ``frozenset()`` from expressions already rendered."""
    return f"frozenset({{{', '.join(items)}}})" if items else "frozenset()"

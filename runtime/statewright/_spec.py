"""The data a generated module hands to the runtime: one immutable description per machine.

Generated modules build a :class:`MachineSpec` from tables the compiler computed; the runtime reads
only this, never the TOML spec and never the compiler.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from statewright._compat import StrEnum

__all__ = ["PREVIOUS", "Alternative", "ErrorRoute", "GuardFunction", "MachineSpec", "Previous"]

StateT = TypeVar("StateT", bound=StrEnum)
EventT = TypeVar("EventT", bound=StrEnum)

#: A compiled guard expression: ``guard(handlers, context, payload) -> bool``.
GuardFunction = Callable[[Any, Any, Any], bool]


class Previous(enum.Enum):
    """Target marker for "back to the state we were in before entering the source state"."""

    STATE = "<previous>"

    def __repr__(self) -> str:
        return "PREVIOUS"


PREVIOUS: Final = Previous.STATE


@dataclass(frozen=True, slots=True)
class Alternative(Generic[StateT]):
    """One guarded alternative for a (state, event) pair; alternatives are tried in spec order."""

    target: StateT | Previous
    guard: GuardFunction | None = None
    actions: tuple[str, ...] = ()
    checkpoint: bool = False


@dataclass(frozen=True, slots=True)
class ErrorRoute(Generic[StateT]):
    """Where the machine goes when an action raises while leaving a state (instead of staying)."""

    target: StateT
    actions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MachineSpec(Generic[StateT, EventT]):
    """Everything the runtime needs to run one machine, computed by the compiler."""

    name: str
    version: int
    spec_hash: str
    state_type: type[StateT]
    event_type: type[EventT]
    initial: StateT
    final_states: frozenset[StateT]
    #: ``transitions[state][event]`` lists the alternatives in spec order; missing means rejected.
    transitions: Mapping[StateT, Mapping[EventT, tuple[Alternative[StateT], ...]]]
    entry_actions: Mapping[StateT, tuple[str, ...]]
    exit_actions: Mapping[StateT, tuple[str, ...]]
    error_routes: Mapping[StateT, ErrorRoute[StateT]]
    #: Named groups of states (the spec's tags).
    tags: Mapping[str, frozenset[StateT]]
    #: Every handler method name the machine calls (guards and actions); checked at construction.
    handler_names: frozenset[str] = frozenset()

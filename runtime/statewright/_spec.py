"""The data a generated module hands to the runtime: one immutable description per machine.

Generated modules build a :class:`MachineSpec` from tables the compiler computed; the runtime reads
only this, never the TOML spec and never the compiler. The values are
:class:`~statewright._frozen.FrozenValue` s (plain slotted classes, not dataclasses: see there);
functions of :mod:`dataclasses` (``fields``, ``replace``, ``asdict``) do not apply to them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from statewright._compat import StrEnum
from statewright._frozen import FrozenValue

if TYPE_CHECKING:
    from statewright._chart_spec import Chart
    from statewright._data_spec import DataModel

__all__ = ["PREVIOUS", "Alternative", "ErrorRoute", "GuardFunction", "MachineSpec", "Previous"]

StateT = TypeVar("StateT", bound=StrEnum)
EventT = TypeVar("EventT", bound=StrEnum)

#: A compiled guard expression: ``guard(handlers, context, payload) -> bool``.
GuardFunction = Callable[[Any, Any, Any], bool]

_set = object.__setattr__


class Previous(enum.Enum):
    """Target marker for "back to the state we were in before entering the source state"."""

    STATE = "<previous>"

    def __repr__(self) -> str:
        return "PREVIOUS"


PREVIOUS: Final = Previous.STATE


class Alternative(FrozenValue, Generic[StateT]):
    """One guarded alternative for a (state, event) pair; alternatives are tried in spec order."""

    __match_args__ = ("target", "guard", "actions", "checkpoint")
    __slots__ = __match_args__

    target: StateT | Previous
    guard: GuardFunction | None
    actions: tuple[str, ...]
    checkpoint: bool

    def __init__(
        self,
        target: StateT | Previous,
        guard: GuardFunction | None = None,
        actions: tuple[str, ...] = (),
        checkpoint: bool = False,
    ) -> None:
        _set(self, "target", target)
        _set(self, "guard", guard)
        _set(self, "actions", actions)
        _set(self, "checkpoint", checkpoint)


class ErrorRoute(FrozenValue, Generic[StateT]):
    """Where the machine goes when an action raises while leaving a state (instead of staying)."""

    __match_args__ = ("target", "actions")
    __slots__ = __match_args__

    target: StateT
    actions: tuple[str, ...]

    def __init__(self, target: StateT, actions: tuple[str, ...] = ()) -> None:
        _set(self, "target", target)
        _set(self, "actions", actions)


class MachineSpec(FrozenValue, Generic[StateT, EventT]):
    """Everything the runtime needs to run one machine, computed by the compiler."""

    __match_args__ = (
        "name",
        "version",
        "spec_hash",
        "state_type",
        "event_type",
        "initial",
        "final_states",
        "transitions",
        "entry_actions",
        "exit_actions",
        "error_routes",
        "tags",
        "handler_names",
        "payloads",
        "event_descriptions",
        "chart",
        "internal_events",
        "data",
        "source_sha256",
    )
    __slots__ = __match_args__

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
    handler_names: frozenset[str]
    #: Each event's payload fields as data, for the boundary (``send_external``) and tools:
    #: ``(name, type, required)``, see ``statewright._payloads``. Missing: no fields.
    payloads: Mapping[EventT, tuple[tuple[str, tuple[Any, ...], bool], ...]]
    #: The spec's description of each event that has one (tool definitions show it).
    event_descriptions: Mapping[EventT, str]
    #: A statechart's nesting, regions, history and transitions (run by the chart engine);
    #: ``None`` for a flat machine, which ``transitions`` describes entirely.
    chart: Chart | None
    #: Events only the machine sends itself (timers, ``done.state.*``, ``error.*``, and what the
    #: spec declares ``internal = true``): never offered as tools nor taken by ``send_external``.
    #: The runtime adds what a chart implies (see ``statewright._table``).
    internal_events: frozenset[EventT]
    #: The data model (the spec's ``[data]``); ``None`` without one.
    data: DataModel | None
    #: The sha256 of the spec's text, the fingerprint statewright wrote before ``spec_hash``
    #: became a hash of the spec's meaning: a snapshot carrying it was written under this very
    #: text (``None``: not known).
    source_sha256: str | None

    def __init__(
        self,
        name: str,
        version: int,
        spec_hash: str,
        state_type: type[StateT],
        event_type: type[EventT],
        initial: StateT,
        final_states: frozenset[StateT],
        transitions: Mapping[StateT, Mapping[EventT, tuple[Alternative[StateT], ...]]],
        entry_actions: Mapping[StateT, tuple[str, ...]],
        exit_actions: Mapping[StateT, tuple[str, ...]],
        error_routes: Mapping[StateT, ErrorRoute[StateT]],
        tags: Mapping[str, frozenset[StateT]],
        handler_names: frozenset[str] = frozenset(),
        payloads: Mapping[EventT, tuple[tuple[str, tuple[Any, ...], bool], ...]] | None = None,
        event_descriptions: Mapping[EventT, str] | None = None,
        chart: Chart | None = None,
        internal_events: frozenset[EventT] = frozenset(),
        data: DataModel | None = None,
        source_sha256: str | None = None,
    ) -> None:
        _set(self, "name", name)
        _set(self, "version", version)
        _set(self, "spec_hash", spec_hash)
        _set(self, "state_type", state_type)
        _set(self, "event_type", event_type)
        _set(self, "initial", initial)
        _set(self, "final_states", final_states)
        _set(self, "transitions", transitions)
        _set(self, "entry_actions", entry_actions)
        _set(self, "exit_actions", exit_actions)
        _set(self, "error_routes", error_routes)
        _set(self, "tags", tags)
        _set(self, "handler_names", handler_names)
        _set(self, "payloads", {} if payloads is None else payloads)
        _set(self, "event_descriptions", {} if event_descriptions is None else event_descriptions)
        _set(self, "chart", chart)
        _set(self, "internal_events", internal_events)
        _set(self, "data", data)
        _set(self, "source_sha256", source_sha256)

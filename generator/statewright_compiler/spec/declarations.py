"""What the shape pass collects from a spec, before any name is resolved: the input of
:mod:`semantics`. Each entry keeps the key path it was read at, for diagnostics."""

from __future__ import annotations

from dataclasses import dataclass

from statewright_compiler.model import (
    DataField,
    Event,
    Expression,
    GuardExpression,
    Import,
    Invoke,
    MetadataValue,
    SourceSelector,
    StateKind,
    Step,
)
from statewright_compiler.spec.positions import KeyPath

__all__ = ["Declarations", "RawErrorHandler", "RawRule", "RawState", "RawTimer"]


@dataclass(frozen=True)
class RawState:
    name: str
    value: str
    label: str
    description: str
    kind: StateKind
    tags: tuple[str, ...]
    entry: tuple[Step, ...]
    exit: tuple[Step, ...]
    metadata: tuple[tuple[str, MetadataValue], ...]
    path: KeyPath
    parent: str | None = None
    initial: tuple[str, ...] = ()
    initial_steps: tuple[Step, ...] = ()
    history: str = ""
    default: tuple[str, ...] = ()
    default_steps: tuple[Step, ...] = ()
    donedata_params: tuple[tuple[str, Expression], ...] = ()
    donedata: Expression | None = None
    invokes: tuple[Invoke, ...] = ()


@dataclass(frozen=True)
class RawTimer:
    """An ``after`` alternative's timer: its delay (seconds, or a handler's answer) and the
    ``id`` the spec gives it (None: named after its delay)."""

    delay: float | None
    delay_handler: str | None
    on_restore: str
    id: str | None = None


@dataclass(frozen=True)
class RawRule:
    """A transition rule before names are resolved; ``path`` locates it for diagnostics."""

    source: SourceSelector
    event: str
    """An event's name, a descriptor (charts), or "" (eventless)."""
    targets: tuple[str, ...]
    guard: GuardExpression | None
    steps: tuple[Step, ...]
    checkpoint: bool
    description: str
    metadata: tuple[tuple[str, MetadataValue], ...]
    path: KeyPath
    #: Where the source selector, the event and the target are written.
    source_path: KeyPath
    event_path: KeyPath
    target_path: KeyPath
    then: tuple[Step, ...] = ()
    internal: bool = False
    #: Set for an ``after`` alternative (``event`` is then "" until semantics names its event).
    timer: RawTimer | None = None
    #: Its table has a key the language does not know (a misspelt ``guard``?): that is the one
    #: error, so the rule is never taken to be unguarded by the nondeterminism checks.
    unknown_keys: bool = False
    cond: Expression | None = None


@dataclass(frozen=True)
class RawErrorHandler:
    source: SourceSelector
    target: str
    actions: tuple[str, ...]
    description: str
    path: KeyPath


@dataclass(frozen=True)
class Declarations:
    """Everything :class:`_Reader` collected, for the semantic pass."""

    name: str
    module_name: str
    description: str
    version: int
    initial: tuple[str, ...]
    """Empty when missing or wrong (already reported)."""
    metadata: tuple[tuple[str, MetadataValue], ...]
    imports: tuple[Import, ...]
    states: tuple[RawState, ...]
    events: tuple[Event, ...]
    rules: tuple[RawRule, ...]
    error_handlers: tuple[RawErrorHandler, ...]
    #: Every event key in the spec, valid or not: a rejected event is not also "undeclared".
    declared_events: frozenset[str] = frozenset()
    on_error: str = "raise"
    #: Where the spec uses what only a statechart has; empty for a flat machine.
    chart_features: tuple[tuple[str, KeyPath], ...] = ()
    #: Events whose table says ``internal = false``.
    said_external: frozenset[str] = frozenset()
    initial_path: KeyPath = ("machine", "initial")
    #: The data fields (``[data]``, then each state's), each with where its name is written.
    data: tuple[tuple[DataField, KeyPath], ...] = ()
    binding: str = "early"

"""What the shape pass collects from a spec, before any name is resolved: the input of
:mod:`semantics`. Each entry keeps the key path it was read at, for diagnostics."""

from __future__ import annotations

from dataclasses import dataclass

from statewright_compiler.model import (
    Event,
    GuardExpression,
    Import,
    MetadataValue,
    SourceSelector,
    StateKind,
)
from statewright_compiler.positions import KeyPath

__all__ = ["Declarations", "RawErrorHandler", "RawRule", "RawState"]


@dataclass(frozen=True)
class RawState:
    name: str
    value: str
    label: str
    description: str
    kind: StateKind
    tags: tuple[str, ...]
    entry_actions: tuple[str, ...]
    exit_actions: tuple[str, ...]
    metadata: tuple[tuple[str, MetadataValue], ...]
    path: KeyPath


@dataclass(frozen=True)
class RawRule:
    """A transition rule before names are resolved; ``path`` locates it for diagnostics."""

    source: SourceSelector
    event: str
    target: str
    guard: GuardExpression | None
    actions: tuple[str, ...]
    checkpoint: bool
    description: str
    metadata: tuple[tuple[str, MetadataValue], ...]
    path: KeyPath
    #: Where the source selector, the event and the target are written.
    source_path: KeyPath
    event_path: KeyPath
    target_path: KeyPath


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
    initial: str | None
    metadata: tuple[tuple[str, MetadataValue], ...]
    imports: tuple[Import, ...]
    states: tuple[RawState, ...]
    events: tuple[Event, ...]
    rules: tuple[RawRule, ...]
    error_handlers: tuple[RawErrorHandler, ...]
    #: Every event key in the spec, valid or not: a rejected event is not also "undeclared".
    declared_events: frozenset[str] = frozenset()

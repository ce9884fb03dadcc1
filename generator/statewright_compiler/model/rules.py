"""Transitions: each rule as the spec wrote it, the concrete (source, event) alternatives it
expands to, guard expressions, and error handlers."""

from __future__ import annotations

from dataclasses import dataclass

from statewright_compiler.model.expression import Expression
from statewright_compiler.model.metadata import MetadataValue
from statewright_compiler.model.steps import Step, action_names

__all__ = [
    "PREVIOUS_TARGET",
    "And",
    "ErrorHandler",
    "GuardCall",
    "GuardExpression",
    "InState",
    "Not",
    "Or",
    "Rule",
    "SourceSelector",
    "Transition",
    "condition_text",
]

#: How a spec writes "the state before we entered the source state" as a target.
PREVIOUS_TARGET = "<previous>"


@dataclass(frozen=True)
class GuardCall:
    """A named guard: a method of the user's handlers object."""

    name: str


@dataclass(frozen=True)
class InState:
    """``in(name)``: true while state ``name`` is active (charts)."""

    name: str


@dataclass(frozen=True)
class Not:
    operand: GuardExpression


@dataclass(frozen=True)
class And:
    operands: tuple[GuardExpression, ...]


@dataclass(frozen=True)
class Or:
    operands: tuple[GuardExpression, ...]


GuardExpression = GuardCall | InState | Not | And | Or


def condition_text(cond: Expression | None, guard_text: str | None) -> str | None:
    """``cond``, the guard, or ``(cond) and guard`` when a rule has both (cond is tested first);
    None without either."""
    if cond is None:
        return guard_text
    text = cond.shown
    if guard_text is None:
        return text
    return f"({text}) and {guard_text}"


@dataclass(frozen=True)
class SourceSelector:
    """Which states a rule leaves from, as the spec wrote it (kept for docs and diagrams)."""

    states: tuple[str, ...] = ()
    """Explicitly named states."""
    tag: str | None = None
    """Every non-final state carrying this tag."""
    any_state: bool = False
    """Every non-final state (``from = "*"``)."""
    excluded: tuple[str, ...] = ()

    @property
    def is_wildcard(self) -> bool:
        return self.any_state or self.tag is not None

    def describe(self) -> str:
        """Human text, e.g. ``idle, error`` or ``any non-final state except x``."""
        if self.any_state:
            text = "any non-final state"
        elif self.tag is not None:
            text = f"any state tagged {self.tag!r}"
        else:
            return ", ".join(self.states)
        return text + (f" except {', '.join(self.excluded)}" if self.excluded else "")


@dataclass(frozen=True)
class Rule:
    """One transition rule as written: possibly many sources, the events its trigger matches,
    and its targets."""

    source: SourceSelector
    sources: tuple[str, ...]
    """The concrete source states the selector expands to, in state order."""
    event: str
    """The trigger as written: an event's name, an event descriptor (charts), "" for eventless."""
    events: tuple[str, ...]
    """The names of the declared events the trigger matches, in event order."""
    targets: tuple[str, ...]
    """State names (or :data:`PREVIOUS_TARGET`); several for parallel regions, none when
    targetless (charts)."""
    guard: GuardExpression | None
    guard_text: str | None
    """The guard as the spec wrote it (normalised), for docs."""
    steps: tuple[Step, ...]
    checkpoint: bool
    description: str
    metadata: tuple[tuple[str, MetadataValue], ...]
    line: int
    column: int
    then: tuple[Step, ...] = ()
    """Steps run after the targets were entered (charts)."""
    internal: bool = False
    cond: Expression | None = None
    """The spec's ``cond``: an expression over the data, tested before ``guard`` (charts)."""

    @property
    def target(self) -> str:
        """The single target of a flat machine's rule."""
        return self.targets[0] if self.targets else ""

    @property
    def condition_text(self) -> str | None:
        """What must hold for the rule to apply, for docs and diagrams: the ``cond``, the
        guard, or both."""
        return condition_text(self.cond, self.guard_text)

    @property
    def actions(self) -> tuple[str, ...]:
        return action_names((*self.steps, *self.then))

    @property
    def eventless(self) -> bool:
        return not self.event


@dataclass(frozen=True)
class Transition:
    """One alternative for a concrete (source, event) pair; alternatives keep spec order."""

    source: str
    event: str
    """An event's name; "" for an eventless transition (charts)."""
    targets: tuple[str, ...]
    guard: GuardExpression | None
    guard_text: str | None
    steps: tuple[Step, ...]
    checkpoint: bool
    rule_index: int
    """Index of the :class:`Rule` this alternative came from."""
    then: tuple[Step, ...] = ()
    internal: bool = False
    cond: Expression | None = None

    @property
    def target(self) -> str:
        return self.targets[0] if self.targets else ""

    @property
    def condition_text(self) -> str | None:
        return condition_text(self.cond, self.guard_text)

    @property
    def actions(self) -> tuple[str, ...]:
        return action_names((*self.steps, *self.then))

    @property
    def returns_to_previous(self) -> bool:
        return self.target == PREVIOUS_TARGET


@dataclass(frozen=True)
class ErrorHandler:
    """When an action raises while leaving one of ``sources``, run ``actions`` and go ``target``."""

    source: SourceSelector
    sources: tuple[str, ...]
    target: str
    actions: tuple[str, ...]
    description: str
    line: int

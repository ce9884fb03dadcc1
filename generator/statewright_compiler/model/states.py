"""A machine's states: their kind, names, steps and, in a statechart, their place in the tree."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from statewright_compiler.model.expression import Expression
from statewright_compiler.model.invokes import Invoke
from statewright_compiler.model.metadata import MetadataValue
from statewright_compiler.model.steps import SendStep, Step, action_names

__all__ = ["MetadataValue", "State", "StateKind"]


class StateKind(enum.Enum):
    NORMAL = "normal"
    FINAL = "final"
    ERROR = "error"
    WAIT = "wait"
    PARALLEL = "parallel"
    HISTORY = "history"


@dataclass(frozen=True)
class State:
    name: str
    """The key in ``[states]``: a Python identifier."""
    value: str
    """The enum member's string value (what snapshots and logs store); defaults to ``name``."""
    label: str
    """Display text for docs and diagrams; defaults to ``value``."""
    member: str
    """The Python enum member name, ``name.upper()``."""
    description: str
    kind: StateKind
    tags: tuple[str, ...]
    entry: tuple[Step, ...]
    exit: tuple[Step, ...]
    metadata: tuple[tuple[str, MetadataValue], ...]
    line: int
    parent: str | None = None
    """The enclosing compound or parallel state (charts); None at the top level."""
    children: tuple[str, ...] = ()
    """Child states in document order, history states included."""
    initial: tuple[str, ...] = ()
    """A compound state's default targets (its first child unless the spec names others)."""
    initial_steps: tuple[Step, ...] = ()
    history: str = ""
    """``"shallow"`` or ``"deep"`` for a history pseudo-state."""
    default: tuple[str, ...] = ()
    """A history state's targets while it remembers nothing."""
    default_steps: tuple[Step, ...] = ()
    timers: tuple[SendStep, ...] = ()
    """The state's ``after`` timers: started when it is entered, cancelled when it is left."""
    donedata_params: tuple[tuple[str, Expression], ...] = ()
    """A final state's done data as named values (``donedata = { name = EXPR }``)."""
    donedata: Expression | None = None
    """A final state's done data as one expression (``donedata = EXPR``), or, once checked,
    the compiled form of either: what its parent's ``done.state`` event carries."""
    invokes: tuple[Invoke, ...] = ()
    """The child machines the state runs while it is active, in spec order."""

    @property
    def is_final(self) -> bool:
        return self.kind is StateKind.FINAL

    @property
    def is_leaf(self) -> bool:
        """An atomic or final state: a member of the state enum."""
        return not self.children and self.kind is not StateKind.HISTORY

    @property
    def is_compound(self) -> bool:
        return bool(self.children) and self.kind is not StateKind.PARALLEL

    @property
    def entry_actions(self) -> tuple[str, ...]:
        return action_names(self.entry)

    @property
    def exit_actions(self) -> tuple[str, ...]:
        return action_names(self.exit)

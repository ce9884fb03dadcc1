"""The states of a statechart as a tree: parents checked, children in document order, and the
questions the rest of the compiler asks of it (ancestors, defaults, regions, which states can be
active together).

Document order is SCXML's: a parent before its children, children in the order the file lists
them. The runtime numbers states in this order, and SCXML's entry (outermost first) and exit
(innermost first) orders follow from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from statewright_compiler.diagnostics import did_you_mean
from statewright_compiler.model import StateKind
from statewright_compiler.spec.declarations import RawState
from statewright_compiler.spec.reporter import Reporter

__all__ = ["ChartTree"]


class ChartTree:
    """Parents, children and document order; a wrong ``parent`` is reported and ignored."""

    def __init__(self, states: Mapping[str, RawState], reporter: Reporter) -> None:
        self.states = states
        self.parent: dict[str, str | None] = {}
        for name, state in states.items():
            self.parent[name] = self._checked_parent(state, reporter)
        for name in states:
            self._break_cycle(name, reporter)
        self.children: dict[str | None, list[str]] = {None: []}
        for name in states:
            self.children.setdefault(name, [])
        for name in states:
            self.children[self.parent[name]].append(name)
        self.order: list[str] = []
        self._preorder(None)
        self.index = {name: position for position, name in enumerate(self.order)}

    def _checked_parent(self, state: RawState, reporter: Reporter) -> str | None:
        parent = state.parent
        if parent is None:
            return None
        path = (*state.path, "parent")
        if parent not in self.states:
            hint = did_you_mean(parent, self.states)
            reporter.report("unknown-state", path, f"parent state {parent!r} is not a state", hint)
            return None
        kind = self.states[parent].kind
        if kind in (StateKind.FINAL, StateKind.HISTORY):
            reporter.report(
                "invalid-parent",
                path,
                f"{parent!r} is a {kind.value} state: it cannot have children",
                "choose a compound or parallel state as the parent",
            )
            return None
        if kind is StateKind.PARALLEL and state.kind is StateKind.FINAL:
            # SCXML has no <final> in <parallel>: a region is done when it reaches a final
            # state of its own, and a final region would make its parallel state done at once.
            reporter.report(
                "invalid-parent",
                path,
                f"final state {state.name!r} cannot be a region of parallel state {parent!r}",
                f"put it inside a region: a child of {parent!r} with children of its own",
            )
            return None
        return parent

    def _break_cycle(self, name: str, reporter: Reporter) -> None:
        seen = [name]
        parent = self.parent[name]
        while parent is not None:
            if parent == name:
                reporter.report(
                    "invalid-parent",
                    (*self.states[name].path, "parent"),
                    f"state {name!r} is its own ancestor: {' -> '.join([*seen, name])}",
                    "a state's parent chain must end at the top level",
                )
                self.parent[name] = None
                return
            if parent in seen:
                return  # a cycle above this state: reported for its members
            seen.append(parent)
            parent = self.parent[parent]

    def _preorder(self, node: str | None) -> None:
        for child in self.children[node]:
            self.order.append(child)
            self._preorder(child)

    # -- questions -------------------------------------------------------------------------------
    def kind(self, name: str) -> StateKind:
        return self.states[name].kind

    def ancestors(self, name: str) -> list[str]:
        """Proper ancestors, nearest first."""
        chain: list[str] = []
        parent = self.parent[name]
        while parent is not None:
            chain.append(parent)
            parent = self.parent[parent]
        return chain

    def is_descendant(self, name: str, ancestor: str) -> bool:
        return ancestor in self.ancestors(name)

    def child_states(self, name: str | None) -> list[str]:
        """Children that are states (not history pseudo-states)."""
        return [child for child in self.children[name] if self.kind(child) is not StateKind.HISTORY]

    def is_leaf(self, name: str) -> bool:
        return not self.children[name] and self.kind(name) is not StateKind.HISTORY

    def is_compound(self, name: str) -> bool:
        return bool(self.child_states(name)) and self.kind(name) is not StateKind.PARALLEL

    def is_parallel(self, name: str) -> bool:
        return self.kind(name) is StateKind.PARALLEL

    def initial_of(self, name: str) -> tuple[str, ...]:
        """A compound state's default targets: the spec's ``initial`` or its first child."""
        explicit = self.states[name].initial
        if explicit:
            return explicit
        children = self.child_states(name)
        return (children[0],) if children else ()

    def history_default(self, name: str) -> tuple[str, ...]:
        """A history state's default: the spec's, else its parent's default entry."""
        state = self.states[name]
        if state.default:
            return state.default
        parent = self.parent[name]
        if parent is None:
            return ()
        if self.is_parallel(parent):
            return tuple(self.child_states(parent))
        return self.initial_of(parent)

    def default_leaves(self, name: str) -> list[str]:
        """The leaves entering ``name`` enters when nothing is remembered, in document order."""
        if self.kind(name) is StateKind.HISTORY:
            targets: Iterable[str] = self.history_default(name)
        elif self.is_parallel(name):
            targets = self.child_states(name)
        elif self.is_compound(name):
            targets = self.initial_of(name)
        else:
            return [name]
        leaves = [leaf for target in targets for leaf in self.default_leaves(target)]
        return sorted(dict.fromkeys(leaves), key=self.index.__getitem__)

    def leaves_below(self, name: str) -> list[str]:
        """Every leaf state below ``name`` (or ``name`` itself when it is one), in order."""
        if self.is_leaf(name):
            return [name]
        return [leaf for child in self.children[name] for leaf in self.leaves_below(child)]

    def region(self, name: str) -> str | None:
        """The nearest region (a child of a parallel state) holding ``name``; None: the top."""
        for node in (name, *self.ancestors(name)):
            parent = self.parent[node]
            if parent is not None and self.is_parallel(parent):
                return node
        return None

    def regions(self) -> list[str]:
        """Children of parallel states (history pseudo-states are not regions)."""
        return [
            name
            for name in self.order
            if self.region(name) == name and self.kind(name) is not StateKind.HISTORY
        ]

    def compatible(self, first: str, second: str) -> bool:
        """Whether ``first`` and ``second`` can be active at once as *targets*: they sit in
        different regions of a parallel state (neither contains the other)."""
        if first == second:
            return False
        first_chain = [first, *self.ancestors(first)]
        second_chain = [second, *self.ancestors(second)]
        if first in second_chain or second in first_chain:
            return False
        common = next((node for node in first_chain if node in second_chain), None)
        return common is not None and self.is_parallel(common)

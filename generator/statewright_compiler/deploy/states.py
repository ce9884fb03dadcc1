"""States compared: which are gone (removed, or likely renamed), which are new, and what changed
in each state both specs have that a stored instance in it would notice.

A stored instance names its states (the snapshot's ``state``, a chart's active configuration and
what its history states remember), so a state that is gone strands the instances in it; one that
is new strands nobody. A removed and an added state of the same shape (kind, parent, the same
transitions in and out) are reported as one likely rename, ``state-renamed?``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from statewright_compiler.deploy.changes import Change, change
from statewright_compiler.deploy.invokes import compare_invokes
from statewright_compiler.deploy.plain import plain
from statewright_compiler.model import Machine, State, StateKind

__all__ = ["StateMatch", "compare_states"]

_SELF = "<self>"


@dataclass(frozen=True)
class StateMatch:
    """How the old spec's states map to the new one's."""

    renamed: Mapping[str, str]
    """Old name to new name, for the likely renames."""
    gone: frozenset[str]
    """Old states the new spec does not have under that name (renamed ones included)."""

    def new_name(self, old: str) -> str:
        return self.renamed.get(old, old)


def compare_states(old: Machine, new: Machine) -> tuple[list[Change], StateMatch]:
    old_names = [state.name for state in old.states]
    new_names = {state.name for state in new.states}
    removed = [name for name in old_names if name not in new_names]
    added = [state.name for state in new.states if state.name not in set(old_names)]
    match = StateMatch(_renames(old, new, removed, added), frozenset(removed))
    changes = [_gone(old.state(name), match) for name in removed]
    for name in added:
        if name not in match.renamed.values():
            changes.append(_added(old, new.state(name)))
    for state in old.states:
        if state.name not in match.gone:
            changes += _compare_state(state, new.state(state.name), match)
    changes += _history_targets(old, new, match)
    return changes, match


def _gone(state: State, match: StateMatch) -> Change:
    name, path = state.name, f"states.{state.name}"
    if name in match.renamed:
        target = match.renamed[name]
        return change(
            "state-renamed?",
            path,
            f"{name} looks renamed to {target} (same kind, parent and transitions): "
            f"stored instances in {name} must be moved to {target}",
        )
    if state.kind is StateKind.HISTORY:
        message = f"history state {name} is gone: stored memory names it"
        return change("history-removed", path, message)
    return change("state-removed", path, f"{name} is gone: stored instances in it are stranded")


def _added(old: Machine, state: State) -> Change:
    path = f"states.{state.name}"
    known = {other.name for other in old.states}
    parent = old.state(state.parent) if state.parent in known else None
    if parent is not None and parent.kind is StateKind.PARALLEL:
        return change(
            "parallel-region-added",
            path,
            f"{state.name} is a new region of {parent.name}: stored instances in "
            f"{parent.name} are not in it",
        )
    return change("state-added", path, f"{state.name} is new: no stored instance can be in it")


def _structure(state: State) -> str:
    if state.kind is StateKind.HISTORY:
        return "history"
    if state.kind is StateKind.PARALLEL:
        return "parallel"
    return "compound" if state.children else "atomic"


#: (old structure, new structure) -> the kind of change, for structures that differ.
_STRUCTURE_CHANGES = {
    ("atomic", "compound"): "state-became-compound",
    ("atomic", "parallel"): "state-became-parallel",
    ("compound", "parallel"): "state-became-parallel",
    ("parallel", "compound"): "state-became-compound",
    ("compound", "atomic"): "state-became-atomic",
    ("parallel", "atomic"): "state-became-atomic",
    ("atomic", "history"): "state-became-history",
    ("compound", "history"): "state-became-history",
    ("parallel", "history"): "state-became-history",
    ("history", "atomic"): "history-removed",
    ("history", "compound"): "history-removed",
    ("history", "parallel"): "history-removed",
}


def _compare_state(old: State, new: State, match: StateMatch) -> list[Change]:
    path, name = f"states.{old.name}", old.name
    found: list[Change] = []

    def add(kind: str, message: str) -> None:
        found.append(change(kind, path, message))

    if old.value != new.value:
        add("state-value-changed", f"{name}'s stored value {old.value!r} is now {new.value!r}")
    old_parent = match.new_name(old.parent) if old.parent else None
    if old_parent != new.parent:
        add(
            "state-moved",
            f"{name} moved from {old.parent or 'the top'} to {new.parent or 'the top'}",
        )
    if old.is_final and not new.is_final:
        add("state-no-longer-final", f"{name} is no longer final: stored instances in it finished")
    elif new.is_final and not old.is_final:
        add("state-became-final", f"{name} is final now: stored instances in it did not finish")
    shapes = (_structure(old), _structure(new))
    if shapes in _STRUCTURE_CHANGES:
        add(_STRUCTURE_CHANGES[shapes], f"{name} was {shapes[0]}, is {shapes[1]}")
    elif old.kind is not new.kind and not (old.is_final or new.is_final):
        add("state-kind-changed", f"{name}'s kind {old.kind.value} is now {new.kind.value}")
    if old.history and new.history:
        if old.history != new.history:
            add("history-kind-changed", f"{name} was a {old.history} history, is {new.history}")
        default = (tuple(map(match.new_name, old.default)), plain(old.default_steps))
        if default != (new.default, plain(new.default_steps)):
            add("history-default-changed", f"{name}'s default targets or steps changed")
    if old.is_compound and new.is_compound and _changed(old.initial, new.initial, match.new_name):
        add("compound-initial-changed", f"{name} now starts in {', '.join(new.initial)}")
    _compare_docs(old, new, add)
    if plain((old.entry, old.initial_steps)) != plain((new.entry, new.initial_steps)):
        add("entry-changed", f"{name}'s entry steps changed (stored instances do not rerun them)")
    if plain(old.exit) != plain(new.exit):
        add("exit-changed", f"{name}'s exit steps changed")
    return found + compare_invokes(old, new)


def _compare_docs(old: State, new: State, add: Callable[[str, str], None]) -> None:
    if old.description != new.description:
        add("description-changed", f"{old.name}'s description changed")
    if old.label != new.label:
        add("label-changed", f"{old.name}'s label is now {new.label!r}")
    if old.metadata != new.metadata:
        add("metadata-changed", f"{old.name}'s metadata changed")
    if old.tags != new.tags:
        add("tags-changed", f"{old.name}'s tags are now {', '.join(new.tags) or 'none'}")


def _changed(old: tuple[str, ...], new: tuple[str, ...], rename: Callable[[str], str]) -> bool:
    return tuple(map(rename, old)) != new


def _remembered(machine: Machine, history: State) -> set[str]:
    """The states ``history`` can remember: its parent's children (shallow) or the leaves
    below its parent (deep)."""
    if history.parent is None:
        return set()
    parent = machine.state(history.parent)
    if history.history != "deep":
        return {
            child for child in parent.children if machine.state(child).kind is not StateKind.HISTORY
        }
    found: set[str] = set()
    stack = list(parent.children)
    while stack:
        state = machine.state(stack.pop())
        if state.is_leaf:
            found.add(state.name)
        stack += state.children
    return found


def _history_targets(old: Machine, new: Machine, match: StateMatch) -> list[Change]:
    """A history state of both specs whose remembered states may be gone: a stored memory
    would name them."""
    found: list[Change] = []
    for history in old.states:
        if history.kind is not StateKind.HISTORY or history.name in match.gone:
            continue
        now = _remembered(new, new.state(history.name))
        for target in sorted(_remembered(old, history)):
            if target in match.gone or match.new_name(target) not in now:
                found.append(
                    change(
                        "history-target-removed",
                        f"states.{history.name}",
                        f"{history.name} may remember {target}, which it can no longer hold",
                    )
                )
    return found


def _signature(machine: Machine, name: str) -> tuple[object, ...]:
    """What a state is apart from its name: kind, parent, transitions out and in (itself
    written as a placeholder, a timer's event with the state's name taken out)."""

    def own(other: str) -> str:
        return _SELF if other == name else other

    def event(value: str) -> str:
        return value.replace(f"after_{name}_", f"after_{_SELF}_", 1)

    state = machine.state(name)
    outgoing = sorted(
        (event(t.event), tuple(map(own, t.targets)))
        for t in machine.transitions
        if t.source == name
    )
    incoming = sorted(
        (own(t.source), event(t.event))
        for t in machine.transitions
        if name in t.targets and t.source != name
    )
    return (
        state.kind,
        state.history,
        state.parent,
        bool(state.children),
        tuple(outgoing),
        tuple(incoming),
    )


def _renames(old: Machine, new: Machine, removed: list[str], added: list[str]) -> dict[str, str]:
    """Removed and added states of the same signature, paired when each has one such partner."""
    old_signatures = {name: _signature(old, name) for name in removed}
    new_signatures = {name: _signature(new, name) for name in added}
    renamed: dict[str, str] = {}
    for name, signature in old_signatures.items():
        partners = [other for other, theirs in new_signatures.items() if theirs == signature]
        rivals = [other for other, theirs in old_signatures.items() if theirs == signature]
        if len(partners) == 1 and len(rivals) == 1:
            renamed[name] = partners[0]
    return renamed

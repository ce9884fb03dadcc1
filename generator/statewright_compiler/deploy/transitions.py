"""Transitions compared, as a stored instance sees them: its counts and history name each
transition it took as (source, event, target), so one that is gone strands it; a changed guard
or action changes what happens next but strands nobody.

Transitions leaving or entering a state that is gone are the state's change, not reported
again; nor are timers' transitions (see :mod:`~statewright_compiler.deploy.timers`).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from statewright_compiler.deploy.changes import Change, change
from statewright_compiler.deploy.events import timer_events
from statewright_compiler.deploy.plain import plain
from statewright_compiler.deploy.states import StateMatch
from statewright_compiler.model import Machine, Transition

__all__ = ["compare_transitions", "trigger_path"]


def trigger_path(source: str, event: str) -> str:
    """Where a transition is written: ``states.<source>.on.<EVENT>``, or ``.always``."""
    return f"states.{source}.on.{event}" if event else f"states.{source}.always"


def _arrow(transition: Transition) -> str:
    targets = ", ".join(transition.targets) or "(no target)"
    return f"{transition.source} --{transition.event or 'always'}--> {targets}"


def _grouped(
    machine: Machine, skip: frozenset[str], match: StateMatch | None
) -> dict[tuple[str, str], list[Transition]]:
    """Each (source, event)'s alternatives; the old machine's with renames applied."""
    groups: dict[tuple[str, str], list[Transition]] = defaultdict(list)
    for transition in machine.transitions:
        if transition.event in skip:
            continue
        if match is not None:
            removed = match.gone - match.renamed.keys()
            if transition.source in removed or removed & set(transition.targets):
                continue
            transition = dataclasses.replace(
                transition,
                source=match.new_name(transition.source),
                targets=tuple(map(match.new_name, transition.targets)),
            )
        groups[(transition.source, transition.event)].append(transition)
    return groups


def compare_transitions(old: Machine, new: Machine, match: StateMatch) -> list[Change]:
    skip = timer_events(old) | timer_events(new)
    old_groups = _grouped(old, skip, match)
    new_groups = _grouped(new, skip, None)
    new_states = {state.name for state in new.states}
    found: list[Change] = []
    for key in sorted(old_groups.keys() | new_groups.keys()):
        path = trigger_path(*key)
        before, after = old_groups.get(key, []), list(new_groups.get(key, []))
        for transition in before:
            partner = next((t for t in after if t.targets == transition.targets), None)
            if partner is None:
                message = f"{_arrow(transition)} is gone: stored counts and history name it"
                found.append(change("transition-removed", path, message))
                continue
            after.remove(partner)
            found += _compare_alternative(transition, partner, path)
        for transition in after:
            if transition.source in new_states:
                found.append(change("transition-added", path, f"{_arrow(transition)} is new"))
    return found


def _compare_alternative(old: Transition, new: Transition, path: str) -> list[Change]:
    found: list[Change] = []
    if old.condition_text != new.condition_text:
        message = f"{_arrow(new)} now applies when {new.condition_text or 'always'}"
        found.append(change("guard-changed", path, message))
    if plain((old.steps, old.then)) != plain((new.steps, new.then)):
        found.append(change("actions-changed", path, f"{_arrow(new)} runs other steps"))
    if old.checkpoint != new.checkpoint:
        state = "checkpoints" if new.checkpoint else "no longer checkpoints"
        found.append(change("checkpoint-changed", path, f"{_arrow(new)} {state}"))
    return found

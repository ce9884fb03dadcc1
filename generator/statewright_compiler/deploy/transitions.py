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
                found.append(_removed(transition, path, chart=new.chart))
                continue
            after.remove(partner)
            found += _compare_alternative(transition, partner, path)
        for transition in after:
            if transition.source in new_states:
                found.append(change("transition-added", path, f"{_arrow(transition)} is new"))
    return found + _compare_error_routes(old, new, match)


def _error_routes(machine: Machine) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each state's error route (the first error handler for it): its target and actions."""
    routes: dict[str, tuple[str, tuple[str, ...]]] = {}
    for handler in machine.error_handlers:
        for source in handler.sources:
            routes.setdefault(source, (handler.target, handler.actions))
    return routes


def _route_changed(source: str, target: str, now: str | None, path: str, *, chart: bool) -> Change:
    where = f"goes to {now}, not {target}" if now else f"to {target} is gone"
    if chart:
        message = f"{source}'s error route {where} (a chart's stored counts accept any)"
        return change("chart-error-route-changed", path, message)
    kind = "error-route-retargeted" if now else "error-route-removed"
    return change(kind, path, f"{source}'s error route {where}: stored counts name it")


def _compare_error_routes(old: Machine, new: Machine, match: StateMatch) -> list[Change]:
    """A flat machine counts an error route as (source, event, route target) for each event of
    the source, so a route that is gone or goes elsewhere is a transition stored counts name
    (a chart's counts accept any, see :func:`_removed`)."""
    before, after = _error_routes(old), _error_routes(new)
    found: list[Change] = []
    for source, (target, actions) in before.items():
        if source in match.gone and source not in match.renamed:
            continue
        now, path = after.get(match.new_name(source)), f"error_handlers.{source}"
        if now is None or now[0] != match.new_name(target):
            found.append(_route_changed(source, target, now and now[0], path, chart=new.chart))
        elif now[1] != actions:
            found.append(
                change("actions-changed", path, f"{source}'s error route runs other actions")
            )
    renamed_before = {match.new_name(source) for source in before}
    for source, (target, _) in after.items():
        if source not in renamed_before:
            message = f"{source} has a new error route to {target}"
            found.append(change("error-route-added", f"error_handlers.{source}", message))
    return found


def _removed(transition: Transition, path: str, *, chart: bool) -> Change:
    """A flat machine's snapshot counts each (source, event, target) it took against the
    spec's transitions, so one that is gone strands it; a chart's counts and history accept
    any (its table grows as transitions occur): its instances load and keep the record."""
    if chart:
        message = f"{_arrow(transition)} is gone (stored histories keep it; instances load)"
        return change("chart-transition-removed", path, message)
    message = f"{_arrow(transition)} is gone: stored counts and history name it"
    return change("transition-removed", path, message)


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

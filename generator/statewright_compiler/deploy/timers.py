"""Timers compared by their stable ids, which is how a stored instance's pending timer names
them: ``after.<state>.<id|delay>`` for a state's ``after`` timers, the send's ``id`` for a
delayed send step.

A pending timer keeps its meaning when its id still exists with the same delay and fires the
same transitions (targets and conditions); otherwise, when it comes due, the new spec would
refuse it or fire something it was not armed for. A timer added to a state a stored instance
is in is not pending for that instance: a migration arms it, or the instance goes without.
"""

from __future__ import annotations

from statewright_compiler.deploy.changes import Change, change
from statewright_compiler.deploy.plain import plain
from statewright_compiler.deploy.states import StateMatch
from statewright_compiler.model import Machine, SendStep, walk_steps

__all__ = ["after_timers", "compare_timers", "delayed_sends"]


def _delay(timer: SendStep) -> object:
    return plain((timer.delay, timer.delay_handler, timer.delay_expr))


def after_timers(machine: Machine) -> dict[str, tuple[str, SendStep]]:
    """Each ``after`` timer by its id (the timer event's value), with its state."""
    return {timer.id: (state.name, timer) for state in machine.states for timer in state.timers}


def _meaning(machine: Machine, state: str, event: str, rename: StateMatch | None) -> object:
    """What the timer's event does in ``state``: each alternative's targets and condition."""

    def name(target: str) -> str:
        return rename.new_name(target) if rename is not None else target

    return tuple(
        (tuple(map(name, t.targets)), t.condition_text)
        for t in machine.transitions
        if t.source == state and t.event == event
    )


def compare_timers(old: Machine, new: Machine, match: StateMatch) -> list[Change]:
    found: list[Change] = []
    before, after = after_timers(old), after_timers(new)
    for timer_id, (state, timer) in before.items():
        if state in match.gone:
            continue  # the state's change says it
        if timer_id not in after:
            message = f"{timer_id} is gone: a pending one would be refused"
            found.append(change("timer-removed", timer_id, message))
            continue
        _, now = after[timer_id]
        if _meaning(old, state, timer.event, match) != _meaning(new, state, now.event, None):
            message = f"{timer_id} now fires another transition than the one it was armed for"
            found.append(change("timer-retargeted", timer_id, message))
        if _delay(timer) != _delay(now):
            message = f"{timer_id} has another delay: a pending one does not match it"
            found.append(change("timer-delay-changed", timer_id, message))
        if timer.on_restore != now.on_restore:
            message = f"{timer_id} is restored with {now.on_restore!r} now"
            found.append(change("timer-restore-changed", timer_id, message))
    kept = {state.name for state in old.states} - match.gone
    for timer_id, (state, _) in after.items():
        if timer_id not in before and state in kept:
            message = f"{timer_id} is new: stored instances in {state} do not have it pending"
            found.append(change("timer-added", timer_id, message))
    return found + _compare_sends(old, new)


def delayed_sends(machine: Machine) -> dict[str, SendStep]:
    """Each delayed send step with an id (what a pending timer of a send stores), by id."""
    steps = [*machine.initial_steps]
    for state in machine.states:
        steps += [*state.entry, *state.exit, *state.initial_steps, *state.default_steps]
    for transition in machine.transitions:
        steps += [*transition.steps, *transition.then]
    return {
        step.id: step
        for step in walk_steps(steps)
        if isinstance(step, SendStep)
        and step.id
        and (step.delay is not None or step.delay_handler or step.delay_expr is not None)
    }


def _compare_sends(old: Machine, new: Machine) -> list[Change]:
    found: list[Change] = []
    before, after = delayed_sends(old), delayed_sends(new)
    for send_id, step in before.items():
        path = f"send.{send_id}"
        if send_id not in after:
            message = f"no delayed send has id {send_id!r} now: a pending one would be refused"
            found.append(change("send-timer-removed", path, message))
        elif plain((step.event, step.event_expr)) != plain(
            (after[send_id].event, after[send_id].event_expr)
        ) or _delay(step) != _delay(after[send_id]):
            message = f"the send {send_id!r} sends another event or delay"
            found.append(change("send-timer-changed", path, message))
    return found

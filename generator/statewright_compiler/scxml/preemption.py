"""Transitions SCXML never takes: an earlier one of the same state without ``cond`` always
matches first.

SCXML picks, in each state, the first transition in document order whose descriptor matches the
event and whose ``cond`` holds (the first eventless one whose ``cond`` holds, for the eventless
step). A later transition all of whose events an earlier unconditional one already matches is
dead; SCXML allows it, the compiler refuses it (``nondeterminism``), so the importer leaves it out
with a warning that names the line of what preempts it.

Matching runs over every event the chart declares (each event a descriptor names is one): a
descriptor's own event is among them, so "dead here" is "dead for any event SCXML could send".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from statewright_compiler.diagnostics import Diagnostic, Severity
from statewright_compiler.scxml.document import Transition
from statewright_compiler.spec.descriptors import DescriptorError, matches, parse_descriptor

__all__ = ["live_transitions"]

#: What an eventless transition "matches".
_EVENTLESS = ""


def live_transitions(
    transitions: Sequence[Transition], values: Iterable[str], shown: str
) -> tuple[list[Transition], list[Diagnostic]]:
    """``transitions`` (one state's, in document order) without the dead ones, and an
    ``scxml-ignored`` warning at each dead one. ``values``: every event the chart has."""
    events = list(values)
    taken: dict[str, int] = {}  # event (or eventless) -> line of the first cond-less transition
    live: list[Transition] = []
    warnings: list[Diagnostic] = []
    for transition in transitions:
        if transition.events:
            try:
                prefixes = parse_descriptor(" ".join(transition.events))
            except DescriptorError:  # reported by the reader: no spec is written
                prefixes = ()
            keys = [event for event in events if matches(prefixes, event)]
        else:
            keys = [_EVENTLESS]
        if keys and all(key in taken for key in keys):
            lines = sorted({taken[key] for key in keys})
            warnings.append(_warning(transition, lines, shown))
            continue
        live.append(transition)
        if transition.cond is None:
            for key in keys:
                taken.setdefault(key, transition.line)
    return live, warnings


def _warning(transition: Transition, lines: list[int], shown: str) -> Diagnostic:
    if len(lines) == 1:
        which = f"the one on line {lines[0]} has no cond and takes"
    else:
        written = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
        which = f"the ones on lines {written} have no cond and take"
    what = "every event it matches" if transition.events else "the eventless step"
    message = (
        f"this <transition> is never taken: {which} {what} first (SCXML takes the first "
        "enabled transition in document order); it is left out"
    )
    return Diagnostic(
        "scxml-ignored",
        shown,
        transition.line,
        transition.column,
        message,
        severity=Severity.WARNING,
    )

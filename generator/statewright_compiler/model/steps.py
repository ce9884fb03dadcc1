"""Executable content: what a transition, an entry or an exit runs, in order.

A step is a handler action's name (a method of the user's handlers object) or one of the
statechart steps SCXML defines: raise an event, log, send an event after a delay, cancel a timer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CancelStep",
    "LogStep",
    "RaiseStep",
    "SendStep",
    "Step",
    "action_names",
]


@dataclass(frozen=True)
class RaiseStep:
    """Executable content: put ``event`` (an event's name) on the internal queue (charts)."""

    event: str


@dataclass(frozen=True)
class LogStep:
    """Executable content: log ``text`` under ``label`` (SCXML's ``<log>``; charts)."""

    text: str
    label: str = ""


@dataclass(frozen=True)
class SendStep:
    """Executable content: send ``event`` to the machine after a delay (SCXML's ``<send delay>``):
    ``delay`` seconds, or what the handler ``delay_handler`` returns. ``id`` names the timer for
    :class:`CancelStep`; ``on_restore`` is what a restored machine does with it."""

    event: str
    id: str
    delay: float | None = None
    delay_handler: str | None = None
    on_restore: str = "fire"


@dataclass(frozen=True)
class CancelStep:
    """Executable content: cancel the pending timer ``id`` (SCXML's ``<cancel>``)."""

    id: str


#: One piece of executable content: a handler action's name, a raise, a log, a delayed send or
#: a cancel.
Step = str | RaiseStep | LogStep | SendStep | CancelStep


def action_names(steps: Iterable[Step]) -> tuple[str, ...]:
    """The handler actions among ``steps``, in order: what the handlers object must define."""
    return tuple(step for step in steps if isinstance(step, str))

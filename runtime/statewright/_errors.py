"""The exception hierarchy: one base class so callers can catch everything the runtime raises.

Each error carries the facts as attributes (not only in the message) so callers can branch on them
without parsing text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any

__all__ = [
    "ActionFailed",
    "ChildMachineError",
    "ClockError",
    "Conflict",
    "GuardFailed",
    "InvalidData",
    "InvalidPayload",
    "InvalidTransition",
    "RegistrySaveError",
    "SnapshotError",
    "StatewrightError",
    "StoreError",
    "TimerLoop",
    "UnknownEvent",
    "UnknownInstance",
]


class StatewrightError(Exception):
    """Base class of every error the runtime raises on purpose."""


class InvalidTransition(StatewrightError):
    """The current state does not accept the event (no alternative, guards failed, or final).

    ``allowed`` holds the events with a transition out of ``state`` (guards not evaluated), so
    after "no guard passed" it contains ``event`` itself. The message is written when it is
    read: a rejection that nobody prints costs no formatting.
    """

    # Slots: an exception's attributes otherwise make its __dict__, which costs more than the
    # rest of a rejection (issue #22).
    __slots__ = ("allowed", "event", "reason", "state")

    def __init__(self, state: str, event: str, allowed: Iterable[str], reason: str = "") -> None:
        self.args = (state, event, reason)
        self.state = state
        self.event = event
        self.allowed = allowed if isinstance(allowed, frozenset) else frozenset(allowed)
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its facts (slots are not in the ``__dict__`` an exception pickles)."""
        facts = (self.state, self.event, self.allowed, self.reason)
        return type(self), facts, self.__dict__ or None

    def __str__(self) -> str:
        names = ", ".join(sorted(str(a) for a in self.allowed)) or "none"
        if self.event in self.allowed:  # the state has transitions for it, but none applied
            return (
                f"event {self.event!s} was rejected in state {self.state!s}: {self.reason} "
                f"(events with transitions here: {names})"
            )
        text = (
            f"event {self.event!s} is not allowed in state {self.state!s} (allowed events: {names})"
        )
        return f"{text}: {self.reason}" if self.reason else text


class UnknownEvent(InvalidTransition, ValueError):
    """Something that is not an event of this machine was sent: a string that names no event,
    a member of another enum, another object; or an internal event (one only the machine sends
    itself) came through ``send_external``.

    The message leads with that (``reason``), then names the event a string most likely meant
    (:attr:`suggestion`), then the state's allowed events; both are worked out when read.
    """

    def __init__(
        self,
        state: str,
        event: str,
        allowed: Iterable[str],
        reason: str = "",
        events: type[Enum] | Iterable[Enum] = (),
    ) -> None:
        super().__init__(state, event, allowed, reason)
        self._events = events

    @property
    def suggestion(self) -> str | None:
        """The name of the event ``event`` most likely meant, or None: one that differs only in
        case or separators (an event method's name finds its event), else difflib's closest."""
        return closest_event(self.event, self._events)

    def __str__(self) -> str:
        names = ", ".join(sorted(str(a) for a in self.allowed)) or "none"
        suggestion = self.suggestion
        hint = f"; did you mean {suggestion}?" if suggestion else ""
        reason = self.reason or f"{self.event!r} is not an event of this machine"
        return f"{reason}{hint} (allowed events in state {self.state!s}: {names})"


def _folded(name: str) -> str:
    return name.casefold().replace("-", "_").replace(".", "_").replace(" ", "_")


def closest_event(text: str, events: type[Enum] | Iterable[Enum]) -> str | None:
    """The name of the member of ``events`` whose name or value ``text`` most likely meant."""
    by_key: dict[str, str] = {}
    for member in events:
        by_key.setdefault(_folded(member.name), member.name)
        if isinstance(member.value, str):
            by_key.setdefault(_folded(member.value), member.name)
    key = _folded(text)
    if key in by_key:
        return by_key[key]
    import difflib  # here: only a message that is read needs it

    close = difflib.get_close_matches(key, by_key, n=1, cutoff=0.6)
    return by_key[close[0]] if close else None


class InvalidPayload(StatewrightError, ValueError):
    """Arguments that do not match an event's payload; nothing was sent.

    ``path`` leads to the offending value (field names and list indexes); ``reason`` says what
    is wrong with it.
    """

    def __init__(self, event: str, path: Sequence[str | int], reason: str) -> None:
        self.event = event
        self.path = tuple(path)
        self.reason = reason
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
        super().__init__(f"payload of {event}: {where.lstrip('.') or 'arguments'}: {reason}")


class InvalidData(InvalidPayload):
    """Initial data given to a machine (``Machine(..., data={...})``) that its data model does
    not take: a name that is no data field, a value its field's type does not admit or that
    breaks a bound on stored values, anything that is not a mapping, or data for a machine
    without a data model. Raised by the constructor before anything ran. ``event`` is the
    machine's name; ``path`` and ``reason`` as for :class:`InvalidPayload`."""

    def __init__(self, machine: str, path: Sequence[str | int], reason: str) -> None:
        self.event = machine
        self.path = tuple(path)
        self.reason = reason
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
        where = where.lstrip(".")
        shown = f"{where}: {reason}" if where else reason
        StatewrightError.__init__(self, f"data of {machine}: {shown}")


class ActionFailed(StatewrightError):
    """An action raised and the source state has no error route; the machine did not move.

    The original exception is ``__cause__``; ``action`` names the handler method that raised.
    """

    def __init__(self, state: str, event: str, action: str, error: BaseException) -> None:
        self.state = state
        self.event = event
        self.action = action
        self.error = error
        super().__init__(
            f"action {action!r} raised {type(error).__name__}: {error} while handling event "
            f"{event!s} in state {state!s}; the machine stays in {state!s}"
        )


class GuardFailed(StatewrightError):
    """A guard raised (rather than returning False); nothing was applied."""

    def __init__(self, state: str, event: str, error: BaseException) -> None:
        self.state = state
        self.event = event
        self.error = error
        super().__init__(
            f"a guard raised {type(error).__name__}: {error} while evaluating event {event!s} "
            f"in state {state!s}; nothing was applied"
        )


class ClockError(StatewrightError):
    """A user-supplied clock raised (``__cause__``) or returned something that is no epoch: a
    finite number of seconds between 0001-01-01 and 9999-12-31 UTC. Nothing was applied."""


class TimerLoop(StatewrightError):
    """One ``fire_due`` call fired its bound of timers (``MAX_TIMER_FIRINGS``, 10,000) and
    another was still due: timers that never catch up with ``now``, such as a timer that starts
    itself again with no delay. Every timer that fired is kept (its transition was committed)
    and the next one is still pending, so a later call goes on. ``fired`` counts the timers
    fired, ``cycle`` holds the ids of the timers that repeat, in firing order."""

    def __init__(self, fired: int, cycle: Sequence[str]) -> None:
        self.fired = fired
        self.cycle = tuple(cycle)
        shown = " -> ".join([*self.cycle, *self.cycle[:1]])
        super().__init__(
            f"timers did not settle after {fired} firings in one fire_due call: {shown} repeats "
            "(each fired timer's transition is kept; the next due timer is still pending)"
        )


class SnapshotError(StatewrightError):
    """A snapshot is corrupted, truncated, for another machine, or for an unmigratable version,
    or a machine's state cannot be written as one.

    ``field`` names the offending value when there is one (``"history[3].epoch"``,
    ``"context.amount"``); the message starts with it.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        #: The message without the field.
        self.reason = message


class StoreError(StatewrightError):
    """A store could not read or write: an I/O failure (disk full, read-only, permissions, a
    database that is no database), an invalid instance id or revision. What was *stored* being
    wrong is a :class:`SnapshotError` instead."""


class Conflict(StoreError):
    """Optimistic concurrency lost: the stored revision is not the one the writer started from.

    Nothing was written. Reload the instance, re-apply the event, and save again.
    """

    def __init__(self, instance_id: str, expected: int, actual: int | None) -> None:
        self.instance_id = instance_id
        self.expected = expected
        self.actual = actual
        found = "no stored instance" if actual is None else f"revision {actual}"
        super().__init__(
            f"instance {instance_id!r}: expected revision {expected} but found {found}; "
            "reload and retry"
        )


class RegistrySaveError(StoreError):
    """:meth:`MachineRegistry.save_all` saved some machines but not others.

    ``saved`` maps the ids saved to their new revisions, ``failures`` the others to the error
    each raised (a :class:`Conflict` marked that machine stale, as :meth:`Machine.save` does).
    """

    def __init__(self, saved: dict[str, int], failures: dict[str, Exception]) -> None:
        self.saved = saved
        self.failures = failures
        listed = "; ".join(f"{key}: {type(e).__name__}: {e}" for key, e in failures.items())
        super().__init__(f"{len(failures)} of {len(saved) + len(failures)} not saved: {listed}")


class ChildMachineError(StatewrightError, ValueError):
    """A child machine (one a state of another machine invoked) was given where a machine of its
    own is needed, such as :meth:`MachineRegistry.register`: a child is part of its parent's
    tree, saved in its parent's snapshot and ended by its parent's states, so it is reached
    through its parent (``registry.machine_at("<parent id>/<invoke id>")``)."""


class UnknownInstance(StatewrightError, KeyError):
    """No machine with this instance id is registered or stored."""

    def __init__(self, instance_id: str, where: str) -> None:
        self.instance_id = instance_id
        super().__init__(f"no machine instance {instance_id!r} in {where}")

    def __str__(self) -> str:
        # KeyError.__str__ would repr() the message; keep it readable.
        return str(self.args[0])

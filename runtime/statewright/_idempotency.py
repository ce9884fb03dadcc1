"""Idempotent sends: what ``send_once`` answers, and which keys it takes.

A retried webhook or a queue's redelivery sends the same event again. ``send_once(key, event)``
applies it once: the machine keeps the keys of applied keyed sends (the newest
``MachineOptions.idempotency_window`` of them) with the event id each one got, in its snapshot,
and a key it has seen is answered with ``applied=False`` and that event id instead of a second
transition. With a store, a keyed send is checkpointed with its key (durable or not applied), so
a duplicate racing in another process loses the revision race (:class:`Conflict`), reloads, and
finds the key. Imported by the first ``send_once``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Generic, TypeVar

__all__ = ["MAX_KEY_LENGTH", "SendResult", "check_key"]

#: The longest idempotency key, in characters (the strict decoder checks the same bound).
MAX_KEY_LENGTH: Final = 200

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class SendResult(Generic[S]):
    """The answer of a keyed send.

    ``applied`` is True when this call applied the event; False when the key had been applied
    before (nothing happened now). ``event_id`` is the id of the transition the key applied
    (this one or the earlier one), ``state`` the machine's state after this call.
    """

    state: S
    applied: bool
    event_id: int


def check_key(key: object) -> str:
    """``key`` itself, or :class:`ValueError`: a key is a string of 1 to 200 characters."""
    if type(key) is not str or not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise ValueError(
            f"an idempotency key is a string of 1 to {MAX_KEY_LENGTH} characters, not {key!r:.60}"
        )
    return key

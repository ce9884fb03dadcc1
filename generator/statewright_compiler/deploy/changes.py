"""What ``statewright diff`` reports: one :class:`Change` per difference between two specs of a
machine, each of a stable kind code whose class says what it means for stored instances.

The classes, in increasing order of trouble:

* ``compatible``: an instance stored under the old spec loads and continues under the new one
  as it would have (added events, added states no stored instance can be in, docs, ...);
* ``needs-migration``: some stored instance may name something the new spec no longer has, or
  has with another meaning (a state renamed or removed, a pending timer that now fires another
  transition, a data field retyped, ...): bump the spec's ``version`` and migrate;
* ``breaking``: the machine's contract changed for its callers or for every stored instance at
  once (an external event removed, a payload made stricter, the machine renamed): bump the
  version, migrate what is stored and update the code that drives the machine.

Each kind has one class (:data:`KINDS`): the table is the documentation's table too.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["KINDS", "Change", "ChangeClass", "change", "sorted_changes"]


class ChangeClass(enum.Enum):
    COMPATIBLE = "compatible"
    NEEDS_MIGRATION = "needs-migration"
    BREAKING = "breaking"

    @property
    def incompatible(self) -> bool:
        return self is not ChangeClass.COMPATIBLE


_C, _M, _B = ChangeClass.COMPATIBLE, ChangeClass.NEEDS_MIGRATION, ChangeClass.BREAKING

#: Every kind of change ``diff`` reports, with its class.
KINDS: Final[dict[str, ChangeClass]] = {
    # the machine
    "machine-renamed": _B,
    "module-renamed": _B,
    "version-lowered": _B,
    "version-raised": _C,
    "machine-kind-changed": _M,
    "initial-changed": _M,
    "chart-initial-changed": _C,
    "on-error-changed": _C,
    "description-changed": _C,
    "label-changed": _C,
    "metadata-changed": _C,
    "tags-changed": _C,
    # states
    "state-added": _C,
    "state-removed": _M,
    "state-renamed?": _M,
    "state-value-changed": _M,
    "state-moved": _M,
    "state-kind-changed": _C,
    "state-became-final": _M,
    "state-no-longer-final": _M,
    "state-became-compound": _M,
    "state-became-atomic": _M,
    "state-became-parallel": _M,
    "state-became-history": _M,
    "parallel-region-added": _M,
    "compound-initial-changed": _C,
    "entry-changed": _C,
    "exit-changed": _C,
    "history-removed": _M,
    "history-kind-changed": _M,
    "history-target-removed": _M,
    "history-default-changed": _C,
    # child machines (a stored parent embeds its running children by invoke)
    "invoke-added": _M,
    "invoke-removed": _M,
    "invoke-child-changed": _M,
    "invoke-changed": _C,
    # events
    "event-added": _C,
    "event-removed": _B,
    "event-value-changed": _M,
    "event-made-internal": _B,
    "event-made-external": _C,
    "payload-field-added": _C,
    "payload-field-required": _B,
    "payload-field-removed": _B,
    "payload-field-retyped": _B,
    "payload-field-widened": _C,
    # transitions
    "transition-added": _C,
    "transition-removed": _M,
    "chart-transition-removed": _C,
    "guard-changed": _C,
    "actions-changed": _C,
    "checkpoint-changed": _C,
    "error-route-added": _C,
    "error-route-removed": _M,
    "error-route-retargeted": _M,
    "chart-error-route-changed": _C,
    # timers (a pending one is stored under its stable id)
    "timer-added": _M,
    "timer-removed": _M,
    "timer-retargeted": _M,
    "timer-delay-changed": _M,
    "timer-restore-changed": _C,
    "send-timer-removed": _M,
    "send-timer-changed": _M,
    # the data model
    "data-field-added": _C,
    "data-field-added-computed": _M,
    "data-field-removed": _M,
    "data-field-retyped": _M,
    "data-field-widened": _C,
    "data-field-initial-changed": _C,
    "data-field-moved": _M,
    "data-binding-changed": _M,
    "state-data-added": _M,
}


@dataclass(frozen=True, order=True)
class Change:
    """One difference: its ``kind`` (a key of :data:`KINDS`), the spec key or stable id it
    concerns (``states.reviewing``, ``data.retries``, ``after.reviewing.5m``) and one line
    saying what it means."""

    kind: str
    path: str
    message: str

    @property
    def change_class(self) -> ChangeClass:
        return KINDS[self.kind]


def change(kind: str, path: str, message: str) -> Change:
    """A change of a known kind (an unknown kind is a bug in the comparison, caught at once)."""
    if kind not in KINDS:
        raise ValueError(f"unknown change kind {kind!r}")
    return Change(kind, path, message)


_CLASS_ORDER: Final = {_B: 0, _M: 1, _C: 2}


def sorted_changes(changes: Iterable[Change]) -> tuple[Change, ...]:
    """Worst class first, then by path and kind: the same two specs give the same report."""
    unique = set(changes)
    return tuple(
        sorted(unique, key=lambda c: (_CLASS_ORDER[c.change_class], c.path, c.kind, c.message))
    )

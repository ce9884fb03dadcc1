"""Whether every stored instance loads under the module about to be deployed: the check of
``statewright check-store``, one instance at a time over a read-only scan of the store
(:mod:`statewright._stores.scan`).

An instance is *stranded* when the new module cannot continue it: restoring it through the new
machine class, with the options its workers use (their ``migrations`` and
``compatible_fingerprints`` above all), raises. Restoring is the whole check, because it is
strict: the state and the chart's configuration exist and are legal, each pending timer is one
the spec starts under that id with that delay and event, each history state remembers states it
can hold, data fields hold values of their types, and the snapshot's fingerprint is the spec's,
an older version the migrations carry over, or one declared compatible (so a pending timer
whose transition changed is caught: ``diff`` classifies that change as needing a migration).
Nothing is run: no handler, no entry action, no timer; nothing is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from statewright import Machine, MachineOptions, Snapshot, SnapshotError
from statewright._stores.scan import StoredInstance

__all__ = ["Stranded", "inert_handlers", "stranded"]


@dataclass(frozen=True)
class Stranded:
    """A stored instance the new module cannot continue: its id, the snapshot field at fault
    (``state``, ``chart.timers[0].id``, ``spec_hash``; None when none is named) and why."""

    instance_id: str
    field: str | None
    reason: str


def inert_handlers(cls: type[Machine[Any, Any, Any]]) -> object:
    """An object with every handler the spec names, each refusing to run (restoring runs none,
    but a machine is built with its handlers)."""

    def refuse(*arguments: object, **keywords: object) -> None:
        raise RuntimeError("check-store runs no handler")

    return SimpleNamespace(**dict.fromkeys(cls.spec.handler_names, refuse))


def stranded(
    cls: type[Machine[Any, Any, Any]], stored: Iterable[StoredInstance], options: MachineOptions
) -> Iterator[tuple[StoredInstance, Stranded | None]]:
    """Each stored instance with what strands it under ``cls`` (None: it loads)."""
    handlers = inert_handlers(cls)
    options = dataclasses.replace(options, store=None, instance_id=None)
    for instance in stored:
        yield instance, _check(cls, instance, handlers, options)


def _check(
    cls: type[Machine[Any, Any, Any]],
    instance: StoredInstance,
    handlers: object,
    options: MachineOptions,
) -> Stranded | None:
    instance_id, snapshot, error = instance
    if error is not None:
        return Stranded(instance_id, error.field, str(error))
    assert snapshot is not None  # one of the two
    stored_id = snapshot.get("instance_id")
    if isinstance(stored_id, str) and stored_id != instance_id:
        reason = f"instance_id: the snapshot stored as {instance_id!r} is the one of {stored_id!r}"
        return Stranded(instance_id, "instance_id", reason)
    try:
        cls.restore(Snapshot(snapshot), handlers, options=options)
    except SnapshotError as failure:
        return Stranded(instance_id, failure.field, str(failure))
    except Exception as failure:  # the user's codec or context type: reported, not a traceback
        return Stranded(instance_id, None, f"{type(failure).__name__}: {failure}")
    return None

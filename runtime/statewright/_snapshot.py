"""Snapshots: a machine instance as JSON data, and back (no pickle anywhere).

A snapshot carries everything needed to continue exactly where the instance stopped: state,
PREVIOUS memory, statistics counters, retained history (with the raw epoch so timestamps round
trip bit for bit), the encoded context and the store revision. It names the machine, the spec
version and the spec's fingerprint (``spec_hash``, the sha256 of the spec's text) so that loading
into the wrong machine, or into another spec at the same version, fails loudly; older spec
versions can be upgraded by ``options.migrations``. Each history record names the fingerprint of
the spec it was made under too, so a history that spans a deploy says which spec decided what.
Restoring goes through the strict decoder (:mod:`statewright._snapshot_decode`), the context
through :mod:`statewright._context`.

Saving: a store that keeps history as records (every built-in one) gets a
:class:`~statewright._stores.protocol.SnapshotUpdate` instead of the whole snapshot: the snapshot
without its history, and the records that are new since this machine last saved to (or was
loaded from) that store, so a save costs the same whatever the history's length. Other stores
get the whole snapshot. Checkpoints are durable or not applied:
:meth:`~statewright._base.BaseMachine._checkpoint` builds what the machine will save after a
transition, the machine saves it and only then commits.

This module writes snapshots (plain functions the machine calls, see
:class:`~statewright._instance.MachineInstance`); :mod:`statewright._snapshot_decode` and
:mod:`statewright._snapshot_versions` read them. It is imported with every generated module, so
json, dataclasses and the decoder are imported where snapshots are taken and restored instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from statewright._history import RawRecord
    from statewright._stores.protocol import SnapshotUpdate

    #: What a machine hands a store: a whole snapshot, or a head with its new records.
    Payload = dict[str, Any] | SnapshotUpdate

__all__ = ["SNAPSHOT_FORMAT", "history_json", "incremental"]

#: Version 2 added ``idempotency_keys`` and the ``lateness`` of history records of timers;
#: version 3 the ``spec_hash`` of history records (absent from records written before).
#: Older snapshots are upgraded when restored (:mod:`statewright._snapshot_versions`).
SNAPSHOT_FORMAT: Final = "statewright.snapshot/3"


def history_json(
    triples: Sequence[tuple[Any, Any, Any]],
    raw: Sequence[RawRecord] | None,
    total: int,
    after: int,
    fingerprint: str,
) -> list[dict[str, Any]]:
    """The retained records with event ids above ``after`` (``total`` is the newest one's),
    oldest first, in their JSON form (``TransitionRecord.as_dict()`` with the raw ``epoch`` and
    the ``spec_hash`` it was made under; payloads as JSON data, always: see to_json_value),
    built from the raw records without the record objects. A raw record made by this machine
    was made under its spec, ``fingerprint``; a restored one made under another spec says
    which as its sixth item (None: a record from before fingerprints, written without one)."""
    if not raw:
        return []
    count = min(len(raw), total - after)
    if count <= 0:
        return []
    newest = []
    for item in reversed(raw):  # the newest ones: a deque reads its ends in O(1)
        newest.append(item)
        if len(newest) == count:
            break
    from statewright._history import format_timestamp, to_json_value

    event_id = total - count
    history = []
    for item in reversed(newest):
        source, event, target = triples[item[0]]
        event_id += 1
        data = {
            "from": str(source),
            "event": str(event),
            "to": str(target),
            "timestamp": format_timestamp(item[1]),
            "event_id": event_id,
            "payload": to_json_value(item[2]) if len(item) > 2 else {},
            "epoch": item[1],
        }
        written_under: str | None = fingerprint
        if len(item) > 3:
            if item[3] is not None:
                data["error"] = item[3]
            if len(item) > 4 and item[4] is not None:
                data["lateness"] = item[4]
            if len(item) > 5:
                written_under = item[5]
        if written_under is not None:
            data["spec_hash"] = written_under
        history.append(data)
    return history


#: Per store class: whether machines hand it :class:`SnapshotUpdate` s (see :func:`incremental`).
_INCREMENTAL: dict[type, bool] = {}


def incremental(store_class: type) -> bool:
    """Whether a store class takes :class:`SnapshotUpdate` s: it has ``save_update``, defined
    no higher up than its ``save``. A subclass that overrides ``save`` alone (to wrap, audit or
    refuse it) gets whole snapshots through that ``save``, so it still sees every save."""
    known = _INCREMENTAL.get(store_class)
    if known is None:
        owners = {}
        for name in ("save", "save_update"):
            owners[name] = next((c for c in store_class.__mro__ if name in c.__dict__), None)
        update_owner = owners["save_update"]
        known = update_owner is not None and issubclass(update_owner, owners["save"] or object)
        _INCREMENTAL[store_class] = known
    return known

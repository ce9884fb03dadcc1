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

__all__ = ["SNAPSHOT_FORMAT", "history_json", "incremental", "own_store"]

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
    newest = newest_records(raw, total, after)
    if not newest:
        return []
    from statewright._history import format_timestamp, to_json_value

    event_id = total - len(newest)
    history = []
    for item in reversed(newest):
        source, event, target = triples[item[0]]
        event_id += 1
        payload = _plain(item[2]) if len(item) > 2 else {}
        data = {
            "from": str(source),
            "event": str(event),
            "to": str(target),
            "timestamp": format_timestamp(item[1]),
            "event_id": event_id,
            "payload": to_json_value(item[2]) if payload is None else payload,
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


#: The value types a payload most often holds, which are their own JSON form (a float only when
#: finite, an integer only when not too long to store: see :func:`_plain`).
_SCALARS: Final = frozenset({str, int, bool, float, type(None)})


def newest_records(raw: Sequence[Any] | None, total: int, after: int) -> list[Any]:
    """The raw records after the ``after``-th of ``total``, newest first (a deque reads its
    ends in O(1), so only those are read)."""
    if not raw:
        return []
    count = min(len(raw), total - after)
    if count == 1:  # a save after one transition: the newest record
        return [raw[-1]]
    newest: list[Any] = []
    for item in reversed(raw) if count > 0 else ():
        newest.append(item)
        if len(newest) == count:
            break
    return newest


def _plain(payload: Any) -> dict[str, Any] | None:
    """A copy of ``payload`` when it is a dict of string keys and plain JSON scalars (most
    are; an empty one too): what ``to_json_value`` makes of it, without its walk; else None."""
    if type(payload) is not dict:
        return None
    for key, value in payload.items():
        kind = type(value)
        if type(key) is not str or kind not in _SCALARS:
            return None
        if kind is float and value - value != 0.0:  # NaN and the infinities: their repr
            return None
        if kind is int and value.bit_length() > 13_000:  # _jsondata.MAX_INT_BITS: a marker
            return None
    return dict(payload)


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


#: The package whose stores the machines trust with their own snapshots (see :func:`own_store`).
_BUILT_IN: Final = "statewright._stores."
#: Per ``(store class, method names)``: whether they are all the built-in stores' own.
_OWN: dict[tuple[type, tuple[str, ...]], bool] = {}


def own_store(store_class: type, *names: str) -> bool:
    """Whether each of the methods ``names`` of a store class is a built-in store's own (defined
    in ``statewright._stores``, not overridden by a subclass): the machines' trust rule.

    What a machine builds for a save is JSON data already (it checks what it encodes), and a
    snapshot that a built-in store read back with a checksum that matches is what the runtime
    itself wrote. Handed between a machine and such a store with nothing else in between, it is
    not walked value by value again: a save's update is written as it is, a load's snapshot is
    parsed and decoded without the JSON data check. A store of your own, a subclass that
    overrides one of these methods, a snapshot without a checksum (written before checksums) or
    one restored from elsewhere (``restore``) gets every check; a checksum that does not match is
    a :class:`SnapshotError` either way."""
    key = (store_class, names)
    known = _OWN.get(key)
    if known is None:
        known = True
        for name in names:
            owner = next((c for c in store_class.__mro__ if name in c.__dict__), None)
            known = known and owner is not None and owner.__module__.startswith(_BUILT_IN)
        _OWN[key] = known
    return known

"""Snapshots: a machine instance as JSON data, and back (no pickle anywhere).

A snapshot carries everything needed to continue exactly where the instance stopped: state,
PREVIOUS memory, statistics counters, retained history (with the raw epoch so timestamps round
trip bit for bit), the encoded context and the store revision. It names the machine, the spec
version and the spec hash so that loading into the wrong machine fails loudly, and older spec
versions can be upgraded by ``options.migrations``. Restoring goes through the strict decoder
(:mod:`statewright._snapshot_decode`), the context through :mod:`statewright._context`.

Saving: a store that keeps history as records (every built-in one) gets a
:class:`~statewright._stores.protocol.SnapshotUpdate` instead of the whole snapshot: the snapshot
without its history, and the records that are new since this machine last saved to (or was
loaded from) that store, so a save costs the same whatever the history's length. Other stores
get the whole snapshot. Checkpoints are durable or not applied:
:meth:`SnapshotMixin._checkpoint_snapshot` builds what the machine will save after a transition,
the machine saves it and only then commits.

Machines subclass :class:`SnapshotMixin`, so this module is imported with every generated module;
json, dataclasses (which imports inspect, ast and dis), the decoder and :class:`MachineOptions` (a
dataclass) are imported where snapshots are taken and restored instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from statewright._compat import StrEnum
from statewright._core import _BUSY_ROW, MachineCore, statewright_logger
from statewright._errors import Conflict, SnapshotError, StatewrightError, UnknownInstance
from statewright._stores.protocol import Store  # at run time: class annotations name it

if TYPE_CHECKING:
    from statewright._history import RawRecord
    from statewright._options import MachineOptions
    from statewright._snapshot_decode import Decoded
    from statewright._stores.protocol import SnapshotUpdate

    #: What a machine hands a store: a whole snapshot, or a head with its new records.
    Payload = dict[str, Any] | SnapshotUpdate

__all__ = ["SNAPSHOT_FORMAT", "Snapshot", "SnapshotMixin"]

#: Version 2 added ``idempotency_keys`` and the ``lateness`` of history records of timers;
#: version 1 snapshots are upgraded when restored (:mod:`statewright._snapshot_versions`).
SNAPSHOT_FORMAT: Final = "statewright.snapshot/2"

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


class SnapshotMixin(MachineCore[S, E, C]):
    """``snapshot``/``restore``/``load`` and saving, for both machine flavours."""

    #: The store this machine last saved to or was loaded from, and its newest event id then:
    #: the records after it are what the next save to that store appends. (Class defaults:
    #: constructing a machine that never saves costs nothing.)
    _synced_store: Store | None = None
    _synced_total: int = 0
    #: Idempotency keys of applied keyed sends, oldest first, and their event ids; made by the
    #: first keyed send (see :meth:`Machine.send_once`).
    _keys: dict[str, int] | None = None

    def _mark_stale(self, conflict: Conflict) -> None:
        """A save lost a race: every further send is refused until the instance is loaded."""
        self._stale = conflict
        self._fast = _BUSY_ROW

    def _restore_state(
        self,
        state: S,
        previous: S | None,
        counts: list[int],
        history: Iterable[RawRecord],
        revision: int,
    ) -> None:
        """Install a checked snapshot (statewright._snapshot_decode): counters by index, raw
        history records (cut to this machine's history limit)."""
        self._state = state
        self._fast = self._spec_table.fast_rows[state]
        self._prev = previous
        self._counts = list(counts)
        if self._history is not None:
            self._history.clear()
            self._history.extend(history)
        self._revision = revision

    def snapshot(self: M) -> Snapshot[M]:
        """The instance as JSON data (see the module docstring for the contents).

        Raises :class:`SnapshotError` naming the field when the context cannot be written as
        JSON that restores to an equal value (see :mod:`statewright._context`).
        """
        with self._read_lock:
            return Snapshot(self._snapshot_locked())

    def _snapshot_locked(self) -> dict[str, Any]:
        return self._build_snapshot(self._history_json(0))

    def _build_snapshot(self, history: list[dict[str, Any]] | None) -> dict[str, Any]:
        """The snapshot, with ``history`` (or without the key: a store's head)."""
        from statewright._context import encode_context  # see the module docstring

        spec = self._spec_table.spec
        context, context_type = encode_context(self._context, self._options)
        data: dict[str, Any] = {
            "format": SNAPSHOT_FORMAT,
            "machine": spec.name,
            "spec_version": spec.version,
            "spec_hash": spec.spec_hash,
            "instance_id": self._instance_id,
            "revision": self._revision,
            "state": str(self._state),
            "previous": None if self._prev is None else str(self._prev),
            "total_transitions": self.total_transitions,
            "counts": [
                [str(s), str(e), str(t), n] for (s, e, t), n in self.transition_counts().items()
            ],
        }
        if history is not None:
            data["history"] = history
        data["context"] = context
        data["context_type"] = context_type
        keys = self._keys
        data["idempotency_keys"] = (
            [[key, event_id] for key, event_id in keys.items()] if keys else []
        )
        return data

    def _history_json(self, after: int) -> list[dict[str, Any]]:
        """The retained records with event ids above ``after``, oldest first, in their JSON form
        (``TransitionRecord.as_dict()`` with the raw ``epoch``; payloads as JSON data, always:
        see to_json_value), built from the raw records without the record objects."""
        raw = self._history
        if not raw:
            return []
        total = self.total_transitions
        count = min(len(raw), total - after)
        if count <= 0:
            return []
        newest = []
        for item in reversed(raw):  # the newest ones: a deque reads its ends in O(1)
            newest.append(item)
            if len(newest) == count:
                break
        from statewright._history import format_timestamp, to_json_value

        triples = self._spec_table.triples
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
                "payload": to_json_value(item[2]),
                "epoch": item[1],
            }
            if len(item) > 3:
                if item[3] is not None:
                    data["error"] = item[3]
                if len(item) > 4 and item[4] is not None:
                    data["lateness"] = item[4]
            history.append(data)
        return history

    @classmethod
    def restore(
        cls: type[M],
        snapshot: Snapshot[M] | str | bytes,
        handlers: object | None = None,
        *,
        options: MachineOptions | None = None,
        context: Any = None,
    ) -> M:
        """Rebuild an instance from :meth:`snapshot` output (a dict or its JSON text).

        ``context`` overrides the stored context. Everything else is checked first (see
        :mod:`statewright._snapshot_decode`): a snapshot restores exactly what was saved, or
        raises :class:`SnapshotError` naming the offending field.
        """
        import dataclasses  # here, not at the top: see the module docstring

        from statewright._context import decode_context
        from statewright._options import MachineOptions
        from statewright._snapshot_decode import decode
        from statewright._snapshot_versions import migrate, prepare

        table = cls._table()
        spec = table.spec
        opts = options if options is not None else MachineOptions()
        data = prepare(snapshot, spec.name, spec.version)
        written_by = data["spec_version"]
        data = migrate(data, spec.name, spec.version, opts)
        decoded = decode(data, table)
        if written_by == spec.version and data["spec_hash"] != spec.spec_hash:
            cls._log_hash_mismatch(data, spec.name)
        if opts.instance_id is None:
            opts = dataclasses.replace(opts, instance_id=decoded.instance_id)
        if context is None:
            context = decode_context(decoded.context, decoded.context_type, opts)
        machine = cls(context, handlers, options=opts)
        machine._restore_state(
            decoded.state, decoded.previous, decoded.counts, decoded.history, decoded.revision
        )
        if decoded.keys:
            window = opts.idempotency_window
            machine._keys = dict(decoded.keys[-window:] if window else ())
        machine._restored(decoded)
        return machine

    def _restored(self, decoded: Decoded) -> None:
        """What a machine restores beyond the flat fields (statecharts: the chart's state)."""

    @classmethod
    def _log_hash_mismatch(cls, data: Mapping[str, Any], name: str) -> None:
        statewright_logger().warning(
            "%s snapshot has spec hash %s but the machine has %s at the same version; "
            "bump the spec version and add a migration when the spec changes incompatibly",
            name,
            data.get("spec_hash"),
            cls._table().spec.spec_hash,
        )

    @classmethod
    def load(
        cls: type[M],
        store: Store,
        instance_id: str,
        handlers: object | None = None,
        *,
        options: MachineOptions | None = None,
        context: Any = None,
    ) -> M:
        """Restore the instance ``instance_id`` from ``store`` (which it then saves back to)."""
        snapshot = store.load(instance_id)
        if snapshot is None:
            raise UnknownInstance(instance_id, f"store {store!r}")
        stored_id = snapshot.get("instance_id")
        if isinstance(stored_id, str) and stored_id != instance_id:
            raise SnapshotError(
                f"the snapshot stored as {instance_id!r} is the one of {stored_id!r}",
                field="instance_id",
            )
        import dataclasses  # see restore

        from statewright._options import MachineOptions

        opts = options if options is not None else MachineOptions()
        opts = dataclasses.replace(opts, store=store, instance_id=instance_id)
        machine = cls.restore(Snapshot(snapshot), handlers, options=opts, context=context)
        machine._synced_store, machine._synced_total = store, machine.total_transitions
        return machine

    def _save_locked(self) -> int:
        """Save to the configured store with optimistic concurrency (caller holds the lock)."""
        store = self._options.store
        if store is None:
            raise StatewrightError("no store configured: pass MachineOptions(store=...)")
        return self._save_to(store)

    def _save_to(self, store: Store) -> int:
        return self._store_snapshot(store, self._save_payload(store))

    def _save_payload(self, store: Store) -> Payload:
        """What saving to ``store`` writes now: the head and the new records for a store that
        keeps history as records, else the whole snapshot."""
        if not _incremental(type(store)):
            return self._snapshot_locked()
        from statewright._stores.protocol import SnapshotUpdate

        total = self.total_transitions
        retained = len(self._history) if self._history else 0
        since = self._synced_total if self._synced_store is store else None
        after = total - retained if since is None else max(since, total - retained)
        return SnapshotUpdate(
            self._build_snapshot(None), self._history_json(after), retained, since
        )

    def _store_snapshot(self, store: Store, payload: Payload) -> int:
        """Save ``payload`` as the revision after this machine's; a :class:`Conflict` marks the
        machine stale. (The async machine calls this in a worker thread.)"""
        try:
            if isinstance(payload, dict):
                revision = store.save(self._instance_id, payload, self._revision)
                total = payload["total_transitions"]
            else:
                revision = store.save_update(  # type: ignore[attr-defined]  # see _save_payload
                    self._instance_id, payload, self._revision
                )
                total = payload.total
        except Conflict as conflict:
            self._mark_stale(conflict)
            raise
        self._revision = revision
        self._synced_store, self._synced_total = store, total
        return revision

    def _checkpoint_snapshot(
        self,
        store: Store,
        source: S,
        event: E,
        target: S,
        payload: Mapping[str, Any],
        error: str | None,
        stamp: float | None,
        key: str | None = None,
    ) -> Payload:
        """What the machine will save once the transition is committed (with ``key``, the
        idempotency key it applies); the machine is left as it was (the caller saves it, then
        commits)."""
        history, previous = self._history, self._prev
        full = history is not None and len(history) == history.maxlen
        dropped = history[0] if history is not None and full else None
        index = self._commit(source, event, target, payload, error, stamp)
        evicted = self._remember_key(key)
        try:
            return self._save_payload(store)
        finally:
            self._forget_key(key, evicted)
            self._state, self._prev = source, previous
            self._counts[index] -= 1
            if history is not None:
                history.pop()
                if dropped is not None:
                    history.appendleft(dropped)

    def _remember_key(self, key: str | None) -> tuple[str, int] | None:
        """Record ``key`` as applied by the newest transition; returns the key the window let go
        (the oldest), if any."""
        if key is None or self._options.idempotency_window <= 0:
            return None
        keys = self._keys
        if keys is None:
            keys = self._keys = {}
        keys[key] = self.total_transitions
        if len(keys) > self._options.idempotency_window:
            oldest = next(iter(keys))
            return oldest, keys.pop(oldest)
        return None

    def _forget_key(self, key: str | None, evicted: tuple[str, int] | None) -> None:
        """Undo :meth:`_remember_key` (a checkpoint is built before the commit)."""
        if key is None or self._keys is None:
            return
        self._keys.pop(key, None)
        if evicted is not None:
            self._keys = {evicted[0]: evicted[1], **self._keys}


#: Per store class: whether machines hand it :class:`SnapshotUpdate` s (see :func:`_incremental`).
_INCREMENTAL: dict[type, bool] = {}


def _incremental(store_class: type) -> bool:
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


#: Defined after the class so that its bound is no string: typing compiles a string bound, and the
#: first ``compile`` in a process costs ~1 ms.
M = TypeVar("M", bound=SnapshotMixin[Any, Any, Any])
M_co = TypeVar("M_co", bound=SnapshotMixin[Any, Any, Any], covariant=True)


class Snapshot(dict[str, Any], Generic[M_co]):
    """A machine's snapshot: on the wire a plain JSON object, to type checkers a value tied to
    the machine class that took it, so that restoring one machine's snapshot into another
    machine's class is a type error. Data from elsewhere (a file, a queue) is wrapped as
    ``Snapshot(data)``, which fits any machine and is checked when restored."""

    __slots__ = ()

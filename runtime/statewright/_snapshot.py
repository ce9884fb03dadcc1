"""Snapshots: a machine instance as JSON data, and back (no pickle anywhere).

A snapshot carries everything needed to continue exactly where the instance stopped: state,
PREVIOUS memory, statistics counters, retained history (with the raw epoch so timestamps round
trip bit for bit), the encoded context and the store revision. It names the machine, the spec
version and the spec hash so that loading into the wrong machine fails loudly, and older spec
versions can be upgraded by ``options.migrations``. Restoring goes through the strict decoder
(:mod:`statewright._snapshot_decode`), the context through :mod:`statewright._context`.

Checkpoints are durable or not applied: :meth:`SnapshotMixin._checkpoint_snapshot` builds the
snapshot the machine will have after a transition, the machine saves it and only then commits.

Machines subclass :class:`SnapshotMixin`, so this module is imported with every generated module;
json, dataclasses (which imports inspect, ast and dis), the decoder and :class:`MachineOptions` (a
dataclass) are imported where snapshots are taken and restored instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from statewright._compat import StrEnum
from statewright._core import MachineCore, statewright_logger
from statewright._errors import Conflict, SnapshotError, StatewrightError, UnknownInstance

if TYPE_CHECKING:
    from statewright._options import MachineOptions
    from statewright._snapshot_decode import Decoded
    from statewright._store_protocol import Store

__all__ = ["SNAPSHOT_FORMAT", "Snapshot", "SnapshotMixin"]

SNAPSHOT_FORMAT: Final = "statewright.snapshot/1"

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


class SnapshotMixin(MachineCore[S, E, C]):
    """``snapshot``/``restore``/``load`` and saving, for both machine flavours."""

    def snapshot(self: M) -> Snapshot[M]:
        """The instance as JSON data (see the module docstring for the contents).

        Raises :class:`SnapshotError` naming the field when the context cannot be written as
        JSON that restores to an equal value (see :mod:`statewright._context`).
        """
        with self._read_lock:
            return Snapshot(self._snapshot_locked())

    def _snapshot_locked(self) -> dict[str, Any]:
        from statewright._context import encode_context  # see the module docstring

        spec = self._spec_table.spec
        context, context_type = encode_context(self._context, self._options)
        history = []
        for record in self.history:
            item = record.as_dict()  # payloads as JSON data, always (see to_json_value)
            item["epoch"] = record.epoch
            history.append(item)
        return {
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
            "history": history,
            "context": context,
            "context_type": context_type,
        }

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
        from statewright._snapshot_decode import decode, migrate, prepare

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
        return cls.restore(Snapshot(snapshot), handlers, options=opts, context=context)

    def _save_locked(self) -> int:
        """Save to the configured store with optimistic concurrency (caller holds the lock)."""
        store = self._options.store
        if store is None:
            raise StatewrightError("no store configured: pass MachineOptions(store=...)")
        return self._save_to(store)

    def _save_to(self, store: Store) -> int:
        return self._store_snapshot(store, self._snapshot_locked())

    def _store_snapshot(self, store: Store, snapshot: dict[str, Any]) -> int:
        """Save ``snapshot`` as the revision after this machine's; a :class:`Conflict` marks the
        machine stale. (The async machine calls this in a worker thread.)"""
        try:
            revision = store.save(self._instance_id, snapshot, self._revision)
        except Conflict as conflict:
            self._mark_stale(conflict)
            raise
        self._revision = revision
        return revision

    def _checkpoint_snapshot(
        self,
        source: S,
        event: E,
        target: S,
        payload: Mapping[str, Any],
        error: str | None,
        stamp: float | None,
    ) -> dict[str, Any]:
        """The snapshot this machine will have once the transition is committed; the machine is
        left as it was (the caller saves it, then commits)."""
        history, previous = self._history, self._prev
        full = history is not None and len(history) == history.maxlen
        dropped = history[0] if history is not None and full else None
        index = self._commit(source, event, target, payload, error, stamp)
        try:
            return self._snapshot_locked()
        finally:
            self._state, self._prev = source, previous
            self._counts[index] -= 1
            if history is not None:
                history.pop()
                if dropped is not None:
                    history.appendleft(dropped)


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

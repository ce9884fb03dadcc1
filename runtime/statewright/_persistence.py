"""Snapshots, restoring and saving: an instance as JSON data and back, and what a save hands a
store.

:class:`PersistentMachine` sits on :class:`~statewright._instance.MachineInstance` (what an
instance holds). Snapshots are written by :mod:`statewright._snapshot` (see there for their
contents and for incremental saves) and read back by :mod:`statewright._restoring` (the strict
decoder, :mod:`statewright._snapshot_decode` and :mod:`statewright._snapshot_versions`, or the
trusted path for the runtime's own), imported on first use with :mod:`dataclasses`.

Restoring builds an instance without entering its initial configuration: :meth:`restore` makes
it with ``cls.__new__`` and hands the checked snapshot to the flavour's :meth:`_construct`, which
sets every field and installs the snapshot instead of running entry actions. Like unpickling,
it does not call ``__init__`` (a generated ``__init__`` only types the handlers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from statewright._compat import StrEnum
from statewright._errors import ChildMachineError, Conflict, StatewrightError
from statewright._first_call import on_first_call
from statewright._instance import BUSY_ROW, MachineInstance
from statewright._snapshot import SNAPSHOT_FORMAT, history_json, incremental, own_store
from statewright._stores.protocol import SnapshotUpdate

if TYPE_CHECKING:
    from collections.abc import Mapping

    from statewright._options import MachineOptions
    from statewright._snapshot import Payload
    from statewright._snapshot_decode import Decoded
    from statewright._stores.protocol import OwnText, Store

__all__ = ["M", "PersistentMachine", "Snapshot"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


class PersistentMachine(MachineInstance[S, E, C]):
    """``snapshot``, ``restore``, ``load`` and what a save writes, for every machine."""

    #: See :attr:`spec_changes` (most instances never crossed one).
    _spec_changes: tuple[dict[str, Any], ...] = ()

    @property
    def spec_changes(self) -> tuple[dict[str, Any], ...]:
        """The spec changes this instance was carried across, oldest first: one each time it
        was restored from a snapshot of another spec (migrated from an older version, or of a
        fingerprint declared compatible), ``{"from_version", "to_version", "from_spec",
        "to_spec", "event_id", "epoch"}``: the versions and fingerprints, how many transitions
        it had made then (its history's records up to that event id were made under
        ``from_spec``) and when. Its snapshots keep the newest 100."""
        return tuple(dict(change) for change in self._spec_changes)

    #: A child machine's history records as its parent's last save wrote them, and its event
    #: id then (see statewright._tree_snapshot).
    _saved_history: tuple[int, list[dict[str, Any]]] | None = None

    def snapshot(self: M) -> Snapshot[M]:
        """The instance as JSON data (see :mod:`statewright._snapshot` for the contents).

        Raises :class:`SnapshotError` naming the field when the context cannot be written as
        JSON that restores to an equal value (see :mod:`statewright._context`).
        """
        with self._read_lock:
            return Snapshot(self._build_snapshot(self._history_json(0)))

    def _history_json(self, after: int) -> list[dict[str, Any]]:
        table = self._spec_table
        return history_json(
            table.triples, self._history, self.total_transitions, after, table.spec.spec_hash
        )

    def _build_snapshot(
        self,
        history: list[dict[str, Any]] | None,
        saved_at: float | None = None,
        head: bool = False,
    ) -> dict[str, Any]:
        """The snapshot, with ``history`` (or without the key: a store's head), a statechart's
        taken at ``saved_at`` (its parent's, for a child) or else now. A child's leaves the
        context out: it is its parent's. In a store's ``head`` children may share what they
        wrote at the last save (statewright._tree_snapshot)."""
        from statewright._context import encode_context  # json and dataclasses: on first use

        spec = self._spec_table.spec
        names = self._count_names()
        if self._parent is None:
            context, context_type = encode_context(self._context, self._options)
        else:
            context, context_type = None, None
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
            "counts": [[*names[i], n] for i, n in enumerate(self._counts) if n],
        }
        if history is not None:
            data["history"] = history
        data["context"] = context
        data["context_type"] = context_type
        keys = self._keys
        data["idempotency_keys"] = (
            [[key, event_id] for key, event_id in keys.items()] if keys else []
        )
        if self._spec_changes:
            data["spec_changes"] = [dict(change) for change in self._spec_changes]
        chart = self._chart
        if chart is not None:
            if saved_at is None:
                saved_at = self._checkpoint_time
            if saved_at is None:
                saved_at = self._clock()
            data["chart"] = self._engine.encode(chart, saved_at)
            if spec.data is not None and chart.model is not None:
                from statewright._data_values import encode_data

                data["data"] = encode_data(spec.data, chart.model.data)
            if chart.children:  # a tree of machines (statewright._tree_snapshot)
                from statewright._tree_snapshot import encode_children

                data["children"] = encode_children(self, saved_at, head or history is None)
        return data

    def _count_names(self) -> list[tuple[str, str, str]]:
        """The ``(source, event, target)`` values of the class's counters, by counter index
        (kept on the class; a statechart's grow as it meets new steps)."""
        cls, table = type(self), self._spec_table
        cached = cls.__dict__.get("_counter_names")
        if cached is None or cached[0] is not table or len(cached[1]) != len(table.triples):
            names = [(str(s), str(e), str(t)) for s, e, t in table.triples]
            cached = (table, names)
            cls._counter_names = cached  # type: ignore[attr-defined]  # a cache, by class
        names_by_index: list[tuple[str, str, str]] = cached[1]
        return names_by_index

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
        raises :class:`SnapshotError` naming the offending field. A snapshot of another spec at
        this machine's version (another ``spec_hash``) is refused unless
        ``options.compatible_fingerprints`` holds it; an older version is migrated
        (:mod:`statewright._snapshot_versions`). A statechart gets its saved configuration,
        history memory, queued events and timers, and no entry action runs.
        """
        from statewright._options import MachineOptions

        opts = options if options is not None else MachineOptions()
        return cls._restore(snapshot, handlers, opts, context)

    @classmethod
    def _restore(
        cls: type[M],
        snapshot: object,
        handlers: object,
        opts: MachineOptions,
        context: Any,
        own: bool = False,
    ) -> M:
        """:meth:`restore`; ``own``: a snapshot the runtime wrote itself, which a built-in store
        read back under a checksum that matches (see ``statewright._snapshot.own_store``)."""
        machine: M = _restore_snapshot(cls, snapshot, handlers, opts, context, own)
        return machine

    @classmethod
    def _decode(
        cls, snapshot: object, options: MachineOptions, child: bool = False, own: bool = False
    ) -> Decoded:
        """A snapshot checked for this class (a ``child``'s: embedded in its parent's), its
        children's with it (:mod:`statewright._restoring`)."""
        decoded: Decoded = _decode_snapshot(cls, snapshot, options, child, own)
        return decoded

    def _construct(
        self,
        context: C,
        handlers: object | None,
        options: MachineOptions | None,
        snapshot: Decoded | None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        """Build the instance (the flavour's ``__init__`` and :meth:`restore` both come here):
        set every field, then install ``snapshot`` or, without one, enter the initial
        configuration (the flavour decides when) with the initial ``data`` given, if any."""
        raise NotImplementedError

    def _install(self, decoded: Decoded) -> None:
        """Install a checked snapshot: counters by index, raw history records (cut to this
        machine's history limit), idempotency keys, a statechart's running state."""
        self._state = decoded.state
        self._fast = self._spec_table.fast_rows[decoded.state]
        self._prev = decoded.previous
        self._counts = list(decoded.counts)
        if self._history is not None:
            self._history.extend(decoded.history)
        self._revision = decoded.revision
        window = self._options.idempotency_window
        if decoded.keys and window:
            self._keys = dict(decoded.keys[-window:])
        if decoded.chart is not None:
            chart = self._engine.restored(decoded.chart, self._clock, self._instance_id)
            self._chart, self._started = chart, True
            if self._parent is not None and chart.model is not None:
                chart.model.system.parent = True  # restored() gave it its system
            if self._invoking:  # its tree may hold events to deliver (statewright._tree)
                self._unsettled = True
            if decoded.children:
                from statewright._tree_snapshot import install_children

                install_children(self, decoded.children)

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
        machine: M = _load_instance(cls, store, instance_id, handlers, options, context)
        return machine

    # ----------------------------------------------------------------- what a save writes

    def _save_locked(self) -> int:
        """Save to the configured store with optimistic concurrency (caller holds the lock)."""
        self._refuse_child()
        store = self._options.store
        if store is None:
            raise StatewrightError("no store configured: pass MachineOptions(store=...)")
        return self._store_snapshot(store, self._save_payload(store))

    def _save_payload(self, store: Store) -> Payload:
        """What saving to ``store`` writes now: the head and the new records for a store that
        keeps history as records, else the whole snapshot."""
        self._refuse_child()
        if not incremental(type(store)):
            return self._build_snapshot(self._history_json(0))
        total = self.total_transitions
        retained = len(self._history) if self._history else 0
        since = self._synced_total if self._synced_store is store else None
        after = total - retained if since is None else max(since, total - retained)
        if own_store(type(store), "save_update"):  # handed to it straight away: as text
            return SnapshotUpdate.of_text(_own_text(self, after), retained, since)
        return SnapshotUpdate(
            self._build_snapshot(None), self._history_json(after), retained, since
        )

    def _refuse_child(self) -> None:
        """A child's own row would lack its context (its parent's) and no parent would know it."""
        if self._parent is not None:
            raise ChildMachineError(f"{self._instance_id!r} is a child machine: save its parent")

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
            self._stale = conflict  # every further send is refused until it is loaded again
            self._fast = BUSY_ROW
            raise
        self._revision = revision
        self._synced_store, self._synced_total = store, total
        return revision

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


#: What restoring, loading and a save to a built-in store run (statewright._restoring,
#: statewright._snapshot_text's ``own_text``), imported by the first call of each (they import
#: json, dataclasses and the decoders, which a machine that never saves does not need), then
#: called directly (statewright._first_call).
_restore_snapshot: Callable[..., Any] = on_first_call(
    globals(), "_restore_snapshot", "statewright._restoring", "restore"
)
_decode_snapshot: Callable[..., Any] = on_first_call(
    globals(), "_decode_snapshot", "statewright._restoring", "decode"
)
_load_instance: Callable[..., Any] = on_first_call(
    globals(), "_load_instance", "statewright._restoring", "load"
)
_own_text: Callable[[Any, int], OwnText] = on_first_call(
    globals(), "_own_text", "statewright._snapshot_text", "own_text"
)


#: Defined after the class so that its bound is no string: typing compiles a string bound, and the
#: first ``compile`` in a process costs ~1 ms.
M = TypeVar("M", bound=PersistentMachine[Any, Any, Any])
M_co = TypeVar("M_co", bound=PersistentMachine[Any, Any, Any], covariant=True)


class Snapshot(dict[str, Any], Generic[M_co]):
    """A machine's snapshot: on the wire a plain JSON object, to type checkers a value tied to
    the machine class that took it, so that restoring one machine's snapshot into another
    machine's class is a type error. Data from elsewhere (a file, a queue) is wrapped as
    ``Snapshot(data)``, which fits any machine and is checked when restored."""

    __slots__ = ()

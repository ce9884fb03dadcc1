"""Snapshots: a machine instance as a JSON-compatible dict, and back (no pickle anywhere).

A snapshot carries everything needed to continue exactly where the instance stopped: state,
PREVIOUS memory, statistics counters, retained history (with the raw epoch so timestamps round
trip bit for bit), the encoded context and the store revision. It names the machine, the spec
version and the spec hash so that loading into the wrong machine fails loudly, and older spec
versions can be upgraded by ``options.migrations``.

Machines subclass :class:`SnapshotMixin`, so this module is imported with every generated module;
json, dataclasses (which imports inspect, ast and dis) and :class:`MachineOptions` (a dataclass)
are imported where snapshots are taken and restored instead.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from statewright._compat import StrEnum
from statewright._core import MachineCore, statewright_logger
from statewright._errors import Conflict, SnapshotError, StatewrightError, UnknownInstance

if TYPE_CHECKING:
    from statewright._options import MachineOptions
    from statewright._store_protocol import Store

__all__ = ["SNAPSHOT_FORMAT", "Snapshot", "SnapshotMixin", "parse_json"]

SNAPSHOT_FORMAT: Final = "statewright.snapshot/1"

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")


def parse_json(text: str | bytes) -> dict[str, Any]:
    """Decode snapshot text; truncated or non-object input raises :class:`SnapshotError`."""
    import json  # here, not at the top: only snapshots need it, and it costs ~2 ms to import

    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"snapshot is not valid JSON (corrupted or truncated): {exc}") from exc
    if not isinstance(data, dict):
        raise SnapshotError(f"snapshot must be a JSON object, not {type(data).__name__}")
    return data


def _type_name(cls: type[Any]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _loaded_type(name: str) -> type[Any] | None:
    """Find a class by ``module:qualname`` among *already imported* modules (never imports)."""
    module_name, _, qualname = name.partition(":")
    obj: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None


class SnapshotMixin(MachineCore[S, E, C]):
    """``snapshot``/``restore``/``load`` for both machine flavours."""

    def snapshot(self: M) -> Snapshot[M]:
        """The instance as JSON-compatible data (see the module docstring for the contents)."""
        with self._read_lock:
            return Snapshot(self._snapshot_locked())

    def _snapshot_locked(self) -> dict[str, Any]:
        spec = self._spec_table.spec
        context, context_type = self._encode_context()
        history = []
        for record in self.history:
            item = record.as_dict()
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

    def _encode_context(self) -> tuple[Any, str | None]:
        codec = self._options.codec
        context: Any = self._context
        if codec is not None:
            return codec.encode(context), None
        import dataclasses  # here, not at the top: see the module docstring

        if dataclasses.is_dataclass(context) and not isinstance(context, type):
            return dataclasses.asdict(context), _type_name(type(context))
        import json  # see parse_json

        try:
            json.dumps(context)
        except (TypeError, ValueError) as exc:
            raise SnapshotError(
                f"context of type {type(context).__name__} is not JSON-compatible; "
                "pass MachineOptions(codec=...) to encode it"
            ) from exc
        return context, None

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

        ``context`` overrides the stored context. Raises :class:`SnapshotError` for another
        machine, a newer or unmigratable spec version, or corrupted data.
        """
        import dataclasses  # see _encode_context

        from statewright._options import MachineOptions

        data = parse_json(snapshot) if isinstance(snapshot, (str, bytes)) else dict(snapshot)
        table = cls._table()
        spec = table.spec
        opts = options if options is not None else MachineOptions()
        written_by = data.get("spec_version")
        data = _check_and_migrate(data, spec.name, spec.version, opts)
        if written_by == spec.version and data.get("spec_hash") != spec.spec_hash:
            cls._log_hash_mismatch(data, spec.name)
        try:
            if opts.instance_id is None and isinstance(data.get("instance_id"), str):
                opts = dataclasses.replace(opts, instance_id=data["instance_id"])
            if context is None:
                context = _decode_context(data.get("context"), data.get("context_type"), opts)
            states, events = table.states_by_value, table.events_by_value
            state = states[data["state"]]
            previous = None if data.get("previous") is None else states[data["previous"]]
            counts = [(states[s], events[e], states[t], int(n)) for s, e, t, n in data["counts"]]
            history = [
                (
                    states[h["from"]],
                    events[h["event"]],
                    states[h["to"]],
                    float(h["epoch"]),
                    dict(h["payload"]),
                    h.get("error"),
                )
                for h in data["history"]
            ]
            revision = int(data["revision"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SnapshotError(
                f"corrupted {spec.name} snapshot: {type(exc).__name__}: {exc}"
            ) from exc
        machine = cls(context, handlers, options=opts)
        try:
            machine._restore_state(state, previous, counts, history, revision)
        except ValueError as exc:
            raise SnapshotError(f"corrupted {spec.name} snapshot: {exc}") from exc
        if machine.total_transitions != data.get("total_transitions", machine.total_transitions):
            raise SnapshotError(f"corrupted {spec.name} snapshot: counters disagree with total")
        return machine

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
        import dataclasses  # see _encode_context

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
        try:
            revision = store.save(self._instance_id, self.snapshot(), self._revision)
        except Conflict as conflict:
            self._mark_stale(conflict)
            raise
        self._revision = revision
        return revision


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


def _check_and_migrate(
    data: dict[str, Any], name: str, version: int, options: MachineOptions
) -> dict[str, Any]:
    if data.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError(f"not a statewright snapshot (format {data.get('format')!r})")
    if data.get("machine") != name:
        raise SnapshotError(f"snapshot is for machine {data.get('machine')!r}, not {name!r}")
    found = data.get("spec_version")
    if not isinstance(found, int):
        raise SnapshotError(f"corrupted {name} snapshot: spec_version is {found!r}")
    if found > version:
        raise SnapshotError(
            f"{name} snapshot was written by spec version {found}, newer than this machine's "
            f"version {version}; upgrade the generated module"
        )
    while found < version:
        migrate = options.migrations.get(found)
        if migrate is None:
            raise SnapshotError(
                f"{name} snapshot has spec version {found} but the machine is version {version} "
                f"and no migration from {found} is configured (MachineOptions(migrations=...))"
            )
        data = migrate(dict(data))
        data["spec_version"] = found = found + 1
    return data


def _decode_context(data: Any, type_name: Any, options: MachineOptions) -> Any:
    if options.codec is not None:
        return options.codec.decode(data)
    cls = options.context_type
    if cls is None and isinstance(type_name, str):
        cls = _loaded_type(type_name)
        if cls is None:
            raise SnapshotError(
                f"context class {type_name} is not importable from loaded modules; "
                "pass MachineOptions(context_type=...) or restore(..., context=...)"
            )
    import dataclasses  # see SnapshotMixin._encode_context

    if cls is not None and dataclasses.is_dataclass(cls):
        if not isinstance(data, dict):
            raise SnapshotError(f"context for {cls.__name__} must be an object, not {data!r}")
        return cls(**data)
    return data

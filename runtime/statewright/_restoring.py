"""Restoring a machine: a snapshot checked for the machine's class (or, one the runtime wrote
itself, converted), then the machine built from it without entering its initial configuration.

:meth:`~statewright._persistence.PersistentMachine.restore` and ``load`` come here. This module
is imported by the first of them (it imports the decoders, json and dataclasses, which a machine
that never restores does not need), and imports what a restore runs at its top, not in its
functions: a timer driver loads an instance per timer it fires, and on Python 3.10 and 3.11 an
import inside a function costs one to two microseconds at every call (``from m import f`` looks
for ``m.__path__``, whose absence formats an error message first).

Restoring builds an instance as unpickling does: with ``cls.__new__``, handing the decoded
snapshot to the flavour's ``_construct``, which sets every field and installs the snapshot
instead of running entry actions (a generated ``__init__`` would enter the chart).
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final

from statewright._chart_state import Message
from statewright._context import decode_context
from statewright._errors import SnapshotError, UnknownInstance
from statewright._listeners import default_options
from statewright._snapshot import SNAPSHOT_FORMAT, own_store
from statewright._snapshot_own import decode_own
from statewright._snapshot_versions import (
    accept_fingerprint,
    migrate,
    prepare,
    same_text,
    spec_changes,
    take_spec_changes,
)

if TYPE_CHECKING:
    from statewright._options import MachineOptions
    from statewright._snapshot_decode import Decoded
    from statewright._spec import MachineSpec
    from statewright._stores.protocol import Store

__all__ = ["decode", "load", "restore"]


def load(
    cls: Any,
    store: Store,
    instance_id: str,
    handlers: object | None,
    options: MachineOptions | None,
    context: Any,
) -> Any:
    """``cls.load``: the instance ``instance_id`` of ``store`` restored (it then saves back to
    ``store``). A built-in store says whether its checksum vouched for what it read (the trust
    rule: ``statewright._snapshot.own_store``); any other store's snapshot gets every check."""
    own = False
    if own_store(type(store), "load", "_load"):
        found = store._load(instance_id)  # type: ignore[attr-defined]  # checked just above
        snapshot, own = (None, False) if found is None else found
    else:
        snapshot = store.load(instance_id)
    if snapshot is None:
        raise UnknownInstance(instance_id, f"store {store!r}")
    stored_id = snapshot.get("instance_id")
    if isinstance(stored_id, str) and stored_id != instance_id:
        raise SnapshotError(
            f"the snapshot stored as {instance_id!r} is the one of {stored_id!r}",
            field="instance_id",
        )
    opts = (options if options is not None else default_options())._bound(store, instance_id)
    machine = restore(cls, snapshot, handlers, opts, context, own)
    if snapshot.get("spec_version") == cls.spec.version:  # else migrated, its records too:
        machine._synced_store, machine._synced_total = store, machine.total_transitions
    return machine  # (so its next save replaces the stored records)


def restore(
    cls: Any,
    snapshot: object,
    handlers: object,
    opts: MachineOptions,
    context: Any,
    own: bool = False,
) -> Any:
    """``cls.restore``; ``own``: a snapshot the runtime wrote itself, which a built-in store
    read back under a checksum that matches."""
    decoded = decode(cls, snapshot, opts, own=own)
    if opts.instance_id is None:
        import dataclasses  # imported by statewright._context already

        opts = dataclasses.replace(opts, instance_id=decoded.instance_id)
    if context is None:
        context = decode_context(decoded.context, decoded.context_type, opts)
    machine = cls.__new__(cls)  # as unpickling does: __init__ would enter the chart
    machine._construct(context, handlers, opts, decoded)
    changes, came_from = decoded.spec_changes
    spec = cls._classdata()[0].spec
    if changes or came_from[1] != spec.spec_hash:  # else none recorded, and none to record
        changed = spec_changes(changes, came_from, spec, machine.total_transitions, machine._clock)
        if changed:
            machine._spec_changes = changed
    return machine


def decode(
    cls: Any, snapshot: object, options: MachineOptions, child: bool = False, own: bool = False
) -> Decoded:
    """A snapshot checked for ``cls`` (a ``child``'s: embedded in its parent's), its children's
    with it (:mod:`statewright._tree_snapshot`): its fingerprint accepted or migrated from an
    older version (:mod:`statewright._snapshot_versions`); ``own``: the runtime's own (see
    :func:`restore`), JSON data already."""
    table, engine = cls._classdata()
    spec = table.spec
    current = _of_this_spec(snapshot, spec) if own else None
    if current is not None:  # nothing to upgrade, accept or migrate
        data = dict(current) if cls._invoking else current  # its children are popped
        changes: list[dict[str, Any]] = []
        came_from: tuple[int, Any] = (spec.version, spec.spec_hash)
    else:
        data, changes = take_spec_changes(prepare(snapshot, spec.name, spec.version, own))
        data = same_text(data, spec)
        came_from = (data["spec_version"], data.get("spec_hash"))
        data = accept_fingerprint(data, spec, options.compatible_fingerprints)
        data = migrate(data, spec.name, spec.version, options)
    children = data.pop("children", None) if cls._invoking else None
    # the runtime's own, of this very spec (nothing migrated): converted, not checked
    own = own and came_from == (spec.version, spec.spec_hash)
    if own:  # a chart's engine holds its chart's tables
        decoded = decode_own(data, table, None if spec.chart is None else engine)
    else:
        decoded = engine.decode(data, table)
    decoded.spec_changes = (changes, came_from)
    decoded.children = ()
    chart = decoded.chart
    # a tree of machines, or messages between machines among the timers to check against it
    if chart is not None and (
        cls._invoking or child or Message in map(type, chart[0].timers.values())
    ):
        from statewright._tree_snapshot import decode_tree

        decoded.children = decode_tree(cls, decoded, children, options, child, own)
    return decoded


def _of_this_spec(snapshot: object, spec: MachineSpec[Any, Any]) -> dict[str, Any] | None:
    """``snapshot`` (the runtime's own) when it is a dict of this format, machine, spec version
    and fingerprint that records no spec change, which :func:`decode`'s preparation
    (statewright._snapshot_versions) would leave as it is; else None."""
    if type(snapshot) is not dict or "spec_changes" in snapshot:
        return None
    try:
        found = _HEADER(snapshot)
    except KeyError:
        return None
    current = (SNAPSHOT_FORMAT, spec.name, spec.version, spec.spec_hash)
    return snapshot if found == current and type(found[2]) is int else None


#: The fields :func:`_of_this_spec` compares, read in one call.
_HEADER: Final = itemgetter("format", "machine", "spec_version", "spec_hash")

"""Every knob of a machine in one frozen value, so generated constructors never change shape."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Final, Protocol

from statewright._payloads import PayloadCodec
from statewright._stores.protocol import Store, is_instance_id

__all__ = ["ContextCodec", "MachineOptions", "Migration"]

#: Upgrades a snapshot dict written by spec version ``v`` to version ``v + 1``.
Migration = Callable[[dict[str, Any]], dict[str, Any]]


class ContextCodec(Protocol):
    """Turns a machine's context into JSON-compatible data and back (used by snapshots)."""

    def encode(self, context: Any, /) -> Any: ...

    def decode(self, data: Any, /) -> Any: ...


@dataclass(frozen=True, slots=True)
class MachineOptions:
    """Configuration of one machine instance. All fields have safe defaults."""

    #: Keep at most this many history records (oldest dropped); ``None`` keeps all of them.
    #: Bounded by default: an ever-growing history makes every garbage-collector pass slower.
    history_limit: int | None = 1000
    #: Record history at all. Statistics and event ids are kept either way.
    record_history: bool = True
    #: Persist snapshots here on checkpoint transitions and on :meth:`Machine.save`.
    store: Store | None = None
    #: Key of this instance in stores and registries; 32 random hex digits when not given.
    instance_id: str | None = None
    #: Returns seconds since the epoch (UTC) for history timestamps; inject a fake in tests.
    clock: Callable[[], float] = time.time
    #: Where transitions (INFO) and rejections (WARNING) are logged; ``statewright`` by default.
    logger: logging.Logger | None = None
    #: Guard each transition with a per-instance lock. Only turn off for instances that a
    #: single thread owns (or AsyncMachine, which always uses an asyncio.Lock): it saves the
    #: lock round trip, 10-15% of a trivial ``send`` (see docs/performance.md).
    thread_safe: bool = True
    #: Log every applied transition at INFO (rejections are always logged at WARNING).
    log_transitions: bool = True
    #: Encodes the context in snapshots; dataclasses and plain JSON values need none.
    codec: ContextCodec | None = None
    #: The context class to rebuild on restore when it is a dataclass (``cls(**data)``).
    context_type: type[Any] | None = None
    #: ``migrations[v]`` upgrades a snapshot of spec version ``v`` to ``v + 1``.
    migrations: Mapping[int, Migration] = field(default_factory=dict)
    #: Fingerprints (``spec_hash``) of other specs whose snapshots this machine restores as they
    #: are, whatever their version: for a change ``statewright diff`` classified compatible.
    #: Any other spec's snapshot at this machine's version is refused (bump the version and
    #: migrate instead). Kept as a frozenset.
    compatible_fingerprints: Collection[str] = frozenset()
    #: Decoders for ``[imports]`` payload types at the boundary (``send_external``), by
    #: ``"module.Name"``; Decimal, datetime, date and UUID have built-in ones.
    payload_codecs: Mapping[str, PayloadCodec] = field(default_factory=dict)
    #: How many idempotency keys of applied ``send_once`` calls the machine keeps (in its
    #: snapshot): a duplicate that arrives after this many newer keyed sends is applied again.
    #: Every save writes them, so a bigger window costs a little on each save; 0 keeps none.
    idempotency_window: int = 100
    #: The most history records of each child machine (a state's ``invoke``) its parent's
    #: snapshot keeps: a child's snapshot is part of its parent's, which every save rewrites
    #: (while it runs, a child keeps ``history_limit`` records, as its parent does).
    child_history_limit: int = 20

    def __post_init__(self) -> None:
        if self.history_limit is not None and self.history_limit < 0:
            raise ValueError(f"history_limit must be >= 0 or None, not {self.history_limit}")
        if type(self.idempotency_window) is not int or self.idempotency_window < 0:
            raise ValueError(
                f"idempotency_window must be an integer >= 0, not {self.idempotency_window!r}"
            )
        if type(self.child_history_limit) is not int or self.child_history_limit < 0:
            raise ValueError(
                f"child_history_limit must be an integer >= 0, not {self.child_history_limit!r}"
            )
        fingerprints = self.compatible_fingerprints
        if type(fingerprints) is not frozenset or fingerprints:  # the default costs nothing
            if (
                isinstance(fingerprints, str)
                or not isinstance(fingerprints, Collection)
                or not all(type(fingerprint) is str for fingerprint in fingerprints)
            ):
                raise ValueError(
                    "compatible_fingerprints must be a collection of spec_hash strings, not "
                    f"{fingerprints!r:.80}"
                )
            object.__setattr__(self, "compatible_fingerprints", frozenset(fingerprints))
        if self.instance_id is not None:
            _check_id(self.instance_id)

    def _bound(self, store: Store, instance_id: str) -> MachineOptions:
        """These options with ``store`` and ``instance_id``: ``dataclasses.replace`` without
        building and checking every other field again (a load does this once per instance):
        every field read at once, and each written through its slot's own setter (what
        ``object.__setattr__`` finds after a lookup)."""
        _check_id(instance_id)
        bound = object.__new__(MachineOptions)
        for set_field, value in zip(_SETTERS, _VALUES(self), strict=True):
            set_field(bound, value)
        _SET_STORE(bound, store)
        _SET_INSTANCE_ID(bound, instance_id)
        return bound


#: Every field of :class:`MachineOptions`, in order; all of them read in one call; each slot's
#: setter (``slot.__set__``).
_FIELDS: tuple[str, ...] = tuple(MachineOptions.__dataclass_fields__)
_VALUES: Final = attrgetter(*_FIELDS)
_SETTERS: Final = tuple(getattr(MachineOptions, name).__set__ for name in _FIELDS)
_SET_STORE: Final = _SETTERS[_FIELDS.index("store")]
_SET_INSTANCE_ID: Final = _SETTERS[_FIELDS.index("instance_id")]


def _check_id(instance_id: str) -> None:
    if not is_instance_id(instance_id):
        raise ValueError(
            f"instance_id {instance_id!r:.80} is no valid id: use 1-200 letters, "
            "digits, '.', '_' or '-', starting with a letter or digit"
        )

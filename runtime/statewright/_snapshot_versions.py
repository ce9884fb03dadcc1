"""Which snapshots a machine accepts, and how older ones are brought up to date.

Two kinds of versions: the snapshot *format* (``statewright.snapshot/3``; what the runtime
writes) and the *spec version* (the machine's; what the user's migrations upgrade). Format 1
snapshots, written by statewright 0.2, had no ``idempotency_keys`` and no ``lateness`` in their
records; they are upgraded by adding an empty key list (their records need nothing). Format 2
records had no ``spec_hash``: they keep none (which spec made them is not known). Every step's
result is checked by the strict decoder (:mod:`statewright._snapshot_decode`) like the input.

Fingerprints: a snapshot names the spec it was written under by its ``spec_hash``. One of the
machine's own version but another fingerprint was written by another spec that kept the version
(:func:`accept_fingerprint`): refused, unless the user vouched for that spec
(``MachineOptions.compatible_fingerprints``, for a change ``statewright diff`` classified
compatible), and then restored as it is, a data field added since given its initial value.

Spec changes: a snapshot restored under another spec than its own (migrated, or of a compatible
fingerprint) is recorded in the instance's ``spec_changes`` (:func:`spec_changes`), which its
snapshots keep (the newest :data:`MAX_SPEC_CHANGES`): from which version and fingerprint to
which, after how many transitions, and when. The decoder never sees them
(:func:`take_spec_changes` checks them first), and neither do the user's migrations.

Statecharts' ``after`` timers were once named by position (``after.<state>.<n>``, the *n*-th
timer of the state), which a spec edit shifts; they are now named by what the spec says of them
(``after.<state>.30s``, ``after.<state>.<id>``). A snapshot with positional names saved by the
very spec the machine was compiled from (same ``spec_hash``) has them renamed, in its timers,
counts and history (:func:`stable_timer_ids`); saved by another spec, position *n* may be
another timer now, so nothing is renamed and the decoder refuses the unknown name.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, Final

from statewright._clock import is_epoch
from statewright._errors import SnapshotError
from statewright._jsondata import json_data, parse_json_text
from statewright._snapshot import SNAPSHOT_FORMAT
from statewright._snapshot_decode import MAX_COUNT, integer

if TYPE_CHECKING:
    from statewright._chart_tables import ChartTables
    from statewright._options import MachineOptions
    from statewright._spec import MachineSpec
    from statewright._table import Table

__all__ = [
    "FORMAT_1",
    "FORMAT_2",
    "MAX_SPEC_CHANGES",
    "accept_fingerprint",
    "migrate",
    "prepare",
    "spec_changes",
    "stable_timer_ids",
    "take_spec_changes",
    "upgrade_format_1",
]

FORMAT_1: Final = "statewright.snapshot/1"
FORMAT_2: Final = "statewright.snapshot/2"
#: The spec changes a snapshot keeps, the newest.
MAX_SPEC_CHANGES: Final = 100
SPEC_CHANGE_KEYS: Final = frozenset(
    {"from_version", "to_version", "from_spec", "to_spec", "event_id", "epoch"}
)


def prepare(snapshot: object, name: str, version: int, own: bool = False) -> dict[str, Any]:
    """Checked JSON data of the right format (format 1 upgraded), machine and a spec version
    not above ``version``; the user's migrations then see the current format. ``own``: a dict
    the runtime wrote itself and a store read back under its checksum, JSON data already
    (``statewright._snapshot.own_store``): copied, not walked."""
    data: Any
    if own and type(snapshot) is dict:
        data = dict(snapshot)
    elif isinstance(snapshot, (str, bytes, bytearray)):
        data = parse_json_text(snapshot, "snapshot")
    elif isinstance(snapshot, Mapping):
        data = json_data(dict(snapshot))
    else:
        raise SnapshotError(f"a snapshot is a dict or JSON text, not {type(snapshot).__name__}")
    if type(data) is not dict:
        raise SnapshotError(f"a snapshot is a JSON object, not {type(data).__name__}")
    if data.get("format") == FORMAT_1:
        data = upgrade_format_1(data)
    if data.get("format") == FORMAT_2:
        data = dict(data, format=SNAPSHOT_FORMAT)  # records without spec_hash are format 3's too
    checked: dict[str, Any] = data
    if data.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError(
            f"not a statewright snapshot ({data.get('format')!r}, expected {SNAPSHOT_FORMAT!r})",
            field="format",
        )
    if data.get("machine") != name:
        raise SnapshotError(
            f"the snapshot is for {data.get('machine')!r}, not {name!r}", field="machine"
        )
    found = integer(data, "spec_version", "spec_version", 1, MAX_COUNT)
    if found > version:
        raise SnapshotError(
            f"{name} snapshot was written by spec version {found}, newer than this machine's "
            f"version {version}; upgrade the generated module",
            field="spec_version",
        )
    return checked


def same_text(data: dict[str, Any], spec: MachineSpec[Any, Any]) -> dict[str, Any]:
    """``data`` with this spec's fingerprint where it carries the sha256 of this spec's very
    text: the fingerprint statewright wrote before ``spec_hash`` hashed the spec's meaning."""
    found = data.get("spec_hash")
    if found is not None and found != spec.spec_hash and found == spec.source_sha256:
        return dict(data, spec_hash=spec.spec_hash)
    return data


def accept_fingerprint(
    data: dict[str, Any], spec: MachineSpec[Any, Any], compatible: Collection[str]
) -> dict[str, Any]:
    """``data`` if it was written under this spec (its fingerprint) or an older version (for the
    migrations); as this version's, a data field added since given its initial value, if its
    fingerprint is a ``compatible`` one; else :class:`SnapshotError` (see the module)."""
    found = data.get("spec_hash")
    if type(found) is not str or found == spec.spec_hash:
        return data  # a spec_hash that is no string: the decoder names it
    if found in compatible:
        data = dict(data, spec_version=spec.version)
        if spec.data is not None and type(data.get("data")) is dict:
            from statewright._data_values import encode_data

            initial = encode_data(spec.data, spec.data.factory())
            data["data"] = {**initial, **data["data"]}
        return data
    if data["spec_version"] < spec.version:
        return data
    raise SnapshotError(
        f"{spec.name} snapshot was written under spec fingerprint {found:.80}, but this machine's "
        f"spec is {spec.spec_hash} at the same version {spec.version}: bump the spec version "
        "and migrate (MachineOptions(migrations=...)), or, for a change `statewright diff` "
        f"classifies compatible, restore it with MachineOptions(compatible_fingerprints="
        f"{{{found!r:.80}}})",
        field="spec_hash",
    )


def take_spec_changes(data: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``data`` without its ``spec_changes``, and them, checked: at most
    :data:`MAX_SPEC_CHANGES` objects of exactly :data:`SPEC_CHANGE_KEYS`, versions from 1 up
    (never lowered), fingerprints strings, event ids counters, epochs in the clock's range."""
    if "spec_changes" not in data:
        return data, []
    data = dict(data)
    value = data.pop("spec_changes")
    if type(value) is not list or not value or len(value) > MAX_SPEC_CHANGES:
        raise SnapshotError(
            f"expected an array of 1 to {MAX_SPEC_CHANGES} changes", field="spec_changes"
        )
    for i, change in enumerate(value):
        field = f"spec_changes[{i}]"
        if type(change) is not dict or change.keys() != SPEC_CHANGE_KEYS:
            raise SnapshotError(
                f"expected the keys {', '.join(sorted(SPEC_CHANGE_KEYS))}", field=field
            )
        low = integer(change, "from_version", f"{field}.from_version", 1, MAX_COUNT)
        integer(change, "to_version", f"{field}.to_version", low, MAX_COUNT)
        integer(change, "event_id", f"{field}.event_id", 0, MAX_COUNT)
        for key in ("from_spec", "to_spec"):
            if type(change[key]) is not str or not 0 < len(change[key]) <= 200:
                raise SnapshotError("expected a spec fingerprint", field=f"{field}.{key}")
        if not is_epoch(change["epoch"]):
            raise SnapshotError("expected seconds since the epoch", field=f"{field}.epoch")
    return data, value


def spec_changes(
    kept: list[dict[str, Any]],
    came_from: tuple[int, Any],
    spec: MachineSpec[Any, Any],
    event_id: int,
    clock: Callable[[], float],
) -> tuple[dict[str, Any], ...]:
    """The spec changes of an instance restored from a snapshot of spec version and fingerprint
    ``came_from`` (that kept ``kept``), after ``event_id`` transitions: one more, at the time
    ``clock`` says (asked only then), when the fingerprint is another spec's."""
    version, fingerprint = came_from
    if fingerprint == spec.spec_hash or type(fingerprint) is not str:
        return tuple(kept)
    change = {
        "from_version": version,
        "to_version": spec.version,
        "from_spec": fingerprint,
        "to_spec": spec.spec_hash,
        "event_id": event_id,
        "epoch": clock(),
    }
    return (*kept, change)[-MAX_SPEC_CHANGES:]


def migrate(
    data: dict[str, Any], name: str, version: int, options: MachineOptions
) -> dict[str, Any]:
    """Upgrade step by step with ``options.migrations``; each result is checked again."""
    found: int = data["spec_version"]
    while found < version:
        step = options.migrations.get(found)
        if step is None:
            raise SnapshotError(
                f"{name} snapshot has spec version {found} but the machine is version {version} "
                f"and no migration from {found} is configured (MachineOptions(migrations=...))",
                field="spec_version",
            )
        try:
            result = step(dict(data))
        except Exception as exc:
            raise SnapshotError(
                f"the migration from spec version {found} raised {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(result, dict):
            raise SnapshotError(
                f"the migration from spec version {found} returned "
                f"{type(result).__name__}, not a dict"
            )
        data = json_data(result)
        data["spec_version"] = found = found + 1
    return data


def upgrade_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """A format 1 snapshot as format 2: no idempotency key had been applied yet (a field that
    is there already is left for the decoder to refuse)."""
    upgraded = dict(data, format=SNAPSHOT_FORMAT)
    upgraded.setdefault("idempotency_keys", [])
    return upgraded


def stable_timer_ids(data: dict[str, Any], chart: ChartTables, table: Table) -> dict[str, Any]:
    """``data`` with positional ``after`` timer names (``after.<state>.<n>``) renamed to the
    same timers' names, when it was saved by this spec (see the module); else ``data`` as it
    is. The caller's snapshot is not changed."""
    if data.get("spec_hash") != table.spec.spec_hash or not _positional(data):
        return data
    renamed = {
        f"after.{node.name}.{position}": str(timer.id)
        for node in chart.chart.nodes
        for position, timer in enumerate(node.timers)
        if f"after.{node.name}.{position}" not in table.events_by_value
    }
    if not renamed:
        return data

    def name(value: Any) -> Any:
        return renamed.get(value, value) if type(value) is str else value

    data = dict(data)
    if type(data.get("counts")) is list:
        data["counts"] = [
            [entry[0], name(entry[1]), *entry[2:]]
            if type(entry) is list and len(entry) > 1
            else entry
            for entry in data["counts"]
        ]
    if type(data.get("history")) is list:
        data["history"] = [
            dict(record, event=name(record["event"]))
            if type(record) is dict and "event" in record
            else record
            for record in data["history"]
        ]
    chart_data = data.get("chart")
    if type(chart_data) is dict and type(chart_data.get("timers")) is list:
        data["chart"] = dict(
            chart_data,
            timers=[
                dict(timer, id=name(timer.get("id")), event=name(timer.get("event")))
                if type(timer) is dict and {"id", "event"} <= timer.keys()
                else timer
                for timer in chart_data["timers"]
            ],
        )
    return data


def _positional(data: dict[str, Any]) -> bool:
    """Whether ``data`` names a timer by position anywhere: in its counts (every event a
    history record names is counted) or its timers. Most snapshots do not, and are not copied."""
    counts = data.get("counts")
    if type(counts) is list:
        for entry in counts:
            if type(entry) is list and entry[1:] and _by_position(entry[1]):
                return True
    chart = data.get("chart")
    timers = chart.get("timers") if type(chart) is dict else None
    return type(timers) is list and any(
        type(timer) is dict and _by_position(timer.get("id")) for timer in timers
    )


def _by_position(name: Any) -> bool:
    """Whether ``name`` is a timer named by its position (``after.<state>.<n>``)."""
    return type(name) is str and name.startswith("after.") and name.rpartition(".")[2].isdigit()

"""Which snapshots a machine accepts, and how older ones are brought up to date.

Two kinds of versions: the snapshot *format* (``statewright.snapshot/2``; what the runtime
writes) and the *spec version* (the machine's; what the user's migrations upgrade). Format 1
snapshots, written by statewright 0.2, had no ``idempotency_keys`` and no ``lateness`` in their
records; they are upgraded by adding an empty key list (their records need nothing). Every step's
result is checked by the strict decoder (:mod:`statewright._snapshot_decode`) like the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from statewright._errors import SnapshotError
from statewright._jsondata import json_data, parse_json_text
from statewright._snapshot import SNAPSHOT_FORMAT
from statewright._snapshot_decode import MAX_COUNT, integer

if TYPE_CHECKING:
    from statewright._options import MachineOptions

__all__ = ["FORMAT_1", "migrate", "prepare", "upgrade_format_1"]

FORMAT_1: Final = "statewright.snapshot/1"


def prepare(snapshot: object, name: str, version: int) -> dict[str, Any]:
    """Checked JSON data of the right format (format 1 upgraded), machine and a spec version
    not above ``version``; the user's migrations then see the current format."""
    data: Any
    if isinstance(snapshot, (str, bytes, bytearray)):
        data = parse_json_text(snapshot, "snapshot")
    elif isinstance(snapshot, Mapping):
        data = json_data(dict(snapshot))
    else:
        raise SnapshotError(f"a snapshot is a dict or JSON text, not {type(snapshot).__name__}")
    if type(data) is not dict:
        raise SnapshotError(f"a snapshot is a JSON object, not {type(data).__name__}")
    if data.get("format") == FORMAT_1:
        data = upgrade_format_1(data)
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

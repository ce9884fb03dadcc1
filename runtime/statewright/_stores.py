"""Where snapshots live: one small interface, an in-memory and an atomic JSON-file store.

Every store does optimistic concurrency on a per-instance integer revision: ``save`` names the
revision the writer started from (0 for "new instance") and fails with :class:`Conflict`, writing
nothing, when the stored revision differs. The stored snapshot's ``"revision"`` is the new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from statewright._errors import Conflict, SnapshotError, StoreError
from statewright._store_protocol import Store

__all__ = ["JsonFileStore", "MemoryStore", "Store", "check_instance_id"]

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def check_instance_id(instance_id: str) -> str:
    """Instance ids become file names and keys: letters, digits, ``._-``, at most 200 chars."""
    if not isinstance(instance_id, str) or not _SAFE_ID.fullmatch(instance_id):
        raise StoreError(
            f"invalid instance id {instance_id!r}: use 1-200 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return instance_id


def _encode(snapshot: Mapping[str, Any], revision: int) -> str:
    data = dict(snapshot)
    data["revision"] = revision
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _decode(text: str | bytes, where: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{where}: stored snapshot is corrupted: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("revision"), int):
        raise SnapshotError(f"{where}: stored snapshot has no integer revision")
    return data


class MemoryStore:
    """Process-local store (tests, caches). Keeps JSON text so callers never share objects."""

    def __init__(self) -> None:
        self._data: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        with self._lock:
            item = self._data.get(instance_id)
        return None if item is None else _decode(item[1], f"memory:{instance_id}")

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        check_instance_id(instance_id)  # same ids everywhere, so switching stores is safe
        with self._lock:
            item = self._data.get(instance_id)
            actual = None if item is None else item[0]
            if (actual or 0) != expected_revision:
                raise Conflict(instance_id, expected_revision, actual)
            revision = expected_revision + 1
            self._data[instance_id] = (revision, _encode(snapshot, revision))
            return revision

    def delete(self, instance_id: str, /) -> bool:
        with self._lock:
            return self._data.pop(instance_id, None) is not None

    def list_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._data)

    def __repr__(self) -> str:
        return f"MemoryStore({len(self._data)} instances)"


class JsonFileStore:
    """One ``<instance_id>.json`` file per instance, replaced atomically.

    A save writes a temporary file in the same directory, fsyncs it, ``os.replace``-s it over the
    old file and fsyncs the directory, so a crash at any point leaves either the old or the new
    complete snapshot. The revision check and the replace run under an ``fcntl`` lock on
    ``.lock`` so concurrent processes cannot both win the same revision.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def _path(self, instance_id: str) -> Path:
        return self.directory / f"{check_instance_id(instance_id)}.json"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            if sys.platform == "win32":  # pragma: no cover - no flock: only the thread lock
                yield
                return
            import fcntl

            fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing releases the flock

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        path = self._path(instance_id)
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc}") from exc
        return _decode(text, str(path))

    def _revision(self, instance_id: str) -> int | None:
        snapshot = self.load(instance_id)
        return None if snapshot is None else int(snapshot["revision"])

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        path = self._path(instance_id)
        with self._locked():
            actual = self._revision(instance_id)
            if (actual or 0) != expected_revision:
                raise Conflict(instance_id, expected_revision, actual)
            revision = expected_revision + 1
            data = _encode(snapshot, revision).encode()
            fd, tmp = tempfile.mkstemp(prefix=f".{instance_id}.", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
            self._fsync_directory()
            return revision

    def _fsync_directory(self) -> None:
        try:
            fd = os.open(self.directory, os.O_RDONLY)
        except OSError:  # pragma: no cover - platforms without directory fds
            return
        try:
            os.fsync(fd)
        except OSError:  # pragma: no cover - some filesystems refuse fsync on directories
            pass
        finally:
            os.close(fd)

    def delete(self, instance_id: str, /) -> bool:
        with self._locked():
            try:
                self._path(instance_id).unlink()
            except FileNotFoundError:
                return False
            self._fsync_directory()
            return True

    def list_ids(self) -> list[str]:
        return sorted(p.stem for p in self.directory.glob("*.json") if not p.name.startswith("."))

    def __repr__(self) -> str:
        return f"JsonFileStore({str(self.directory)!r})"

"""Where snapshots live: one small interface, an in-memory and an atomic JSON-file store.

Every store does optimistic concurrency on a per-instance integer revision: ``save`` names the
revision the writer started from (0 for "new instance") and fails with :class:`Conflict`, writing
nothing, when the stored revision differs. The stored snapshot's ``"revision"`` is the new one.

Failures are sorted in two kinds. The store could not do its job (disk full, read-only, permission
denied, an invalid instance id or revision): :class:`StoreError`. What is (or would be) stored is
wrong (not JSON data, truncated, a flipped bit): :class:`SnapshotError`. A stored snapshot carries
a SHA-256 checksum of its canonical JSON text (sorted keys, no spaces): in the file as the
top-level ``"checksum"`` key (which stores reserve), in SQLite in a column. Snapshots stored
before checksums existed have none; they load unverified until they are saved again.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from statewright._errors import Conflict, SnapshotError, StoreError
from statewright._jsondata import json_data, parse_json_text
from statewright._store_protocol import (
    INSTANCE_ID_PATTERN,
    Store,
    check_instance_id,
    is_instance_id,
)

__all__ = [
    "CHECKSUM_KEY",
    "MAX_REVISION",
    "JsonFileStore",
    "MemoryStore",
    "Store",
    "check_instance_id",
    "checksum",
    "encode_snapshot",
    "new_revision",
    "stored_snapshot",
]

#: SQLite's largest integer: the last revision any store can write.
MAX_REVISION: Final = 2**63 - 1
CHECKSUM_KEY: Final = "checksum"


def new_revision(instance_id: str, expected_revision: int) -> int:
    """``expected_revision + 1``, or :class:`StoreError` for an id or revision no store takes."""
    check_instance_id(instance_id)  # same ids everywhere, so switching stores is safe
    if type(expected_revision) is not int or not 0 <= expected_revision < MAX_REVISION:
        raise StoreError(
            f"instance {instance_id!r}: expected_revision must be an integer from 0 to "
            f"{MAX_REVISION - 1}, not {expected_revision!r:.40}"
        )
    return expected_revision + 1


def checksum(text: str | bytes) -> str:
    import hashlib  # here, not at the top: loading OpenSSL costs a few milliseconds

    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def encode_snapshot(snapshot: Mapping[str, Any], revision: int) -> str:
    """The canonical JSON text of ``snapshot`` with ``revision``; :class:`SnapshotError` if it is
    no JSON data (checked before anything is written)."""
    if not isinstance(snapshot, Mapping):
        raise SnapshotError(f"a snapshot is a mapping, not {type(snapshot).__name__}")
    data = json_data(dict(snapshot))
    if CHECKSUM_KEY in data:
        raise SnapshotError("is reserved by the stores", field=CHECKSUM_KEY)
    data["revision"] = revision
    return json.dumps(data, separators=(",", ":"), sort_keys=True, allow_nan=False)


def stored_snapshot(
    text: str | bytes, where: str, column_checksum: str | None = None
) -> dict[str, Any]:
    """A stored snapshot, verified against its checksum when it has one.

    ``column_checksum`` is SQLite's (over ``text`` as it is); the files and the memory store keep
    theirs inside the text (over the canonical text without it).
    """
    data = parse_json_text(text, where)
    if type(data) is not dict:
        raise SnapshotError(f"{where}: the stored snapshot is no JSON object")
    embedded = data.pop(CHECKSUM_KEY, None)
    expected = column_checksum if column_checksum is not None else embedded
    if expected is not None:
        if column_checksum is not None:
            actual = checksum(text)
        else:
            actual = checksum(json.dumps(data, separators=(",", ":"), sort_keys=True))
        if type(expected) is not str or actual != expected:
            raise SnapshotError(
                f"{where}: the stored snapshot does not match its checksum (corrupted or "
                "changed by hand)"
            )
    revision = data.get("revision")
    if type(revision) is not int or not 1 <= revision <= MAX_REVISION:
        raise SnapshotError(
            f"{where}: the stored snapshot has no valid revision ({revision!r:.40})"
        )
    return data


def _with_checksum(text: str) -> str:
    """The stored form: ``text`` (a canonical JSON object) with its checksum as first key."""
    return f'{{"{CHECKSUM_KEY}":"{checksum(text)}",{text[1:]}'


class MemoryStore:
    """Process-local store (tests, caches). Keeps JSON text so callers never share objects."""

    def __init__(self) -> None:
        self._data: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        with self._lock:
            item = self._data.get(instance_id)
        return None if item is None else stored_snapshot(item[1], f"memory:{instance_id}")

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        revision = new_revision(instance_id, expected_revision)
        text = _with_checksum(encode_snapshot(snapshot, revision))
        with self._lock:
            item = self._data.get(instance_id)
            actual = None if item is None else item[0]
            if (actual or 0) != expected_revision:
                raise Conflict(instance_id, expected_revision, actual)
            self._data[instance_id] = (revision, text)
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
    ``.lock`` so concurrent processes cannot both win the same revision. Opening a store removes
    the temporary files of writers that died mid-save (under that lock, so no live writer's).
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the store directory {self.directory}: {exc}") from exc
        self._lock = threading.Lock()
        self._remove_orphans()

    def _path(self, instance_id: str) -> Path:
        return self.directory / f"{check_instance_id(instance_id)}.json"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            if sys.platform == "win32":  # pragma: no cover - no flock: only the thread lock
                yield
                return
            import fcntl

            try:
                fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise StoreError(f"cannot open the lock file in {self.directory}: {exc}") from exc
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except OSError as exc:
                    raise StoreError(f"cannot lock {self.directory}: {exc}") from exc
                yield
            finally:
                os.close(fd)  # closing releases the flock

    def _remove_orphans(self) -> None:
        """Delete temporary files left by crashed writers, if the lock is free right now.

        Writers create and rename their temporary files only while holding the lock, so while
        this store holds it every temporary file there belongs to a writer that died. When the
        lock is busy (a writer is at work) this is skipped: the next store opened sweeps.
        """
        if sys.platform == "win32":  # pragma: no cover - no flock, so no way to know
            return
        import fcntl
        import re

        pattern = re.compile(rf"\.{INSTANCE_ID_PATTERN}\.[A-Za-z0-9_]+\.tmp")
        with self._lock:
            try:
                fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                return  # a read-only directory: nothing could be removed anyway
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                with os.scandir(self.directory) as entries:
                    orphans = [
                        entry.path
                        for entry in entries
                        if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)
                    ]
                for orphan in orphans:
                    with contextlib.suppress(OSError):
                        os.unlink(orphan)
            except OSError:
                return  # busy (BlockingIOError) or unreadable: sweeping is best effort
            finally:
                os.close(fd)

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        path = self._path(instance_id)
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc}") from exc
        return stored_snapshot(text, str(path))

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        path = self._path(instance_id)
        revision = new_revision(instance_id, expected_revision)
        data = _with_checksum(encode_snapshot(snapshot, revision)).encode()
        with self._locked():
            stored = self.load(instance_id)
            actual = None if stored is None else stored["revision"]
            if (actual or 0) != expected_revision:
                raise Conflict(instance_id, expected_revision, actual)
            temporary = ""
            try:
                fd, temporary = tempfile.mkstemp(
                    prefix=f".{instance_id}.", suffix=".tmp", dir=self.directory
                )
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, path)
            except BaseException as exc:
                if temporary:
                    with contextlib.suppress(OSError):
                        os.unlink(temporary)
                if isinstance(exc, OSError):
                    raise StoreError(f"cannot write {path}: {exc}") from exc
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
        path = self._path(instance_id)
        with self._locked():
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise StoreError(f"cannot delete {path}: {exc}") from exc
            self._fsync_directory()
            return True

    def list_ids(self) -> list[str]:
        try:
            names = os.listdir(self.directory)
        except OSError as exc:
            raise StoreError(f"cannot list {self.directory}: {exc}") from exc
        return sorted(
            name[:-5] for name in names if name.endswith(".json") and is_instance_id(name[:-5])
        )

    def __repr__(self) -> str:
        return f"JsonFileStore({str(self.directory)!r})"

"""JSON files in one directory (``file:///path/dir``): one readable document per instance.

``<id>.json`` is the whole snapshot (with its revision and checksum), so a person or another
program can read an instance with nothing but a JSON parser. The price: a save rewrites the
instance's history, so it costs more the longer the history is (about 7 ms of CPU for the
default 1,000 records); SQLite, PostgreSQL and the memory store append history records instead.

A save writes a temporary file in the same directory, fsyncs it, ``os.replace``-s it over the
old file and fsyncs the directory, so a crash at any point leaves either the old or the new
complete snapshot. The revision check and the replace run under an ``fcntl`` lock on ``.lock``
so concurrent processes cannot both win the same revision. Opening a store removes the
temporary files of writers that died mid-save (under that lock, so no live writer's). The
due-timer index is a scan of every file (fine for tens or hundreds of instances), its leases
kept in ``.leases.json`` under the same lock.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from statewright._errors import Conflict, SnapshotError, StoreError
from statewright._stores.codec import (
    canonical,
    earliest_due,
    encode_snapshot,
    new_revision,
    verified_snapshot,
    with_checksum,
)
from statewright._stores.protocol import INSTANCE_ID_PATTERN, check_instance_id, is_instance_id

__all__ = ["JsonFileStore"]

#: Where :meth:`JsonFileStore.claim_due` keeps its leases.
_LEASES: Final = ".leases.json"


class JsonFileStore:
    """One ``<instance_id>.json`` file per instance, replaced atomically (see the module)."""

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
        found = self._load(instance_id)
        return None if found is None else found[0]

    def _load(self, instance_id: str, /) -> tuple[dict[str, Any], bool] | None:
        """The snapshot, and whether its checksum vouched for it (``statewright._snapshot``'s
        trust rule); None when there is no file."""
        path = self._path(instance_id)
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc}") from exc
        return verified_snapshot(text, str(path))

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        path = self._path(instance_id)
        revision = new_revision(instance_id, expected_revision)
        data = with_checksum(encode_snapshot(snapshot, revision)).encode()
        with self._locked():
            stored = self.load(instance_id)
            actual = None if stored is None else stored["revision"]
            if (actual or 0) != expected_revision:
                raise Conflict(instance_id, expected_revision, actual)
            self._replace(path, data, instance_id)
            return revision

    def _replace(self, path: Path, data: bytes, prefix: str) -> None:
        """Write ``data`` to a temporary file, fsync it, move it over ``path``, fsync the
        directory: the old or the new file, complete, whatever happens."""
        temporary = ""
        try:
            fd, temporary = tempfile.mkstemp(
                prefix=f".{prefix}.", suffix=".tmp", dir=self.directory
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

    def claim_due(self, now: float, limit: int, lease_seconds: float) -> list[str]:
        """Instances with a timer due at ``now``, earliest first, leased to the caller for
        ``lease_seconds``. A directory has no index: this reads every file."""
        with self._locked():
            leases = {k: v for k, v in self._leases().items() if v > now}
            due = []
            for instance_id in self.list_ids():
                try:
                    stored = self.load(instance_id)
                except SnapshotError:
                    continue  # load reports it; a timer driver must not stop on it
                when = None if stored is None else earliest_due(stored)
                if when is not None and when <= now and instance_id not in leases:
                    due.append((when, instance_id))
            claimed = [instance_id for _, instance_id in sorted(due)[: max(0, limit)]]
            if claimed:
                leases.update(dict.fromkeys(claimed, now + lease_seconds))
                self._replace(self.directory / _LEASES, canonical(leases).encode(), "leases")
            return claimed

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id`` (see :meth:`claim_due`)."""
        with self._locked():
            leases = self._leases()
            if leases.pop(instance_id, None) is not None:
                self._replace(self.directory / _LEASES, canonical(leases).encode(), "leases")

    def _leases(self) -> dict[str, float]:
        import json

        try:
            data = json.loads((self.directory / _LEASES).read_bytes())
        except (OSError, ValueError):
            return {}  # none yet, or broken: leases only spare work, they guarantee nothing
        if not isinstance(data, dict):
            return {}
        return {k: float(v) for k, v in data.items() if type(v) in (int, float)}

    def close(self) -> None:
        """Nothing to release (every built-in store has ``close`` and ``with``)."""

    def __enter__(self) -> JsonFileStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"JsonFileStore({str(self.directory)!r})"

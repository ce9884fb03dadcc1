"""The in-process store (tests, caches, ``memory://``): JSON text in a dict, guarded by a lock.

It keeps text, not objects, so callers never share (and never mutate) what it holds, and it
checks what it is given exactly like the stores on disk: the same revisions, checksums, history
records and due-timer index, so a test against it means something for the others. What it
reads back it verifies like them too, except the very texts it wrote and still holds, whose
checksums it computed itself (strings do not change); a text put in their place is verified.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping
from heapq import heapify, heappop, heappush
from typing import Any

from statewright._errors import Conflict
from statewright._jsondata import parse_own_json
from statewright._stores.codec import (
    CHECKSUM_KEY,
    STORED_HISTORY_KEY,
    assemble,
    earliest_due,
    encode_snapshot,
    new_revision,
    record_text,
    retained_of,
    stored_record,
    stored_snapshot,
    stored_texts,
    verified_snapshot,
    whole_history,
    with_checksum,
)
from statewright._stores.protocol import SnapshotUpdate

__all__ = ["MemoryStore"]


class MemoryStore:
    """Process-local store. Keeps JSON text so callers never share objects."""

    def __init__(self) -> None:
        #: ``instance id -> (revision, text)``: a whole snapshot, or a head (it has the
        #: reserved ``stored_history`` key) whose records are in ``_records``.
        self._data: dict[str, tuple[int, str]] = {}
        #: ``instance id -> (event id of the first record, record texts)``.
        self._records: dict[str, tuple[int, deque[str]]] = {}
        #: The due-timer index, ``instance id -> when its earliest timer falls due``, and the
        #: same as a heap of ``(when, instance id)`` that claim_due pops the earliest from: an
        #: entry whose instance falls due at another time now (saved since), or no more, is
        #: dropped when it comes to the top (and the heap rebuilt when such entries pile up).
        self._due: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []
        self._leases: dict[str, float] = {}
        #: Every text this store wrote and still holds (heads and records), by ``id``: a text
        #: it holds that is one of these very objects is what it wrote, under the checksum it
        #: computed (strings do not change), and is parsed without hashing it again. Any other
        #: (a copy, a change by hand) is verified against its checksum like a file's.
        self._written: dict[int, str] = {}
        self._lock = threading.Lock()

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        found = self._load(instance_id)
        return None if found is None else found[0]

    def _load(self, instance_id: str, /) -> tuple[dict[str, Any], bool] | None:
        """The snapshot, and whether its checksum vouched for it (``statewright._snapshot``'s
        trust rule); None when the instance is not stored."""
        where = f"memory:{instance_id}"
        with self._lock:
            item = self._data.get(instance_id)
            if item is None:
                return None
            first, records = self._records.get(instance_id, (1, deque()))
            texts = list(records)
        # (a text held here is alive: no other object has its id, and one the store wrote is
        # still the one it wrote when another save has dropped it meanwhile)
        written = self._written
        head = item[1]
        if written.get(id(head)) is head:  # as this store wrote it: vouched for
            data, verified = _own(head, where), True
        else:
            data, verified = verified_snapshot(head, where)
        stored = data.pop(STORED_HISTORY_KEY, None)
        if stored is None:
            return data, verified
        retained = retained_of(stored, data, where)
        start = data["total_transitions"] - retained + 1
        kept = texts[max(0, start - first) :] if retained else []
        parsed = []
        for event_id, text in enumerate(kept, start):
            record = _own(text, where) if written.get(id(text)) is text else None
            if record is None or record.get("event_id") != event_id:  # checked as a file's
                record = stored_record(text, f"{where} record {event_id}", event_id)
            parsed.append(record)
        return assemble(data, parsed, retained, where), verified

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        revision = new_revision(instance_id, expected_revision)
        text = with_checksum(encode_snapshot(snapshot, revision))
        due = earliest_due(snapshot)
        with self._lock:
            item = self._check(instance_id, expected_revision)
            self._replace(instance_id, item, revision, text)
            self._drop(self._records.pop(instance_id, (1, ()))[1])
            self._set_due(instance_id, due)
            return revision

    def save_update(
        self, instance_id: str, update: SnapshotUpdate, expected_revision: int, /
    ) -> int:
        """Store the head of ``update`` and append its records (see :class:`SnapshotUpdate`)."""
        revision, head_text, records, total, due = stored_texts(
            instance_id, update, expected_revision
        )
        retained: int = update.retained
        text = with_checksum(head_text)
        texts = [with_checksum(record) for record in records]
        with self._lock:
            item = self._check(instance_id, expected_revision)
            first = 1
            kept: deque[str] = deque()  # (deque[str]() would build a generic alias first)
            if item is not None and update.since is not None:
                if instance_id in self._records:
                    first, kept = self._records[instance_id]
                else:  # a whole snapshot (``save``): its records first
                    old = stored_snapshot(item[1], f"memory:{instance_id}")
                    whole = whole_history(old, f"memory:{instance_id}")
                    kept = deque(with_checksum(record_text(r)) for r in whole)
                    self._wrote(kept)
                    first = whole[0]["event_id"] if whole else 1
            else:  # the update replaces what the store held
                self._drop(self._records.get(instance_id, (1, ()))[1])
            if texts:
                start = total - len(texts) + 1
                if first + len(kept) != start:  # a gap: the machine hands all it retains
                    self._drop(kept)
                    first, kept = start, deque()
                kept.extend(texts)
                self._wrote(texts)
            while kept and first <= total - retained:  # memory: pruned at once
                self._drop((kept.popleft(),))
                first += 1
            self._replace(instance_id, item, revision, text)
            self._records[instance_id] = (first, kept)
            self._set_due(instance_id, due)
            return revision

    def _replace(
        self, instance_id: str, item: tuple[int, str] | None, revision: int, text: str
    ) -> None:
        """Hold ``text`` as the head of ``instance_id`` (``item``: what it held)."""
        if item is not None:
            self._drop((item[1],))
        self._data[instance_id] = (revision, text)
        self._written[id(text)] = text

    def _wrote(self, texts: Iterable[str]) -> None:
        """Remember ``texts`` as written by this store (see ``_written``)."""
        written = self._written
        for text in texts:
            written[id(text)] = text

    def _drop(self, texts: Iterable[str]) -> None:
        """Forget ``texts``, no longer held (those this store wrote)."""
        written = self._written
        for text in texts:
            if written.get(id(text)) is text:
                del written[id(text)]

    def _check(self, instance_id: str, expected_revision: int) -> tuple[int, str] | None:
        item = self._data.get(instance_id)
        actual = None if item is None else item[0]
        if (actual or 0) != expected_revision:
            raise Conflict(instance_id, expected_revision, actual)
        return item

    def _set_due(self, instance_id: str, due: float | None) -> None:
        if due is None:
            self._due.pop(instance_id, None)
        elif self._due.get(instance_id) != due:  # (unchanged: its entry is on the heap)
            self._due[instance_id] = due
            heap = self._heap
            heappush(heap, (due, instance_id))
            if len(heap) > 2 * len(self._due) + 64:  # mostly stale entries: built anew
                heap[:] = [(when, known) for known, when in self._due.items()]
                heapify(heap)

    def delete(self, instance_id: str, /) -> bool:
        with self._lock:
            self._drop(self._records.pop(instance_id, (1, ()))[1])
            self._due.pop(instance_id, None)
            self._leases.pop(instance_id, None)
            item = self._data.pop(instance_id, None)
            if item is None:
                return False
            self._drop((item[1],))
            return True

    def list_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._data)

    def claim_due(self, now: float, limit: int, lease_seconds: float) -> list[str]:
        """Instances with a timer due at ``now``, earliest first, leased for ``lease_seconds``
        to the caller (none that another caller holds a lease on): popped from the heap (the
        earliest ``limit`` of them, without looking at every due instance), and pushed back,
        since they are due until a save says otherwise."""
        with self._lock:
            heap, due, leases = self._heap, self._due, self._leases
            claimed: list[str] = []
            seen: set[str] = set()
            while heap and len(claimed) < limit and heap[0][0] <= now:
                entry = heappop(heap)
                when, instance_id = entry
                if due.get(instance_id) != when or instance_id in seen:
                    continue  # saved since (or no longer due), or an entry pushed twice
                seen.add(instance_id)
                if leases.get(instance_id, now) <= now:  # not another caller's
                    leases[instance_id] = now + lease_seconds
                    claimed.append(instance_id)
            for instance_id in seen:
                heappush(heap, (due[instance_id], instance_id))
            return claimed

    def release(self, instance_id: str, /) -> None:
        """End the caller's lease on ``instance_id`` (see :meth:`claim_due`)."""
        with self._lock:
            self._leases.pop(instance_id, None)

    def close(self) -> None:
        """Nothing to release (every built-in store has ``close`` and ``with``)."""

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MemoryStore({len(self._data)} instances)"


def _own(text: str, where: str) -> dict[str, Any]:
    """A text this store wrote, parsed, without its checksum (see ``MemoryStore._written``)."""
    data: dict[str, Any] = parse_own_json(text, where)
    del data[CHECKSUM_KEY]
    return data

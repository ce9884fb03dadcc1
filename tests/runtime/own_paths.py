"""The trusted paths agree with the checked ones, for a machine a test restored.

A machine's own save hands a built-in store canonical text written from its running state
(``statewright._snapshot_text``, ``statewright._chart_text``): byte for byte what the dicts of
its snapshot encode to, with the same earliest due timer. What a built-in store reads back under
a checksum that matches is converted, not checked (``statewright._snapshot_own``): into the
machine the strict decoder restores. The fuzz walks ask both of every snapshot they take.
"""

from __future__ import annotations

from typing import Any

from statewright import MachineOptions, MemoryStore
from statewright._snapshot_text import own_text
from statewright._stores.codec import canonical, earliest_due


def assert_trusted_paths_agree(
    cls: Any, snapshot: dict[str, Any], restored: Any, handlers: object, options: MachineOptions
) -> None:
    """``restored`` (``cls.restore(snapshot, handlers, options=options)``) writes as text what
    its dicts encode to, and ``snapshot`` loaded from a memory store restores as it did."""
    text = own_text(restored, 0)
    head = restored._build_snapshot(None)
    assert f"{text.before}{restored._revision}{text.after}" == canonical(head)
    assert text.records == [canonical(record) for record in restored._history_json(0)]
    assert text.due == earliest_due(head)
    store = MemoryStore()
    store.save(snapshot["instance_id"], snapshot, 0)
    loaded = cls.load(store, snapshot["instance_id"], handlers, options=options)
    assert loaded.snapshot() | {"revision": None} == restored.snapshot() | {"revision": None}
    assert loaded.history == restored.history
    assert loaded.pending_timers == restored.pending_timers

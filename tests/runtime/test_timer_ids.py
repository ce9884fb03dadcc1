"""Timer ids survive spec edits: an ``after`` timer is ``after.<state>.<key>``, its key the spec's
``id`` for it or else its delay (or delay handler), never its position. A snapshot's pending
timer therefore keeps meaning the same transition when other timers are added, removed or
reordered; one whose id is gone, or that now has another delay or another event, is a
:class:`SnapshotError` on restore, never a silent rebinding (issue #18, item 3).

A snapshot of another spec at the same version is refused before its timers are looked at (its
fingerprint, ``spec_hash``: tests/runtime/test_fingerprints.py); the edits below restore it as
a user who vouched for the old spec would (``compatible_fingerprints``), so that the timers'
own checks are what is tested.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from statewright import MachineOptions, MemoryStore, SnapshotError

from tests.runtime.chart_specs import compile_chart

START = 1_767_225_600.0

BEFORE = """
[machine]
name = "Job"
initial = "running"
[events]
CANCEL = {}
[states.running]
after = { delay = "1h", to = "failed" }
on.CANCEL = "cancelled"
[states.failed]
kind = "final"
[states.cancelled]
kind = "final"
"""
#: A new timer inserted before the one a saved instance has pending.
INSERTED = BEFORE.replace(
    'after = { delay = "1h", to = "failed" }',
    'after = [{ delay = "30m", to = "cancelled" }, { delay = "1h", to = "failed" }]',
)
#: The pending timer's delay changed: its id (named after the delay) is gone.
LONGER = BEFORE.replace('delay = "1h"', 'delay = "2h"')
#: Explicit ids: the spec names the timer, whatever its delay.
NAMED = BEFORE.replace('{ delay = "1h"', '{ id = "deadline", delay = "1h"')
NAMED_LONGER = NAMED.replace('delay = "1h"', 'delay = "2h"')


def machine_class(tmp_path: Path, text: str, name: str) -> Any:
    folder = tmp_path / name
    folder.mkdir()
    return compile_chart(folder, text, "job").JobMachine


def vouched(snapshot: dict[str, Any], **options: Any) -> MachineOptions:
    """Options restoring ``snapshot`` as if its spec were known to be compatible."""
    return MachineOptions(compatible_fingerprints={snapshot["spec_hash"]}, **options)


def saved(tmp_path: Path, text: str = BEFORE) -> dict[str, Any]:
    """A running job's snapshot, its timer pending."""
    cls = machine_class(tmp_path, text, "saved")
    machine = cls(None, options=MachineOptions(clock=lambda: START))
    return machine.snapshot()  # type: ignore[no-any-return]  # a dict


def test_after_timers_are_named_by_their_delay(tmp_path: Path) -> None:
    cls = machine_class(tmp_path, INSERTED, "inserted")
    machine = cls(None, options=MachineOptions(clock=lambda: START))
    assert machine.pending_timers == {
        "after.running.30m": START + 1800,
        "after.running.1h": START + 3600,
    }
    events = cls.spec.event_type
    assert events.AFTER_RUNNING_1H == "after.running.1h"
    assert events.AFTER_RUNNING_30M == "after.running.30m"


def test_a_timer_inserted_before_a_pending_one_does_not_rebind_it(tmp_path: Path) -> None:
    snapshot = saved(tmp_path)
    edited = machine_class(tmp_path, INSERTED, "inserted")
    clock = [START + 3600.0]
    with pytest.raises(SnapshotError) as caught:
        edited.restore(snapshot)  # another spec at the same version
    assert caught.value.field == "spec_hash"
    restored = edited.restore(snapshot, options=vouched(snapshot, clock=lambda: clock[0]))
    assert restored.pending_timers == {"after.running.1h": START + 3600}
    assert restored.fire_due() == 1
    assert restored.state == "failed"  # the saved timer's own transition, not the new one's


def test_a_pending_timer_whose_id_is_gone_is_a_snapshot_error(tmp_path: Path) -> None:
    snapshot = saved(tmp_path)
    edited = machine_class(tmp_path, LONGER, "longer")
    with pytest.raises(SnapshotError) as caught:
        edited.restore(snapshot, options=vouched(snapshot))
    assert caught.value.field == "chart.timers[0].id"
    assert "after.running.1h" in str(caught.value)


def test_a_named_timer_keeps_its_id_and_refuses_another_delay(tmp_path: Path) -> None:
    snapshot = saved(tmp_path, NAMED)
    assert [timer["id"] for timer in snapshot["chart"]["timers"]] == ["after.running.deadline"]
    same = machine_class(tmp_path, NAMED, "same")
    assert same.restore(snapshot).pending_timers == {"after.running.deadline": START + 3600}
    edited = machine_class(tmp_path, NAMED_LONGER, "named_longer")
    with pytest.raises(SnapshotError) as caught:
        edited.restore(snapshot, options=vouched(snapshot))
    assert caught.value.field == "chart.timers[0].delay"
    assert "7200" in str(caught.value)


def test_a_pending_timer_with_another_event_is_a_snapshot_error(tmp_path: Path) -> None:
    snapshot = saved(tmp_path, INSERTED)
    cls = machine_class(tmp_path, INSERTED, "inserted")
    swapped = copy.deepcopy(snapshot)
    swapped["chart"]["timers"][0]["event"] = "after.running.1h"  # the other timer's event
    with pytest.raises(SnapshotError) as caught:
        cls.restore(swapped)
    assert caught.value.field == "chart.timers[0].event"


def positional(snapshot: dict[str, Any]) -> dict[str, Any]:
    """``snapshot`` as statewright wrote it when timers were named by position."""
    old = copy.deepcopy(snapshot)
    for timer in old["chart"]["timers"]:
        timer["id"] = timer["event"] = "after.running.0"
    return old


def test_positional_names_saved_by_the_same_spec_are_renamed(tmp_path: Path) -> None:
    cls = machine_class(tmp_path, BEFORE, "before")
    machine = cls(None, options=MachineOptions(clock=lambda: START))
    old = positional(machine.snapshot())
    restored = cls.restore(old, options=MachineOptions(clock=lambda: START + 3600))
    assert restored.pending_timers == {"after.running.1h": START + 3600}
    assert old["chart"]["timers"][0]["id"] == "after.running.0"  # the caller's is unchanged
    assert restored.fire_due() == 1 and restored.state == "failed"
    assert restored.history[-1].event == "after.running.1h"


def test_positional_names_a_store_kept_are_renamed_and_checked(tmp_path: Path) -> None:
    """A store's own snapshot (its checksum matches) with positional names, as an older
    release wrote them: they are no event of this spec, so the trusted path does not convert
    them; renamed, the strict decoder reads the snapshot, and a positional name another spec
    wrote is still refused."""
    cls = machine_class(tmp_path, BEFORE, "before")
    machine = cls(None, options=MachineOptions(clock=lambda: START, instance_id="job"))
    store = MemoryStore()
    store.save("job", positional(machine.snapshot()), 0)
    restored = cls.load(store, "job", options=MachineOptions(clock=lambda: START + 3600))
    assert restored.pending_timers == {"after.running.1h": START + 3600}
    assert restored.fire_due() == 1 and restored.state == "failed"
    assert restored.history[-1].event == "after.running.1h"
    edited = machine_class(tmp_path, INSERTED, "inserted")
    old = positional(saved(tmp_path))
    store.save(old["instance_id"], old, 0)
    with pytest.raises(SnapshotError) as caught:
        edited.load(store, old["instance_id"], options=vouched(old))
    assert caught.value.field == "chart.timers[0].id"


def test_positional_names_saved_by_another_spec_are_refused(tmp_path: Path) -> None:
    old = positional(saved(tmp_path))
    edited = machine_class(tmp_path, INSERTED, "inserted")
    with pytest.raises(SnapshotError) as caught:
        edited.restore(old, options=vouched(old))  # position 0 is the new 30m timer now
    assert caught.value.field == "chart.timers[0].id"

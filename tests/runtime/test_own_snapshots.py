"""The trust rule: a snapshot the runtime wrote itself and a built-in store read back under a
checksum that matches is parsed and converted, not checked value by value again; everything
that came from elsewhere (``restore``, a store of your own, a subclass overriding ``load``, a
text without a checksum) gets every check, and a text rewritten together with its checksum
still ends in a :class:`SnapshotError`, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import statewright._jsondata
import statewright._snapshot_versions
import statewright._stores.codec
from agent_task import AgentTaskMachine
from statewright import (
    JsonFileStore,
    MachineOptions,
    MemoryStore,
    Snapshot,
    SnapshotError,
    SqliteStore,
    Store,
)
from statewright._stores.codec import canonical, checksum, with_checksum

from tests.runtime.machines import HAPPY_PATH, FakeClock, TaskContext, TaskHandlers, TaskMachine
from tests.runtime.store_kinds import open_kind

#: Where the JSON data check is called from: the stores' codec, the snapshot's preparation and
#: the checking parser.
CHECKERS = (statewright._jsondata, statewright._snapshot_versions, statewright._stores.codec)


@pytest.fixture(params=["memory", "json", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with open_kind(request.param, tmp_path, request) as opened:
        yield opened


def advanced(store: Store | None, n: int = 6, instance_id: str = "t") -> TaskMachine:
    options = MachineOptions(clock=FakeClock(), store=store, instance_id=instance_id)
    machine = TaskMachine(TaskContext(task_id="t-1"), TaskHandlers(), options=options)
    for event, payload in HAPPY_PATH[:n]:
        machine.send(event, **payload)
    return machine


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many JSON values the data check visits (every call counts one)."""
    visited = [0]
    original = statewright._jsondata.json_data

    def counting(value: Any, *rest: Any) -> Any:
        visited[0] += 1
        return original(value, *rest)

    for module in CHECKERS:
        monkeypatch.setattr(module, "json_data", counting)
    return visited


def test_a_built_in_stores_own_snapshot_is_not_walked_again(store: Store, walks: list[int]) -> None:
    machine = advanced(store)
    machine.save()
    walks[0] = 0
    loaded = TaskMachine.load(store, "t", TaskHandlers(), options=MachineOptions(clock=FakeClock()))
    assert walks[0] == 0
    assert loaded.snapshot() == machine.snapshot()
    assert loaded.history == machine.history and loaded.context == machine.context


def test_a_machines_own_save_is_not_walked_again(walks: list[int]) -> None:
    store = MemoryStore()
    machine = advanced(store)
    machine.save()
    walks[0] = 0
    machine.send(*HAPPY_PATH[6][:1], **HAPPY_PATH[6][1])
    machine.save()
    assert walks[0] == 0


def test_what_came_from_elsewhere_is_walked(store: Store, walks: list[int]) -> None:
    machine = advanced(store)
    machine.save()
    walks[0] = 0
    TaskMachine.restore(Snapshot(machine.snapshot()), TaskHandlers())
    assert walks[0] > 0  # a snapshot handed to restore
    walks[0] = 0
    store.save("plain", machine.snapshot(), 0)  # the store is handed a whole snapshot
    assert walks[0] > 0


class Rewriting(MemoryStore):
    """A store of the user's: its ``load`` changes what it read (the context's ``plan``)."""

    def load(self, instance_id: str, /) -> dict[str, Any] | None:
        data = super().load(instance_id)
        if data is not None:
            data["context"]["plan"] = ("a", "b")  # no JSON data: a tuple
        return data


def test_a_subclass_overriding_load_gets_every_check() -> None:
    store = Rewriting()
    advanced(store).save()
    with pytest.raises(SnapshotError, match="tuple") as error:
        TaskMachine.load(store, "t", TaskHandlers())
    assert error.value.field == "context.plan"


def _rewritten(text: str, change: Any) -> str:
    """``text`` (a memory store's: its checksum first) with ``change`` applied to its data and
    a checksum that matches again: what no run of the runtime wrote."""
    data = json.loads(text)
    del data["checksum"]
    change(data)
    return with_checksum(canonical(data))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(state="nowhere"), "state"),
        (lambda d: d.update(previous=5), "previous"),
        (lambda d: d["counts"][0].__setitem__(3, "1"), "counts[0][3]"),
        (lambda d: d["counts"][0].__setitem__(1, "NO_SUCH_EVENT"), "counts[0]"),
        (lambda d: d.update(idempotency_keys=[[None, 1]]), "idempotency_keys[0][0]"),
        (lambda d: d.update(idempotency_keys=None), "idempotency_keys"),
        (lambda d: d.update(context_type=7), "context_type"),
        (lambda d: d.update(spec_version=True), "spec_version"),
        (lambda d: d.update(machine="Other"), "machine"),
        (lambda d: d.update(format="statewright.snapshot/9"), "format"),
        (lambda d: d.update(spec_changes=[{}]), "spec_changes[0]"),
    ],
)
def test_a_text_rewritten_with_its_checksum_is_still_checked(change: Any, field: str) -> None:
    store = MemoryStore()
    advanced(store, n=1).save()
    revision, text = store._data["t"]
    store._data["t"] = (revision, _rewritten(text, change))
    with pytest.raises(SnapshotError) as error:
        TaskMachine.load(store, "t", TaskHandlers())
    assert error.value.field == field


def test_the_memory_store_hashes_again_only_what_it_did_not_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The texts a memory store wrote, still the very ones it holds, are what it hashed: loaded
    without hashing them again. Any other text in their place (a copy, a change by hand, a
    record moved) is verified, and one that breaks its checksum or its place is refused."""
    hashed: list[str] = []
    original = statewright._stores.codec.checksum

    def counting(text: str | bytes) -> str:
        hashed.append(str(text))
        return original(text)

    monkeypatch.setattr(statewright._stores.codec, "checksum", counting)
    store = MemoryStore()
    machine = advanced(store, n=3)
    machine.save()
    hashed.clear()
    assert TaskMachine.load(store, "t", TaskHandlers()).snapshot() == machine.snapshot()
    assert hashed == []
    revision, text = store._data["t"]
    store._data["t"] = (revision, "".join(list(text)))  # the same text, another object
    _, records = store._records["t"]
    records[0] = "".join(list(records[0]))
    assert TaskMachine.load(store, "t", TaskHandlers()).snapshot() == machine.snapshot()
    assert len(hashed) == 2  # the head's and that record's
    records[0], records[1] = records[1], records[0]  # each the store's, in another's place
    with pytest.raises(SnapshotError, match="not the one of event"):
        TaskMachine.load(store, "t", TaskHandlers())
    records[0], records[1] = records[1], records[0]
    records[2] = records[2].replace('"event":"', '"event":"x', 1)
    with pytest.raises(SnapshotError, match="checksum"):
        TaskMachine.load(store, "t", TaskHandlers())
    store._data["t"] = (revision, text.replace('"state":"', '"state":"x', 1))
    with pytest.raises(SnapshotError, match="checksum"):
        TaskMachine.load(store, "t", TaskHandlers())


def test_the_memory_store_forgets_the_texts_it_no_longer_holds() -> None:
    """What the store remembers as written is what it holds: saves that replace, prune and
    delete leave no text behind."""
    store = MemoryStore()
    options = MachineOptions(clock=FakeClock(), store=store, instance_id="t", history_limit=2)
    machine = TaskMachine(TaskContext(task_id="t-1"), TaskHandlers(), options=options)
    for event, payload in HAPPY_PATH[:6]:
        machine.send(event, **payload)
        machine.save()
    store.save("whole", machine.snapshot() | {"instance_id": "whole"}, 0)
    held = [store._data[i][1] for i in store._data] + [
        text for _, texts in store._records.values() for text in texts
    ]
    assert sorted(map(id, held)) == sorted(store._written)
    store.delete("t")
    store.delete("whole")
    assert store._written == {}


def test_a_rewritten_record_with_its_checksum_is_still_checked() -> None:
    store = MemoryStore()
    machine = advanced(store, n=3)
    machine.save()
    _, texts = store._records["t"]
    texts[1] = _rewritten(texts[1], lambda record: record.update(payload=[1]))
    with pytest.raises(SnapshotError) as error:
        TaskMachine.load(store, "t", TaskHandlers())
    assert error.value.field == "history[1].payload"


def test_sqlite_rows_without_checksums_get_every_check(tmp_path: Path, walks: list[int]) -> None:
    with SqliteStore(tmp_path / "db.sqlite") as store:
        advanced(store).save()
        store._db.execute("UPDATE statewright_instances SET checksum = NULL")
        walks[0] = 0
        TaskMachine.load(store, "t", TaskHandlers())
        assert walks[0] > 0
        text = store._db.execute("SELECT snapshot FROM statewright_instances").fetchone()[0]
        broken = text.replace('"state":"', '"state":"x', 1)
        store._db.execute(
            "UPDATE statewright_instances SET snapshot = ?, checksum = ?",
            (broken, checksum(broken)),
        )
        with pytest.raises(SnapshotError) as error:
            TaskMachine.load(store, "t", TaskHandlers())
        assert error.value.field == "state"
        store._db.execute("UPDATE statewright_instances SET checksum = 'sha256:0'")
        with pytest.raises(SnapshotError, match="checksum"):
            TaskMachine.load(store, "t", TaskHandlers())


def chart_clock() -> float:
    return 1_767_225_600.0


class ChartHandlers:
    def succeeded(self, context: object, payload: Any, /) -> bool:
        return bool(payload["ok"])


def saved_chart(store: Store) -> AgentTaskMachine[None]:
    """The README's chart saved as ``c``: back from its deep history, waiting for its tool
    (its watchdog running)."""
    options = MachineOptions(clock=chart_clock, store=store, instance_id="c")
    machine: AgentTaskMachine[None] = AgentTaskMachine(None, ChartHandlers(), options=options)
    machine.planned()
    machine.tool_result(ok=True)
    machine.planned()
    machine.suspend()
    machine.resume()
    machine.save()
    return machine


def test_a_charts_own_snapshot_loads_as_the_strict_decoder_reads_it(store: Store) -> None:
    machine = saved_chart(store)
    options = MachineOptions(clock=chart_clock)
    loaded = AgentTaskMachine.load(store, "c", ChartHandlers(), options=options)
    strict = AgentTaskMachine.restore(
        Snapshot(store.load("c") or {}), ChartHandlers(), options=options
    )
    assert loaded.snapshot() == strict.snapshot() == machine.snapshot()
    assert loaded.history == strict.history == machine.history
    assert loaded.next_due == strict.next_due == machine.next_due


#: A message the chart holds for a parent it does not have (what only a child of a tree may).
FOR_A_PARENT = {
    "id": "msg-0123456789abcdef",
    "event": "done",
    "due": 1_767_225_600.0,
    "delay": 0.0,
    "on_restore": "fire",
    "target": "#_parent",
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["chart"]["active"].__setitem__(0, "nowhere"), "chart.active[0]"),
        (lambda d: d["chart"]["active"].__setitem__(0, ["working"]), "chart.active[0]"),
        (lambda d: d["chart"].update(memory={"nowhere": ["planning"]}), "chart.memory.nowhere"),
        (lambda d: d["chart"].update(memory=[]), "chart.memory"),
        (
            lambda d: d["chart"].update(memory={"resume_point": "planning"}),
            "chart.memory.resume_point",
        ),
        (lambda d: d["chart"].update(active="working"), "chart.active"),
        (lambda d: d["chart"].update(queue=[["PLANNED", {}]]), "chart.queue[0]"),
        (lambda d: d["chart"].update(finished=1), "chart.finished"),
        (lambda d: d["chart"].pop("saved_at"), "chart.saved_at"),
        (lambda d: d["chart"]["timers"][0].update(event="NO_SUCH"), "chart.timers[0].event"),
        (lambda d: d["chart"]["timers"].append(FOR_A_PARENT), "chart.timers[1]"),
        (lambda d: d.update(chart=[]), "chart"),
    ],
)
def test_a_charts_text_rewritten_with_its_checksum_is_still_checked(
    change: Any, field: str
) -> None:
    """What a run of the chart cannot have written, under a checksum that matches: the trusted
    path does not convert it (or, a message, checks it as always), and the strict decoder
    names the field."""
    store = MemoryStore()
    saved_chart(store)
    revision, text = store._data["c"]
    store._data["c"] = (revision, _rewritten(text, change))
    with pytest.raises(SnapshotError) as error:
        AgentTaskMachine.load(
            store, "c", ChartHandlers(), options=MachineOptions(clock=chart_clock)
        )
    assert error.value.field == field


def test_json_files_are_trusted_only_as_written(tmp_path: Path, walks: list[int]) -> None:
    store = JsonFileStore(tmp_path)
    advanced(store).save()
    path = tmp_path / "t.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data, indent=2))  # reformatted: the checksum still matches
    walks[0] = 0
    loaded = TaskMachine.load(store, "t", TaskHandlers())
    assert walks[0] > 0 and loaded.snapshot()["state"] == data["state"]

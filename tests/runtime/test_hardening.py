"""Regression tests for the runtime findings of issue #10 (items 12-21), one or more per item.

Each ``test_<item>_...`` failed before the fix. Disk-full and read-only cases mount a small tmpfs
when the tests run as root (and skip with the reason otherwise); read-only falls back to chmod.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import json
import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from statewright import (
    ClockError,
    Conflict,
    JsonFileStore,
    MachineOptions,
    MachineRegistry,
    MemoryStore,
    RegistrySaveError,
    SnapshotError,
    SqliteStore,
    StatewrightError,
    Store,
    StoreError,
    StrEnum,
    UnknownEvent,
)

from tests.runtime.machines import (
    HAPPY_PATH,
    AsyncPlainTaskMachine,
    AsyncTaskMachine,
    FakeClock,
    PlainTaskMachine,
    TaskContext,
    TaskEvent,
    TaskHandlers,
    TaskMachine,
    TaskState,
)

St, Ev = TaskState, TaskEvent


def advanced(n: int = 6, **options: Any) -> TaskMachine:
    """The task machine after ``n`` steps of the happy path (epochs 1767225600.0 + 1.5 k)."""
    options.setdefault("clock", FakeClock())
    m = TaskMachine(TaskContext(task_id="t-1"), TaskHandlers(), options=MachineOptions(**options))
    for event, payload in HAPPY_PATH[:n]:
        m.send(event, **payload)
    return m


def restore_fails(snapshot: Any, field: str | None = None) -> SnapshotError:
    """Restoring raises SnapshotError (naming ``field`` when given), and nothing else."""
    with pytest.raises(SnapshotError) as info:
        TaskMachine.restore(snapshot, TaskHandlers())
    if field is not None:
        assert info.value.field == field, str(info.value)
        assert str(info.value).startswith(f"{field}: ")
    return info.value


def deep_list(depth: int) -> list[Any]:
    """A list nested ``depth`` deep, built without recursion."""
    root: list[Any] = []
    current = root
    for _ in range(depth - 1):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    return root


# ------------------------------------------------------------------------------------ item 12


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Line:
    amount: Decimal
    booked: datetime


@dataclasses.dataclass
class Invoice:
    """A context with every kind of field the built-in dataclass encoding handles."""

    total: Decimal = Decimal("12.50")
    issued: datetime = datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
    due: date = date(2026, 2, 1)
    key: uuid.UUID = dataclasses.field(default_factory=lambda: uuid.UUID(int=7))
    colour: Colour = Colour.BLUE
    lines: list[Line] = dataclasses.field(
        default_factory=lambda: [Line(Decimal("0.10"), datetime(2026, 1, 1, 12))]
    )
    codes: tuple[int, ...] = (3, 1)
    tags: frozenset[str] = frozenset({"b", "a"})
    by_colour: dict[Colour, Decimal] = dataclasses.field(
        default_factory=lambda: {Colour.RED: Decimal("1e-3")}
    )
    note: str | None = None
    extra: Any = dataclasses.field(default_factory=lambda: {"free": [1, 2.5, None, True]})


@dataclasses.dataclass
class Untyped:
    amount: Any = Decimal("1.5")


def test_12_dataclass_context_with_decimal_datetime_and_nested_fields_round_trips() -> None:
    m = PlainTaskMachine(Invoice())
    m.send(Ev.TASK_CREATED)
    snapshot = m.snapshot()
    text = json.dumps(snapshot, allow_nan=False)  # JSON on the wire, nothing else
    assert snapshot["context"]["total"] == "12.50"
    assert snapshot["context"]["tags"] == ["a", "b"]  # sets are sorted: stable snapshots
    restored = PlainTaskMachine.restore(text)
    assert restored.context == m.context
    assert isinstance(restored.context.lines[0], Line)
    assert restored.snapshot() == snapshot
    store = MemoryStore()
    assert m.save(store) == 1
    assert PlainTaskMachine.load(store, m.instance_id).context == m.context


def test_12_a_field_that_cannot_round_trip_raises_snapshot_error_naming_it() -> None:
    m = PlainTaskMachine(Untyped(), options=MachineOptions(store=MemoryStore()))
    with pytest.raises(SnapshotError) as info:
        m.snapshot()
    assert info.value.field == "context.amount"
    with pytest.raises(SnapshotError):
        m.save()  # was a raw TypeError from json.dumps
    assert m.revision == 0

    class Opaque:
        pass

    @dataclasses.dataclass
    class WithObject:
        thing: Opaque = dataclasses.field(default_factory=Opaque)

    with pytest.raises(SnapshotError, match="codec") as other:
        PlainTaskMachine(WithObject()).snapshot()
    assert other.value.field == "context.thing"


@pytest.mark.parametrize(
    ("context", "field"),
    [
        ({"a": [1, float("nan")]}, "context.a[1]"),
        ({"a": (1, 2)}, "context.a"),  # would come back as a list
        ({1: "x"}, "context"),
        ({"when": datetime(2026, 1, 1)}, "context.when"),
    ],
)
def test_12_plain_contexts_must_be_json_data(context: Any, field: str) -> None:
    with pytest.raises(SnapshotError) as info:
        PlainTaskMachine(context).snapshot()
    assert info.value.field == field


def test_12_a_codec_that_returns_no_json_or_raises_is_a_snapshot_error() -> None:
    class Codec:
        def __init__(self, encoded: Any) -> None:
            self.encoded = encoded

        def encode(self, context: Any, /) -> Any:
            if isinstance(self.encoded, Exception):
                raise self.encoded
            return self.encoded

        def decode(self, data: Any, /) -> Any:
            raise KeyError("boom")

    for encoded in [{"x": Decimal(1)}, TypeError("no")]:
        with pytest.raises(SnapshotError):
            PlainTaskMachine(None, options=MachineOptions(codec=Codec(encoded))).snapshot()
    good = PlainTaskMachine(None, options=MachineOptions(codec=Codec({"x": 1}))).snapshot()
    with pytest.raises(SnapshotError, match="decode raised KeyError"):
        PlainTaskMachine.restore(good, options=MachineOptions(codec=Codec({})))


@dataclasses.dataclass
class Ledger:
    steps_left: int = 0
    plan: list[str] = dataclasses.field(default_factory=list)
    results: list[str] = dataclasses.field(default_factory=list)
    task_id: str = ""
    balance: Any = None


def test_12_a_checkpoint_that_cannot_be_encoded_does_not_move_the_machine() -> None:
    store = MemoryStore()
    ledger = Ledger()
    m = TaskMachine(ledger, TaskHandlers(), options=MachineOptions(store=store))  # type: ignore[arg-type]  # duck-typed context
    m.send(Ev.TASK_CREATED, task_id="t")
    ledger.balance = Decimal("1.5")  # typed Any: cannot be restored equal
    with pytest.raises(SnapshotError):
        m.send(Ev.PLAN_DONE, steps=["a"])  # a checkpoint transition
    assert m.state is St.PLANNING and m.revision == 0 and m.total_transitions == 1
    assert store.load(m.instance_id) is None
    ledger.balance = "1.5"
    assert m.send(Ev.PLAN_DONE, steps=["a"]) is St.PLAN_REVIEW  # still usable
    assert m.revision == 1


# ------------------------------------------------------------------------------------ item 13


def test_13_deeply_nested_snapshot_text_and_dicts_raise_snapshot_error() -> None:
    snapshot = advanced().snapshot()
    text = json.dumps(snapshot, separators=(",", ":"))
    nested = '"payload":{"x":' + "[" * 100_000 + "]" * 100_000 + "}"
    deep_text = text.replace('"payload":{}', nested, 1)
    assert deep_text != text
    restore_fails(deep_text)
    snapshot["history"][-1]["payload"] = {"x": deep_list(100_000)}
    restore_fails(snapshot)
    snapshot["history"][-1]["payload"] = {"x": deep_list(150)}  # parses, but too deep
    restore_fails(json.dumps(snapshot))


def test_13_deeply_nested_live_context_and_payload() -> None:
    m = PlainTaskMachine({"tree": deep_list(10_000)})
    with pytest.raises(SnapshotError, match="levels deep"):
        m.snapshot()
    m = PlainTaskMachine(None)
    m.send(Ev.TASK_CREATED, tree=deep_list(10_000))  # payloads are kept as given ...
    snapshot = m.snapshot()  # ... and written with a marker where they nest too deeply
    assert "nested more than" in json.dumps(snapshot)
    assert PlainTaskMachine.restore(snapshot).snapshot() == snapshot


# ------------------------------------------------------------------------------------ item 14


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('"revision":0', '"revision":1e400', "revision"),
        ('"revision":0', '"revision":Infinity', None),
        ('"revision":0', '"revision":NaN', None),
        ('"revision":0', '"revision":' + "9" * 30, "revision"),
        ('"total_transitions":6', '"total_transitions":1e400', "total_transitions"),
        ('"spec_version":1', '"spec_version":1e400', "spec_version"),
    ],
)
def test_14_infinite_and_huge_numbers_raise_snapshot_error(
    old: str, new: str, field: str | None
) -> None:
    text = json.dumps(advanced().snapshot(), separators=(",", ":"))
    assert old in text
    restore_fails(text.replace(old, new), field)


def test_14_huge_counts_raise_snapshot_error() -> None:
    snapshot = advanced().snapshot()
    snapshot["counts"][0][3] = 2**63
    restore_fails(snapshot, "counts[0][3]")
    text = json.dumps(advanced().snapshot(), separators=(",", ":"))
    restore_fails(text.replace(',1],["planning"', ',1e400],["planning"'), "counts[0][3]")


@pytest.mark.parametrize("kind", ["memory", "json", "sqlite"])
def test_14_stores_refuse_revisions_beyond_sqlite_integers(kind: str, tmp_path: Path) -> None:
    store = open_store(kind, tmp_path)
    for revision in [2**63 - 1, 2**63 + 5, -1, True, 1.0]:
        with pytest.raises(StoreError):
            store.save("x", {"a": 1}, revision)  # type: ignore[arg-type]  # deliberately wrong
    assert store.list_ids() == []
    close(store)


# ------------------------------------------------------------------------------------ item 15


@pytest.mark.parametrize("value", [float("nan"), float("inf"), None, "1.5", 1e300, -1e300, True])
def test_15_a_clock_returning_no_epoch_raises_clock_error_and_applies_nothing(
    value: Any,
) -> None:
    cases = [(PlainTaskMachine, {}), (TaskMachine, {"task_id": "t"})]  # fast and slow path
    for machine_type, payload in cases:
        options = MachineOptions(clock=lambda: value)
        m = machine_type(TaskContext(), TaskHandlers(), options=options)
        with pytest.raises(ClockError):
            m.send(Ev.TASK_CREATED, **payload)
        assert m.state is St.IDLE and m.total_transitions == 0 and m.history == ()
        json.dumps(m.snapshot(), allow_nan=False)  # snapshots keep working


def test_15_an_epoch_that_is_no_timestamp_raises_snapshot_error() -> None:
    for epoch in [float("nan"), 1e300, -1e20, "2026", None, True]:
        snapshot = advanced().snapshot()
        snapshot["history"][2]["epoch"] = epoch
        restore_fails(snapshot, "history[2].epoch")
    text = json.dumps(advanced().snapshot(), separators=(",", ":"))
    restore_fails(text.replace('"epoch":1767225601.5', '"epoch":NaN'))


def test_15_int_clocks_are_accepted_and_recorded_as_floats() -> None:
    m = PlainTaskMachine(None, options=MachineOptions(clock=lambda: 1767225600))
    m.send(Ev.TASK_CREATED)
    assert type(m.history[0].epoch) is float
    assert PlainTaskMachine.restore(json.dumps(m.snapshot())).history == m.history


def test_15_async_machines_check_the_clock_too() -> None:
    async def main() -> None:
        m = AsyncPlainTaskMachine(None, options=MachineOptions(clock=lambda: float("nan")))
        with pytest.raises(ClockError):
            await m.send(Ev.TASK_CREATED)
        assert m.state is St.IDLE and m.total_transitions == 0

    asyncio.run(main())


# ------------------------------------------------------------------------------------ item 16

SNAPSHOT_KEYS = [
    "format", "machine", "spec_version", "spec_hash", "instance_id", "revision", "state",
    "previous", "total_transitions", "counts", "history", "context", "context_type",
]  # fmt: skip


@pytest.mark.parametrize("key", SNAPSHOT_KEYS)
def test_16_every_field_is_required(key: str) -> None:
    snapshot = advanced().snapshot()
    del snapshot[key]
    error = restore_fails(snapshot)
    assert key in str(error)


@pytest.mark.parametrize(
    "key", ["from", "event", "to", "timestamp", "epoch", "event_id", "payload"]
)
def test_16_every_history_field_is_required(key: str) -> None:
    snapshot = advanced().snapshot()
    del snapshot["history"][3][key]
    restore_fails(snapshot, f"history[3].{key}")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("revision", "7"),
        ("revision", 3.7),
        ("revision", 3.0),
        ("revision", True),
        ("revision", -1),
        ("history", ""),
        ("counts", {}),
        ("previous", 0),
        ("instance_id", 42),
        ("instance_id", "../etc"),
        ("context_type", 1),
        ("spec_hash", None),
        ("total_transitions", "6"),
        ("unexpected", 1),
    ],
)
def test_16_types_are_exact_not_coerced(key: str, value: Any) -> None:
    snapshot = advanced().snapshot()
    snapshot[key] = value
    restore_fails(snapshot, key)


def test_16_payloads_and_records_are_exact() -> None:
    snapshot = advanced().snapshot()
    snapshot["history"][0]["payload"] = [["task_id", "t-1"]]  # a list of pairs
    restore_fails(snapshot, "history[0].payload")
    snapshot = advanced().snapshot()
    snapshot["history"][0]["error"] = None  # written only for error routes
    restore_fails(snapshot, "history[0].error")
    snapshot = advanced().snapshot()
    snapshot["history"][0]["event_id"] = "1"
    restore_fails(snapshot, "history[0].event_id")
    snapshot = advanced().snapshot()
    snapshot["counts"][0] = ["idle", "TASK_CREATED", "planning"]
    restore_fails(snapshot, "counts[0]")


def test_16_the_instance_id_is_kept_and_the_stored_one_must_match(tmp_path: Path) -> None:
    m = advanced(instance_id="job-7")
    assert TaskMachine.restore(m.snapshot(), TaskHandlers()).instance_id == "job-7"
    store = JsonFileStore(tmp_path)
    m.save(store)
    (tmp_path / "job-7.json").rename(tmp_path / "job-8.json")
    with pytest.raises(SnapshotError, match="instance_id"):
        TaskMachine.load(store, "job-8", TaskHandlers())


# ------------------------------------------------------------------------------------ item 17


def swap(items: list[Any], i: int, j: int) -> None:
    items[i], items[j] = items[j], items[i]


def mangled(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    snapshot: dict[str, Any] = advanced().snapshot()
    change(snapshot)
    return snapshot


@pytest.mark.parametrize(
    ("change", "field"),
    [
        # a state other than the history's last target (counts still balanced elsewhere)
        (lambda s: s.update(state="observing"), "state"),
        (lambda s: s["history"].reverse(), "history[0].event_id"),
        (lambda s: swap(s["history"], 1, 2), "history[1].from"),
        (lambda s: s["history"].insert(0, dict(s["history"][0])), "history"),
        (lambda s: s.update(previous="done"), "previous"),  # final, never visited
        (lambda s: s.update(previous="reflecting"), "previous"),  # the current state
        (lambda s: s.update(previous="idle"), "previous"),  # no move from idle into reflecting
        (lambda s: s.update(previous=None), "previous"),
        (lambda s: s["counts"].append(["paused", "CANCEL", "cancelled", 1]), "counts"),
        (lambda s: s["counts"].append(s["counts"][0]), "counts[6]"),
        (lambda s: s["history"][4].update(event_id=99), "history[4].event_id"),
        (
            lambda s: s["history"][4].update(timestamp="2026-01-01T00:00:00+00:00"),
            "history[4].timestamp",
        ),
        (lambda s: s["history"].pop(), "history[0].event_id"),
        (lambda s: s["history"][0].update({"to": "cancelled"}), "history[0]"),
    ],
)
def test_17_state_history_and_counters_are_cross_checked(
    change: Callable[[dict[str, Any]], object], field: str
) -> None:
    restore_fails(mangled(change), field)


def test_17_a_restored_snapshot_continues_exactly() -> None:
    m = advanced(history_limit=3)
    restored = TaskMachine.restore(m.snapshot(), TaskHandlers())
    assert restored.snapshot() == m.snapshot()
    shuffled = m.snapshot()
    shuffled["counts"].reverse()  # the order of counts carries no meaning
    assert TaskMachine.restore(shuffled, TaskHandlers()).snapshot() == m.snapshot()


# ------------------------------------------------------------------------------------ item 18


def open_store(kind: str, path: Path) -> Store:
    if kind == "memory":
        return MemoryStore()
    if kind == "json":
        return JsonFileStore(path / "snaps")
    return SqliteStore(path / "db.sqlite")


def close(store: Store) -> None:
    if isinstance(store, SqliteStore):
        store.close()


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A small tmpfs at ``path`` (root only; skips with the reason otherwise)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    path.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


def remount_read_only(path: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True, capture_output=True)


def big_machine(store: Store, instance_id: str = "big") -> PlainTaskMachine:
    return PlainTaskMachine(None, options=MachineOptions(store=store, instance_id=instance_id))


def test_18_json_store_on_a_full_disk_raises_store_error_and_keeps_the_old_file(
    tmp_path: Path,
) -> None:
    with tmpfs(tmp_path / "full", "64k") as directory:
        store = JsonFileStore(directory)
        m = big_machine(store)
        assert m.save() == 1
        m.send(Ev.TASK_CREATED, blob="x" * 200_000)
        with pytest.raises(StoreError, match="No space left"):
            m.save()
        assert m.revision == 1 and m.options.store is store
        stored = store.load("big")
        assert stored is not None and stored["revision"] == 1
        assert sorted(p.name for p in directory.iterdir()) == [".lock", "big.json"]


def test_18_sqlite_store_on_a_full_disk_raises_store_error(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "full", "256k") as directory:
        store = SqliteStore(directory / "db.sqlite")
        try:
            m = big_machine(store)
            assert m.save() == 1
            m.send(Ev.TASK_CREATED, blob="x" * 1_000_000)
            with pytest.raises(StoreError, match="full"):
                m.save()
            stored = store.load("big")
            assert stored is not None and stored["revision"] == 1
        finally:
            store.close()


@pytest.fixture
def read_only_directory(tmp_path: Path) -> Iterator[Path]:
    """A directory holding a saved instance ``"a"`` in both file stores, then made read-only:
    a remounted tmpfs as root (root ignores permission bits), chmod otherwise."""
    root = tmp_path / "ro"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        with tmpfs(root, "4m"):
            fill(root)
            remount_read_only(root)
            yield root
        return
    root.mkdir()
    fill(root)
    for path in [root, root / "snaps"]:
        path.chmod(0o555)
    try:
        if os.access(root / "snaps", os.W_OK):
            pytest.skip("cannot make a directory read-only here")
        yield root
    finally:
        for path in [root, root / "snaps"]:
            path.chmod(0o755)


def fill(root: Path) -> None:
    PlainTaskMachine(None, options=MachineOptions(instance_id="a")).save(
        JsonFileStore(root / "snaps")
    )
    with SqliteStore(root / "db.sqlite") as store:
        PlainTaskMachine(None, options=MachineOptions(instance_id="a")).save(store)


def test_18_read_only_file_store_raises_store_error(read_only_directory: Path) -> None:
    store = JsonFileStore(read_only_directory / "snaps")
    assert store.load("a") is not None and store.list_ids() == ["a"]
    m = PlainTaskMachine.load(store, "a")
    m.send(Ev.TASK_CREATED)
    with pytest.raises(StoreError):
        m.save()
    with pytest.raises(StoreError):
        store.delete("a")
    with pytest.raises(StoreError):
        store.save("b", {"x": 1}, 0)
    with pytest.raises(StoreError):
        JsonFileStore(read_only_directory / "new" / "dir")


def test_18_read_only_sqlite_store_raises_store_error(read_only_directory: Path) -> None:
    try:
        store = SqliteStore(read_only_directory / "db.sqlite")
    except StoreError:
        return  # refusing to open is a StoreError too
    try:
        with pytest.raises(StoreError):
            store.save("b", {"x": 1}, 0)
        with pytest.raises(StoreError):
            store.delete("a")
    finally:
        store.close()
    with pytest.raises(StoreError):
        SqliteStore(read_only_directory / "new.sqlite")


@contextlib.contextmanager
def immutable(*paths: Path) -> Iterator[None]:
    """``chattr +i`` on ``paths`` (root only: root ignores permission bits on files)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("a read-only file that even its owner cannot replace needs chattr, as root")
    done: list[Path] = []
    try:
        for path in paths:
            result = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
            if result.returncode != 0:
                pytest.skip(f"chattr +i failed: {result.stderr.decode().strip()}")
            done.append(path)
        yield
    finally:
        for path in done:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)


def test_18_read_only_files_raise_store_error(tmp_path: Path) -> None:
    fill(tmp_path)
    store = JsonFileStore(tmp_path / "snaps")
    with immutable(tmp_path / "snaps" / "a.json"):
        m = PlainTaskMachine.load(store, "a")
        m.send(Ev.TASK_CREATED)
        with pytest.raises(StoreError):
            m.save()  # replacing an immutable file fails
        with pytest.raises(StoreError):
            store.delete("a")
        assert store.load("a") is not None
    assert not list((tmp_path / "snaps").glob(".*.tmp"))
    with immutable(tmp_path / "db.sqlite"):
        try:
            sqlite = SqliteStore(tmp_path / "db.sqlite")
        except StoreError:
            return  # refusing to open is a StoreError too
        with sqlite, pytest.raises(StoreError):
            PlainTaskMachine.load(sqlite, "a").save()


def test_18_sqlite_errors_on_a_database_that_is_no_database_are_store_errors(
    tmp_path: Path,
) -> None:
    path = tmp_path / "db.sqlite"
    with SqliteStore(path) as store:
        store.save("a", {"x": 1}, 0)
    store = SqliteStore(path)
    store.close()
    calls: list[Callable[[], object]] = [
        store.list_ids,
        lambda: store.load("a"),
        lambda: store.save("a", {}, 1),
    ]
    for call in calls:
        with pytest.raises(StoreError):
            call()  # closed
    path.write_bytes(b"this is no database" * 1000)
    with pytest.raises(StoreError):
        SqliteStore(path)


def test_18_corrupt_sqlite_columns_are_snapshot_errors(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    with SqliteStore(path) as store:
        store.save("a", {"x": 1}, 0)
    for column, value in [("revision", "abc"), ("revision", 2), ("checksum", "sha256:00"),
                          ("checksum", 5), ("snapshot", '{"x":1,"revision":1}')]:  # fmt: skip
        with SqliteStore(path) as store:
            store.save("b", {"x": 1}, 0)
            db = sqlite3.connect(path)
            db.execute(
                f"UPDATE statewright_instances SET {column} = ? WHERE instance_id = 'b'", (value,)
            )
            db.commit()
            db.close()
            with pytest.raises(SnapshotError):
                store.load("b")
            store.delete("b")


def corrupt_bytes(original: bytes) -> list[bytes]:
    """Truncations, garbage, deep nesting and wrong types, each in place of ``original``."""
    data = json.loads(original)
    wrong = [dict(data, revision="7"), dict(data, revision=True), [data], None]
    return [
        original[: len(original) // 2],
        original[:-1],
        b"",
        b"not json",
        b"\xff\xfe",
        b"[" * 50_000 + b"]" * 50_000,
        b'{"revision":1,"x":' + b"[" * 200 + b"]" * 200 + b"}",
        original.replace(b"}", b',"revision":NaN}', 1),
        *(json.dumps(w).encode() for w in wrong),
    ]


def write_raw(kind: str, store: Store, tmp_path: Path, instance_id: str, raw: bytes) -> None:
    if isinstance(store, MemoryStore):
        store._data[instance_id] = (1, raw.decode("utf-8", "surrogateescape"))
    elif isinstance(store, JsonFileStore):
        (store.directory / f"{instance_id}.json").write_bytes(raw)
    else:
        assert isinstance(store, SqliteStore)
        db = sqlite3.connect(store.path)
        db.execute(
            "UPDATE statewright_instances SET snapshot = ?, checksum = NULL WHERE instance_id = ?",
            (raw.decode("utf-8", "replace"), instance_id),
        )
        db.commit()
        db.close()


def read_raw(store: Store, instance_id: str) -> bytes:
    if isinstance(store, MemoryStore):
        return store._data[instance_id][1].encode()
    if isinstance(store, JsonFileStore):
        return (store.directory / f"{instance_id}.json").read_bytes()
    assert isinstance(store, SqliteStore)
    db = sqlite3.connect(store.path)
    text = db.execute("SELECT snapshot FROM statewright_instances WHERE instance_id = ?",
                      (instance_id,)).fetchone()[0]  # fmt: skip
    db.close()
    return str(text).encode()


@pytest.mark.parametrize("kind", ["memory", "json", "sqlite"])
def test_18_corrupted_stored_snapshots_raise_snapshot_or_store_error(
    kind: str, tmp_path: Path
) -> None:
    store = open_store(kind, tmp_path)
    m = advanced(store=store, instance_id="c")
    m.save()
    for raw in corrupt_bytes(read_raw(store, "c")):
        write_raw(kind, store, tmp_path, "c", raw)
        loads: list[Callable[[], object]] = [
            lambda: store.load("c"),
            lambda: TaskMachine.load(store, "c", TaskHandlers()),
        ]
        for load in loads:
            try:
                load()
            except (SnapshotError, StoreError):
                continue
            raise AssertionError(f"{kind}: {raw[:80]!r} loaded")
    close(store)


@pytest.mark.parametrize("kind", ["memory", "json", "sqlite"])
def test_18_a_flipped_bit_is_detected(kind: str, tmp_path: Path) -> None:
    store = open_store(kind, tmp_path)
    m = advanced(store=store, instance_id="f")
    m.save()
    original = read_raw(store, "f")
    if isinstance(store, SqliteStore):
        db = sqlite3.connect(store.path)
        (checksum,) = db.execute("SELECT checksum FROM statewright_instances").fetchone()
        db.close()
    expected = store.load("f")
    positions = range(0, len(original) * 8, max(1, len(original) * 8 // 400))
    for bit in positions:
        flipped = bytearray(original)
        flipped[bit // 8] ^= 1 << (bit % 8)
        if isinstance(store, SqliteStore):
            db = sqlite3.connect(store.path)
            db.execute(
                "UPDATE statewright_instances SET snapshot = ?, checksum = ?",
                (bytes(flipped).decode("utf-8", "replace"), checksum),
            )
            db.commit()
            db.close()
        else:
            write_raw(kind, store, tmp_path, "f", bytes(flipped))
        try:
            loaded = TaskMachine.load(store, "f", TaskHandlers())
        except SnapshotError:
            continue
        # Only a flip that leaves the same JSON value (``\\u00e9`` vs ``\\u00E9``) may load.
        assert loaded.snapshot() == expected, f"bit {bit} flipped unnoticed"
    close(store)


def legacy_snapshot() -> dict[str, Any]:
    """A snapshot as today's stores wrote it (revision inside, no checksum)."""
    snapshot = advanced(instance_id="old").snapshot()
    snapshot["revision"] = 4
    return dict(snapshot)


def test_18_json_files_written_before_checksums_still_load(tmp_path: Path) -> None:
    text = json.dumps(legacy_snapshot(), separators=(",", ":"), sort_keys=True)
    (tmp_path / "old.json").write_text(text)  # byte for byte what the old save wrote
    store = JsonFileStore(tmp_path)
    m = TaskMachine.load(store, "old", TaskHandlers())
    assert m.revision == 4 and m.state is St.REFLECTING
    assert m.save() == 5
    assert json.loads((tmp_path / "old.json").read_text())["checksum"].startswith("sha256:")


def test_18_sqlite_rows_written_before_checksums_load_and_get_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE IF NOT EXISTS statewright_instances (instance_id TEXT PRIMARY KEY, "
        "machine TEXT NOT NULL, revision INTEGER NOT NULL, snapshot TEXT NOT NULL, "
        "updated_at REAL NOT NULL)"
    )  # today's schema, exactly
    text = json.dumps(legacy_snapshot(), separators=(",", ":"), sort_keys=True)
    db.execute(
        "INSERT INTO statewright_instances VALUES (?, ?, ?, ?, ?)",
        ("old", "PegasusTask", 4, text, 1767225600.0),
    )
    db.commit()
    db.close()
    with SqliteStore(path) as store:
        columns = [row[1] for row in store._db.execute("PRAGMA table_info(statewright_instances)")]
        assert columns[5:] == ["checksum", "next_due", "lease_until"]  # and layout 2's
        m = TaskMachine.load(store, "old", TaskHandlers())
        assert m.revision == 4 and m.state is St.REFLECTING
        assert m.save() == 5
        row = store._db.execute("SELECT checksum FROM statewright_instances").fetchone()
        assert row[0].startswith("sha256:")
    with SqliteStore(path) as again:  # the migration runs once
        assert TaskMachine.load(again, "old", TaskHandlers()).revision == 5


def test_18_temporary_files_of_crashed_writers_are_removed_under_the_lock(tmp_path: Path) -> None:
    store = JsonFileStore(tmp_path)
    PlainTaskMachine(None, options=MachineOptions(instance_id="j")).save(store)
    leftovers = [tmp_path / ".j.abc123_x.tmp", tmp_path / ".j.zz9.tmp"]
    keep = [tmp_path / "notes.tmp", tmp_path / ".lock", tmp_path / "j.json"]
    for path in [*leftovers, keep[0]]:
        path.write_text("partial")
    if sys.platform != "win32":
        import fcntl

        fd = os.open(tmp_path / ".lock", os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)  # a writer at work in another process
        JsonFileStore(tmp_path)
        assert all(path.exists() for path in leftovers)  # its file may be among them
        os.close(fd)
    JsonFileStore(tmp_path)
    assert not any(path.exists() for path in leftovers)
    assert all(path.exists() for path in keep)
    assert store.list_ids() == ["j"]


# ------------------------------------------------------------------------------------ item 19


class Lookalike(StrEnum):
    """Another enum with a member of the same value as TaskEvent.TASK_CREATED."""

    TASK_CREATED = "TASK_CREATED"
    CANCEL = "CANCEL"


class MixinLookalike(str, enum.Enum):
    TASK_CREATED = "TASK_CREATED"


class Text(str):
    pass


@pytest.mark.parametrize("foreign", [Lookalike.TASK_CREATED, MixinLookalike.TASK_CREATED])
def test_19_members_of_another_enum_are_unknown_events_on_every_path(foreign: Any) -> None:
    trivial = PlainTaskMachine(None)
    guarded = TaskMachine(TaskContext(), TaskHandlers())  # TASK_CREATED has a guard there
    for m in (trivial, guarded):
        with pytest.raises(UnknownEvent):
            m.dynamic.send(foreign, task_id="t")
        with pytest.raises(UnknownEvent):
            m.dynamic.can_send(foreign, task_id="t")
        assert m.state is St.IDLE and m.total_transitions == 0

    async def main() -> None:
        for m in (AsyncPlainTaskMachine(None), AsyncTaskMachine(TaskContext(), TaskHandlers())):
            with pytest.raises(UnknownEvent):
                await m.dynamic.send(foreign, task_id="t")
            assert m.state is St.IDLE

    asyncio.run(main())


def test_19_plain_strings_and_str_subclasses_still_work_on_the_fast_path() -> None:
    m = PlainTaskMachine(None)
    assert m.dynamic.send("TASK_CREATED") is St.PLANNING  # type: ignore[arg-type]  # untyped caller
    assert m.dynamic.send(Text("PLAN_DONE")) is St.PLAN_REVIEW  # type: ignore[arg-type]  # same
    assert [r.event for r in m.history] == [Ev.TASK_CREATED, Ev.PLAN_DONE]


# ------------------------------------------------------------------------------------ item 20


def test_20_save_all_saves_each_machine_to_its_own_store_and_tries_every_machine() -> None:
    registry_store, own_store = MemoryStore(), MemoryStore()
    registry: MachineRegistry[PlainTaskMachine] = MachineRegistry(store=registry_store)
    own = PlainTaskMachine(None, options=MachineOptions(instance_id="own", store=own_store))
    own.save()
    plain = PlainTaskMachine(None, options=MachineOptions(instance_id="plain"))
    registry.register(own)
    registry.register(plain)
    assert registry.save_all() == {"own": 2, "plain": 1}
    assert registry_store.list_ids() == ["plain"] and own_store.list_ids() == ["own"]
    own.send(Ev.TASK_CREATED)  # not stale
    rival = PlainTaskMachine.load(own_store, "own")
    rival.save()  # "own" now loses its next save
    later = PlainTaskMachine(None, options=MachineOptions(instance_id="later"))
    registry.register(later)
    with pytest.raises(RegistrySaveError) as info:
        registry.save_all()
    assert info.value.saved == {"plain": 2, "later": 1}  # the loop went on
    assert isinstance(info.value.failures["own"], Conflict)
    assert isinstance(info.value, StoreError)


# ------------------------------------------------------------------------------------ item 21


class FailingStore(MemoryStore):
    """A memory store whose saves fail with ``error`` while it is set."""

    def __init__(self) -> None:
        super().__init__()
        self.error: Exception | None = None

    def save(self, instance_id: str, snapshot: Mapping[str, Any], expected_revision: int, /) -> int:
        if self.error is not None:
            raise self.error
        return super().save(instance_id, snapshot, expected_revision)


def test_21_a_raising_clock_stops_before_any_action_runs() -> None:
    ticks = iter([1767225600.0])
    handlers = TaskHandlers()
    m = TaskMachine(TaskContext(), handlers, options=MachineOptions(clock=lambda: next(ticks)))
    m.send(Ev.TASK_CREATED, task_id="t")
    handlers.calls.clear()
    with pytest.raises(ClockError) as info:
        m.send(Ev.PLAN_DONE, steps=["a"])  # exit and transition actions would run
    assert isinstance(info.value, StatewrightError)
    assert isinstance(info.value.__cause__, StopIteration)
    assert handlers.calls == [] and m.state is St.PLANNING and m.total_transitions == 1


@pytest.mark.parametrize("error", [StoreError("disk full"), SnapshotError("bad"), OSError("raw")])
def test_21_a_failed_checkpoint_leaves_the_machine_in_the_source_state(error: Exception) -> None:
    store = FailingStore()
    m = TaskMachine(
        TaskContext(),
        TaskHandlers(),
        options=MachineOptions(store=store, instance_id="cp", history_limit=2, clock=FakeClock()),
    )
    m.send(Ev.TASK_CREATED, task_id="t")
    m.send(Ev.HEARTBEAT)  # the history is full: a checkpoint record would drop the oldest
    before = m.snapshot()
    store.error = error
    with pytest.raises(type(error)):
        m.send(Ev.PLAN_DONE, steps=["a", "b"])
    assert m.state is St.PLANNING and m.revision == 0
    after = m.snapshot()
    assert after.pop("context") == {
        "task_id": "",
        "steps_left": 2,
        "plan": ["a", "b"],
        "results": [],
    }  # actions' changes stay, as documented
    before.pop("context")
    assert after == before  # state, history, counters: untouched
    store.error = None
    assert m.send(Ev.PLAN_DONE, steps=["a"]) is St.PLAN_REVIEW  # not stale, usable
    stored = store.load("cp")
    assert stored is not None and stored["state"] == "plan_review" and m.revision == 1


def test_21_a_lost_checkpoint_race_leaves_the_source_state_and_a_stale_machine() -> None:
    store = MemoryStore()
    m = TaskMachine(TaskContext(), TaskHandlers(), options=MachineOptions(store=store))
    m.send(Ev.TASK_CREATED, task_id="t")
    m.save()
    TaskMachine.load(store, m.instance_id, TaskHandlers()).save()  # a rival saves first
    with pytest.raises(Conflict):
        m.send(Ev.PLAN_DONE, steps=["a"])
    assert m.state is St.PLANNING
    with pytest.raises(StatewrightError, match="stale"):
        m.send(Ev.CANCEL)


def test_21_async_checkpoints_follow_the_same_contract() -> None:
    async def main() -> None:
        store = FailingStore()
        m = AsyncTaskMachine(TaskContext(), TaskHandlers(), options=MachineOptions(store=store))
        await m.send(Ev.TASK_CREATED, task_id="t")
        store.error = StoreError("disk full")
        with pytest.raises(StoreError):
            await m.send(Ev.PLAN_DONE, steps=["a"])
        assert m.state is St.PLANNING and m.total_transitions == 1
        store.error = None
        assert await m.send(Ev.PLAN_DONE, steps=["a"]) is St.PLAN_REVIEW
        assert m.revision == 1

    asyncio.run(main())


def test_snapshot_is_always_strict_json() -> None:
    m = PlainTaskMachine(None)
    m.send(Ev.TASK_CREATED, nan=float("nan"), big=10**5000, keys={1: "a", None: "b"}, obj=object())
    snapshot = m.snapshot()
    json.dumps(snapshot, allow_nan=False)
    assert PlainTaskMachine.restore(snapshot).snapshot() == snapshot

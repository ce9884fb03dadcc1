"""Importing a generated module must not drag in the heavy standard library.

``statewright`` imports asyncio when an async machine first needs it; :class:`MachineRegistry`,
the store implementations (json, pathlib, tempfile, sqlite3), :class:`MachineOptions` and
:class:`TransitionRecord` (dataclasses) on first use of the name, and the machines defer what only
snapshots, history readers and listeners need. What a generated module needs at import imports
neither dataclasses (nor inspect, ast, dis), logging nor threading: building and running the first
machine imports those. No timings here (bench/bench_import.py measures those): each check runs a
fresh interpreter and looks at which modules the import added to ``sys.modules``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import subprocess
import sys
import typing

import pytest
import statewright

from tests.conftest import REPO

pytestmark = pytest.mark.slow

#: Never imported by ``import remem``, nor by building and running a machine: each costs a
#: millisecond or more, most of them far more.
DEFERRED = frozenset(
    {
        "asyncio",
        "concurrent.futures",
        "datetime",
        "json",
        "pathlib",
        "psycopg",
        "shutil",
        "socket",
        "sqlite3",
        "ssl",
        "statewright._idempotency",
        "statewright._registry",
        "statewright._stores.codec",
        "statewright._stores.dialect",
        "statewright._stores.files",
        "statewright._stores.memory",
        "statewright._stores.postgres",
        "statewright._stores.sql",
        "statewright._stores.sqlite",
        "statewright._stores.url",
        "statewright._timer_driver",
        "subprocess",
        "tempfile",
        "uuid",
    }
)
#: What importing dataclasses brings along.
DATACLASSES = frozenset({"ast", "dataclasses", "dis", "inspect"})
#: Not imported by ``import remem`` but by building the first machine (its default options are a
#: dataclass, it logs, it has a lock) and reading its history or calling a listener (records are
#: dataclasses): together about half of what importing remem cost.
OPTIONS = frozenset({"statewright._options", "statewright._payloads", "logging", "threading"})
OPTIONS |= DATACLASSES
HISTORY = frozenset({"statewright._history"}) | DATACLASSES
FIRST_MACHINE = OPTIONS | HISTORY
WATCHED = DEFERRED | FIRST_MACHINE


def imported_by(statement: str, then: str = "") -> list[str]:
    """The WATCHED modules a fresh interpreter has imported after ``statement`` (and ``then``)."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"{statement}\n"
        f"{then}\n"
        f"print(*sorted((set(sys.modules) - before) & {set(WATCHED)!r}))\n"
    )
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "runtime"), str(REPO / "generated")])
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


@pytest.mark.parametrize("statement", ["import remem", "import statewright"])
def test_import_leaves_heavy_modules_alone(statement: str) -> None:
    assert imported_by(statement) == []


#: Builds a ReMem machine with handlers that accept everything, sends events through the fast
#: and the slow path, reads state, counters and a listener's record (not timestamps: datetime).
RUN_REMEM = """
class Handlers:
    def __getattr__(self, name):
        return lambda context, payload: False
machine = remem.ReMemMachine({}, Handlers())
records = []
machine.add_listener(records.append)
machine.initialize(task_input="task")
machine.think(thought="hmm")
machine.act(result="done")
assert machine.state is remem.ReMemState.DONE and machine.total_transitions == 3
assert len(machine.history) == 3 and machine.statistics() and records[-1].event == "ACT"
"""


def test_building_and_running_a_machine_imports_what_it_needs_and_no_more() -> None:
    assert imported_by("import remem", RUN_REMEM) == sorted(FIRST_MACHINE)


@pytest.mark.parametrize("module", sorted(path.stem for path in (REPO / "generated").glob("*.py")))
def test_importing_a_generated_module_leaves_dataclasses_logging_and_threading_alone(
    module: str,
) -> None:
    # Every checked-in generated module, so that each template branch counts.
    assert imported_by(f"import {module}") == []


#: Builds a ReMem machine whose handlers accept everything (``then`` goes on with it).
BUILD_REMEM = """
import remem
class Handlers:
    def __getattr__(self, name):
        return lambda context, payload: False
machine = remem.ReMemMachine({}, Handlers())
"""


@pytest.mark.parametrize(
    ("then", "expected"),
    [
        # The default options are a MachineOptions; sending through the fast and the slow path
        # records history as plain tuples, so the records' module is not needed yet.
        ("", OPTIONS),
        (
            "machine.initialize(task_input='t'); machine.think(thought='h'); machine.statistics()",
            OPTIONS,
        ),
        ("machine.initialize(task_input='t'); machine.history", FIRST_MACHINE),
        ("machine.initialize(task_input='t'); machine.last_transition", FIRST_MACHINE),
        ("machine.add_listener([].append); machine.initialize(task_input='t')", FIRST_MACHINE),
        # Snapshots format timestamps (datetime); the context is checked without json.
        (
            "machine.initialize(task_input='t'); machine.snapshot()",
            FIRST_MACHINE | {"datetime"},
        ),
    ],
)
def test_building_and_running_a_machine_imports_on_first_use(then: str, expected: set[str]) -> None:
    assert set(imported_by(BUILD_REMEM, then)) == expected


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        # The values a generated module builds are no dataclasses.
        (
            "import door; from door import SPEC; SPEC == SPEC; repr(SPEC); "
            "hash(SPEC.transitions[door.DoorState.LOCKED][door.DoorEvent.UNLOCK])",
            set(),
        ),
        (
            "import remem; from remem import CHART; CHART == CHART; repr(CHART); hash(CHART)",
            set(),
        ),
        ("import statewright; statewright.MachineOptions()", OPTIONS),
        ("import statewright; statewright.ContextCodec", OPTIONS),
        ("import statewright; statewright.TransitionRecord(1, 2, 3, 0.0, 1, {})", HISTORY),
        ("import statewright; statewright.Listener", HISTORY),
        (
            "import statewright, typing; typing.get_type_hints(statewright.MachineOptions)",
            OPTIONS,
        ),
        (
            "import statewright; statewright.MachineRegistry()",
            {"logging", "statewright._registry", "threading"},
        ),
    ],
)
def test_first_use_imports(statement: str, expected: set[str]) -> None:
    assert set(imported_by(statement)) == expected


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("from statewright import ToolDefinition", {"dataclasses"}),
        ("from statewright import SqliteStore", {"sqlite3", "statewright._stores.sqlite"}),
        ("from statewright import MemoryStore", {"json", "statewright._stores.memory"}),
        (
            "from statewright import JsonFileStore",
            {"tempfile", "pathlib", "statewright._stores.files", "statewright._stores.codec"},
        ),
        ("from statewright import open_store", {"statewright._stores.url"}),
        ("from statewright import PostgresStore", {"statewright._stores.postgres"}),
        ("from statewright import SendResult", {"statewright._idempotency", "dataclasses"}),
        ("import statewright; statewright.PayloadCodec", {"statewright._payloads"}),
        ("from statewright import MachineRegistry", {"statewright._registry"}),
        ("from statewright import MachineOptions", {"statewright._options", "dataclasses"}),
        ("from statewright import TransitionRecord", {"statewright._history", "dataclasses"}),
        (
            "from statewright import *",
            {"sqlite3", "tempfile", "logging", *FIRST_MACHINE},
        ),
    ],
)
def test_lazy_names_import_their_modules_on_first_use(statement: str, expected: set[str]) -> None:
    assert expected <= set(imported_by(statement))


def test_lazy_names_are_the_real_classes() -> None:
    from statewright import (
        AsyncMachine,
        JsonFileStore,
        MachineRegistry,
        MemoryStore,
        SqliteStore,
        _history,
        _options,
    )
    from statewright._async import AsyncMachine as RealAsyncMachine
    from statewright._registry import MachineRegistry as RealMachineRegistry
    from statewright._stores.files import JsonFileStore as RealJsonFileStore
    from statewright._stores.memory import MemoryStore as RealMemoryStore
    from statewright._stores.protocol import Store as StoresStore
    from statewright._stores.sqlite import SqliteStore as RealSqliteStore

    assert AsyncMachine is RealAsyncMachine
    assert MachineRegistry is RealMachineRegistry
    assert SqliteStore is RealSqliteStore
    assert JsonFileStore is RealJsonFileStore
    assert MemoryStore is RealMemoryStore
    assert StoresStore is statewright.Store
    assert isinstance(MemoryStore(), statewright.Store)
    for module in (_options, _history):
        for name in module.__all__:
            if name in statewright.__all__:
                assert getattr(statewright, name) is getattr(module, name)
    assert {*_options.__all__, "Listener", "TransitionRecord"} <= set(statewright.__all__)


def test_options_and_records_are_plain_slotted_frozen_dataclasses() -> None:
    from statewright import MachineOptions, TransitionRecord

    for cls in (MachineOptions, TransitionRecord):
        assert dataclasses.is_dataclass(cls) and "__slots__" in cls.__dict__
        assert type(cls) is type  # no custom metaclass
    options = dataclasses.replace(MachineOptions(), history_limit=5)
    assert options.history_limit == 5 and options.thread_safe
    assert not hasattr(options, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.history_limit = 6  # type: ignore[misc]
    with pytest.raises(ValueError, match="history_limit must be >= 0"):
        MachineOptions(history_limit=-1)
    assert [f.name for f in dataclasses.fields(TransitionRecord)] == [
        "source",
        "event",
        "target",
        "epoch",
        "event_id",
        "payload",
        "error",
        "lateness",
    ]
    record = TransitionRecord("a", "go", "b", 0.0, 1, {"n": 1})
    assert not hasattr(record, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.error = "x"  # type: ignore[misc]
    assert dataclasses.asdict(record)["payload"] == {"n": 1}
    hints = typing.get_type_hints(MachineOptions)
    assert hints["history_limit"] == int | None
    assert hints["logger"] == logging.Logger | None
    assert typing.get_type_hints(TransitionRecord)["error"] == str | None


def test_every_public_name_is_listed_and_resolves() -> None:
    assert set(statewright.__all__) <= set(dir(statewright))
    for name in statewright.__all__:
        assert getattr(statewright, name) is not None
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchName'"):
        statewright.NoSuchName  # type: ignore[attr-defined]  # noqa: B018


def test_default_instance_ids_look_like_uuid4_hex() -> None:
    from tests.runtime.machines import PlainTaskMachine

    ids = {PlainTaskMachine(None).instance_id for _ in range(50)}
    assert len(ids) == 50
    assert all(re.fullmatch(r"[0-9a-f]{32}", instance_id) for instance_id in ids)

"""Importing a generated module must not drag in the heavy standard library.

``statewright`` imports :class:`AsyncMachine` (asyncio), :class:`MachineRegistry` and the store
implementations (json, pathlib, tempfile, sqlite3) on first use of the name, and the machines
defer what only snapshots and history readers need. What a generated module needs at import
imports neither dataclasses (nor inspect, ast, dis), logging nor threading: building the first
machine imports those. No timings here (bench/bench_import.py measures those): each check runs a
fresh interpreter and looks at which modules the import added to ``sys.modules``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

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
        "shutil",
        "socket",
        "sqlite3",
        "ssl",
        "statewright._async",
        "statewright._registry",
        "statewright._sqlite",
        "statewright._stores",
        "subprocess",
        "tempfile",
        "uuid",
    }
)
#: Not imported by ``import remem`` but by building the first machine (its default options are a
#: dataclass, it logs, it has a lock): together about half of what importing remem cost.
FIRST_MACHINE = frozenset({"ast", "dataclasses", "dis", "inspect", "logging", "threading"})
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


def test_importing_the_generated_modules_leaves_dataclasses_logging_and_threading_alone() -> None:
    modules = sorted(path.stem for path in (REPO / "generated").glob("*.py"))
    assert modules  # every checked-in generated module, so that each template branch counts
    assert imported_by("import " + ", ".join(modules)) == []


#: What importing dataclasses brings along.
DATACLASSES = {"ast", "dataclasses", "dis", "inspect"}


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        # The values a generated module builds are no dataclasses; MachineOptions and
        # TransitionRecord become dataclasses on first use.
        (
            "import remem; from remem import SPEC; SPEC == SPEC; repr(SPEC); "
            "hash(SPEC.transitions[remem.ReMemState.READY][remem.ReMemEvent.THINK])",
            set(),
        ),
        ("import statewright; statewright.MachineOptions()", DATACLASSES),
        ("import statewright; statewright.TransitionRecord(1, 2, 3, 0.0, 1, {})", DATACLASSES),
        (
            "import statewright, typing; typing.get_type_hints(statewright.MachineOptions)",
            DATACLASSES | {"logging", "threading"},
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
        ("from statewright import AsyncMachine", {"asyncio", "statewright._async"}),
        ("from statewright import SqliteStore", {"sqlite3", "statewright._sqlite"}),
        ("from statewright import MemoryStore", {"json", "statewright._stores"}),
        ("from statewright import JsonFileStore", {"tempfile", "pathlib", "statewright._stores"}),
        ("import statewright; statewright.AsyncMachine", {"asyncio"}),
        ("from statewright import MachineRegistry", {"statewright._registry"}),
        ("from statewright import *", {"asyncio", "sqlite3", "tempfile", "logging"}),
    ],
)
def test_lazy_names_import_their_modules_on_first_use(statement: str, expected: set[str]) -> None:
    assert expected <= set(imported_by(statement))


def test_lazy_names_are_the_real_classes() -> None:
    from statewright import AsyncMachine, JsonFileStore, MachineRegistry, MemoryStore, SqliteStore
    from statewright._async import AsyncMachine as RealAsyncMachine
    from statewright._registry import MachineRegistry as RealMachineRegistry
    from statewright._sqlite import SqliteStore as RealSqliteStore
    from statewright._stores import JsonFileStore as RealJsonFileStore
    from statewright._stores import MemoryStore as RealMemoryStore
    from statewright._stores import Store as StoresStore

    assert AsyncMachine is RealAsyncMachine
    assert MachineRegistry is RealMachineRegistry
    assert SqliteStore is RealSqliteStore
    assert JsonFileStore is RealJsonFileStore
    assert MemoryStore is RealMemoryStore
    assert StoresStore is statewright.Store
    assert isinstance(MemoryStore(), statewright.Store)


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

"""``statewright check-store``: a v1 fleet of the issue's agent task (tests/deploy/fleet.py) in
SQLite, PostgreSQL and JSON files, checked against the v2 module before its migration is written
(every instance named), with a migration that forgets the states (the two it strands named) and
with the whole migration (none); the store is only read, a batch at a time; bad usage exits 2.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from statewright import (
    ClosableStore,
    JsonFileStore,
    MachineOptions,
    PostgresStore,
    SqliteStore,
    Store,
)
from statewright._stores.postgres import shown_url
from statewright._stores.scan import scan_store
from statewright_compiler.commands.check_store import Progress

from tests.conftest import Run, run_cli
from tests.deploy.fleet import FLEET, V2_BUMPED, load_module, store_fleet, write_module
from tests.deploy.test_deploy_scenario import V2
from tests.runtime.store_kinds import postgres_schema_url

KINDS = ["sqlite", "json", "postgres"]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project folder holding the v2 module (``agent_v2_<n>``), as the working folder, with
    ``sys.path`` and ``sys.modules`` restored afterwards (the command imports from there)."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith(("agent_", "fleet_", "options_")):
            del sys.modules[name]


def _url(kind: str, folder: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite":
        return "sqlite:fleet.db"
    if kind == "json":
        return "file:fleet"
    return postgres_schema_url(request.getfixturevalue("postgres_url"))


def _open(kind: str, folder: Path, url: str) -> ClosableStore:
    if kind == "sqlite":
        return SqliteStore(folder / "fleet.db")
    if kind == "json":
        return JsonFileStore(folder / "fleet")
    return PostgresStore(url)


@pytest.fixture(params=KINDS)
def fleet(folder: Path, request: pytest.FixtureRequest) -> tuple[str, str, Store]:
    """``(kind, store URL, a store object on it)``: the fleet stored, the v2 module written."""
    kind = request.param
    url = _url(kind, folder, request)
    store = _open(kind, folder, url)
    request.addfinalizer(store.close)
    store_fleet(folder, store, f"{kind}_{id(folder)}")
    write_module(folder, V2_BUMPED, _v2(folder))
    return kind, url, store


def _v2(folder: Path) -> str:
    return f"agent_v2_{id(folder)}"


def _check(folder: Path, url: str, *options: str) -> Run:
    arguments = ["check-store", url, "--module", f"{_v2(folder)}:AgentTaskMachine", *options]
    return run_cli(arguments, cwd=folder)


def _stranded(result: Run) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in result.stdout.splitlines()[:-1])


def test_every_instance_is_stranded_before_the_migration_is_written(
    fleet: tuple[str, str, Store], folder: Path
) -> None:
    _, url, _ = fleet
    result = _check(folder, url, "--batch", "2")
    assert result.code == 1, result.stderr
    stranded = _stranded(result)
    assert sorted(stranded) == sorted(FLEET)
    assert all("no migration from 1 is configured" in reason for reason in stranded.values())
    shown = shown_url(url) if url.startswith("postgresql") else url  # never a password
    assert result.stdout.splitlines()[-1] == (
        f"check-store {shown}: 5 of 5 AgentTask instances stranded under version 2; "
        "not checked: 1 of other machines (Order: 1)"
    )


def test_a_migration_that_forgets_the_states_strands_the_instances_in_them(
    fleet: tuple[str, str, Store], folder: Path
) -> None:
    _, url, _ = fleet
    result = _check(folder, url, "--options", "tests.deploy.fleet:PARTIAL", "--batch", "2")
    assert result.code == 1, result.stderr
    assert _stranded(result) == {
        "task-archived": "state: 'legacy' is not a state of AgentTask",
        "task-suspended": "state: 'suspended' is not a state of AgentTask",
    }


def test_none_is_stranded_with_the_migration_and_workers_continue_every_one(
    fleet: tuple[str, str, Store], folder: Path
) -> None:
    _, url, store = fleet
    result = _check(folder, url, "--options", "tests.deploy.fleet:MIGRATED")
    assert result.code == 0, result.stdout + result.stderr
    assert result.stdout.startswith("check-store ") and ": 0 of 5 AgentTask" in result.stdout
    # what the check promised: v2 loads every instance (the suspended one with its child), and
    # the waiting one's deadline fires the transition it was armed for
    from tests.deploy.fleet import MIGRATED, START

    v2 = load_module(folder / f"{_v2(folder)}.py").AgentTaskMachine
    states = {}
    for instance_id in FLEET:
        clock = MachineOptions(clock=lambda: START + 25 * 3600, migrations=MIGRATED.migrations)
        machine = v2.load(store, instance_id, options=clock)
        if instance_id == "task-suspended":  # its reminder child came along, timer and all
            assert list(machine.children) == ["reminder"]
            assert machine.next_due == START + 12 * 3600
        machine.fire_due()
        states[instance_id] = str(machine.state)
        if instance_id == "task-suspended":  # the reminder's timer ended it; the task goes on
            assert not machine.children
            assert str(machine.send("WAKE")) == "awaiting_approval"
    assert states == {
        "task-archived": "expired",
        "task-done": "done",
        "task-planning": "planning",
        "task-suspended": "paused",
        "task-waiting": "expired",
    }


def test_a_spec_changed_without_a_version_bump_strands_by_fingerprint(
    fleet: tuple[str, str, Store], folder: Path
) -> None:
    _, url, _ = fleet
    write_module(folder, V2, _v2(folder))  # v2's edits, version 1 kept
    result = _check(folder, url, "--format", "json")
    assert result.code == 1, result.stderr
    document = json.loads(result.stdout)
    assert document["format"] == "statewright.check-store/1"
    assert (document["machine"], document["version"], document["checked"]) == ("AgentTask", 1, 5)
    assert document["fingerprint"] == _spec_hash(folder)
    assert document["others"] == {"Order": 1}
    assert [item["instance_id"] for item in document["stranded"]] == sorted(FLEET)
    assert {item["field"] for item in document["stranded"]} == {"spec_hash"}
    assert all("compatible_fingerprints" in item["reason"] for item in document["stranded"])


def test_the_store_is_only_read(fleet: tuple[str, str, Store], folder: Path) -> None:
    kind, url, store = fleet
    before = _contents(kind, folder, store)
    assert _check(folder, url, "--options", "tests.deploy.fleet:MIGRATED").code == 0
    assert _check(folder, url, "--batch", "1").code == 1
    assert _contents(kind, folder, store) == before


def _contents(kind: str, folder: Path, store: Store) -> Any:
    """What a write would change: the database file's bytes; the folder's files and their bytes;
    every row of the three tables."""
    if kind == "sqlite":
        return hashlib.sha256((folder / "fleet.db").read_bytes()).hexdigest()
    if kind == "json":
        return {path.name: path.read_bytes() for path in (folder / "fleet").iterdir()}
    assert isinstance(store, PostgresStore)
    with store._lock, store._session("test") as db:
        return [
            db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("statewright_instances", "statewright_history", "statewright_due")
        ]


def test_a_corrupted_instance_is_stranded_by_its_checksum(folder: Path) -> None:
    with SqliteStore(folder / "fleet.db") as store:
        store_fleet(folder, store, f"corrupt_{id(folder)}")
        store._db.execute(
            "UPDATE statewright_history SET record = replace(record, 'PLAN', 'PLAM') "
            "WHERE instance_id = 'task-waiting'"
        )
        _corrupt_kept_records(store, "task-waiting")
    write_module(folder, V2_BUMPED, _v2(folder))
    result = _check(folder, "sqlite:fleet.db", "--options", "tests.deploy.fleet:MIGRATED")
    assert result.code == 1
    stranded = _stranded(result)
    assert list(stranded) == ["task-waiting"]
    assert "does not match its checksum" in stranded["task-waiting"]


def _corrupt_kept_records(store: SqliteStore, instance_id: str) -> None:
    """The same change to the newest records, which the head row keeps (its text between the
    brackets of ``"recent":[...]``, statewright._stores.layout), the checksum left as it was."""
    (text,) = store._db.execute(
        "SELECT snapshot FROM statewright_instances WHERE instance_id = ?", (instance_id,)
    ).fetchone()
    found = re.match(r'\{"stored_history":\{"recent_chars":(\d+),[^[]*\[', text)
    assert found is not None
    start, end = found.end(), found.end() + int(found[1])
    changed = text[:start] + text[start:end].replace("PLAN", "PLAM") + text[end:]
    assert changed != text
    store._db.execute(
        "UPDATE statewright_instances SET snapshot = ? WHERE instance_id = ?",
        (changed, instance_id),
    )


def test_batches_hand_out_every_instance_once_in_id_order(folder: Path) -> None:
    with SqliteStore(folder / "many.db") as store:
        store_fleet(folder, store, f"batches_{id(folder)}")
    for batch in (1, 2, 4, 5, 6, 500):
        with scan_store(f"sqlite:{folder / 'many.db'}", "AgentTask", batch) as scan:
            assert scan.total == 5 and scan.others == {"Order": 1}
            ids = [instance.instance_id for instance in scan]
        assert ids == sorted(FLEET), batch


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["memory://"], "nothing to scan"),
        (["sqlite:missing.db"], "no such SQLite database"),
        (["file:missing"], "no such store directory"),
        (["ftp://x"], "no store for the scheme"),
        (["sqlite:fleet.db", "--batch", "0"], "--batch must be at least 1"),
        (["sqlite:fleet.db", "--module", "nosuchmodule:X"], "cannot import nosuchmodule"),
        (["sqlite:fleet.db", "--module", "json:dumps"], "not a generated machine class"),
        (["sqlite:fleet.db", "--module", "statewright"], "expected MODULE:CLASS"),
        (["sqlite:fleet.db", "--options", "json:dumps"], "--options json:dumps() raised"),
        (["sqlite:fleet.db", "--options", "json:JSONDecodeError"], "raised TypeError"),
        (["sqlite:fleet.db", "--options", "sys:path"], "not MachineOptions"),
        (["sqlite:fleet.db", "--options", "sys:modules"], "not a mapping of versions"),
    ],
)
def test_usage_errors_exit_2(folder: Path, arguments: list[str], message: str) -> None:
    SqliteStore(folder / "fleet.db").close()  # an empty store
    write_module(folder, V2_BUMPED, _v2(folder))
    if "--module" not in arguments:
        arguments = [*arguments, "--module", f"{_v2(folder)}:AgentTaskMachine"]
    result = run_cli(["check-store", *arguments], cwd=folder)
    assert result.code == 2, result.stdout + result.stderr
    assert result.stderr.startswith("statewright: error: ") and message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_database_that_is_no_statewright_store_is_a_usage_error(folder: Path) -> None:
    import sqlite3

    sqlite3.connect(folder / "other.db").close()
    write_module(folder, V2_BUMPED, _v2(folder))
    result = _check(folder, "sqlite:other.db")
    assert result.code == 2 and "not a statewright store" in result.stderr


def test_an_empty_store_passes(folder: Path) -> None:
    SqliteStore(folder / "fleet.db").close()
    write_module(folder, V2_BUMPED, _v2(folder))
    result = _check(folder, "sqlite:fleet.db")
    assert result.code == 0 and ": 0 of 0 AgentTask instances stranded" in result.stdout


def test_progress_is_one_rewritten_line() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    progress = Progress(stream, 3)
    for checked in (1, 2, 3):
        progress.show(checked, 1)
    progress.clear()
    text = stream.getvalue()
    assert text.startswith("\rcheck-store: checked 1 of 3, 1 stranded")
    assert "\rcheck-store: checked 3 of 3, 1 stranded" in text  # the last one always shows
    assert text.endswith("\r") and "\n" not in text


def _spec_hash(folder: Path) -> str:
    module = load_module(folder / f"{_v2(folder)}.py")
    return str(module.SPEC_HASH)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_scan_connection_refuses_writes(
    kind: str, folder: Path, request: pytest.FixtureRequest
) -> None:
    """Read-only where the database can say so: SQLite opened ``mode=ro``, a PostgreSQL session
    whose transactions are read only. A write through the scan's own connection fails."""
    url = _url(kind, folder, request)
    _open(kind, folder, url).close()  # creates the tables
    location = f"sqlite:{folder / 'fleet.db'}" if kind == "sqlite" else url
    with scan_store(location, "AgentTask") as scan:
        db = scan._reader._db  # type: ignore[attr-defined]  # the scan's own connection
        statement = "DELETE FROM statewright_instances"
        with pytest.raises(Exception, match=r"(?i)read-only|readonly|read only"):
            if kind == "postgres":
                db.execute("BEGIN")
            db.execute(statement)

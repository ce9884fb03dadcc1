"""``statewright diff OLD NEW --stub``: the migration's skeleton, typed on both sides. For the
issue's deploy (tests/deploy/fleet.py) mypy --strict reports exactly the two decisions left to
the author (where an instance of the removed state goes, the retyped field's value) and, once
they are made, nothing; an arm deleted by mistake is reported too; and the filled-in stub is the
migration ``check-store`` then passes with. Every spec of the repository gets a stub that
parses and that ruff leaves as it is."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from statewright import SqliteStore

from tests.conftest import REPO, run_cli
from tests.deploy.bases import FLAT
from tests.deploy.fleet import V1, V2_BUMPED, store_fleet, write_module
from tests.deploy.test_diff_command import IDS, SPECS, _renamed
from tests.mypy_cache import STRICT, run_mypy

#: The two decisions, as the author makes them.
FILLED = (
    ("            return ...", '            return "expired"'),
    ('"notes": ...,', '"notes": [old["notes"]] if old["notes"] else [],'),
)
#: The renamed state's arm, deleted by mistake.
FORGOTTEN = ('        case "suspended":\n            return "paused"\n', "")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith(("agent_", "fleet_", "stub_", "options_")):
            del sys.modules[name]


def _stub(folder: Path, old: str, new: str) -> str:
    (folder / "old.toml").write_text(old, encoding="utf-8")
    (folder / "new.toml").write_text(new, encoding="utf-8")
    result = run_cli(["diff", "old.toml", "new.toml", "--stub"], cwd=folder)
    assert result.code == 0, result.stderr
    return result.stdout


def _edited(text: str, *edits: tuple[str, str]) -> str:
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def test_the_stub_is_typed_on_both_sides_with_an_arm_per_change(folder: Path) -> None:
    stub = _stub(folder, V1, V2_BUMPED)
    assert stub.startswith("# Written by `statewright diff old.toml new.toml --stub`.\n")
    assert "MIGRATIONS: Final = {1: migrate}\n" in stub
    assert (
        'OldState = Literal[\n    "planning", "awaiting_approval", "suspended", "legacy", '
        '"expired", "done"\n]' in stub
    )
    assert (
        'NewState = Literal["planning", "awaiting_approval", "paused", "expired", "done"]' in stub
    )
    assert 'case "suspended":\n            return "paused"' in stub  # the likely rename
    assert 'case "legacy":\n            return ...' in stub  # the removed state: decide
    assert "class OldData(TypedDict):" in stub and "    notes: list[str]\n" in stub
    assert '"budget": old["budget"],' in stub and '"attempts": 0,' in stub
    assert "return migrate_snapshot(snapshot, state=state, timer=timer, data=data)" in stub


@pytest.mark.slow
def test_mypy_reports_each_decision_left_and_a_forgotten_arm(folder: Path) -> None:
    stub = _stub(folder, V1, V2_BUMPED)
    filled = _edited(stub, *FILLED)
    files = {"stub_left.py": stub, "stub_filled.py": filled}
    files["stub_forgotten.py"] = _edited(filled, FORGOTTEN)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    config = folder / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    checked = run_mypy(
        [
            "--config-file",
            str(config),
            *STRICT,
            "--python-version",
            "3.10",
        ],
        sorted(files),
        cwd=folder,
        cache_dir=folder / ".mypy_cache",
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    by_file = {name: [e for e in errors if e.startswith(name)] for name in files}
    assert by_file["stub_filled.py"] == [], checked.stdout
    left = by_file["stub_left.py"]
    assert len(left) == 2, checked.stdout
    assert '"EllipsisType", expected "Literal[' in left[0] and "[return-value]" in left[0]
    assert 'TypedDict item "notes" has type "list[str]"' in left[1]
    (forgotten,) = by_file["stub_forgotten.py"]
    assert 'to "assert_never" has incompatible type "Literal[\'suspended\']"' in forgotten


def test_the_filled_stub_is_the_migration_check_store_passes_with(folder: Path) -> None:
    with SqliteStore(folder / "fleet.db") as store:
        store_fleet(folder, store, f"stub_{id(folder)}")
    module = f"agent_v2_{id(folder)}"
    write_module(folder, V2_BUMPED, module)
    stub = _edited(_stub(folder, V1, V2_BUMPED), *FILLED)
    (folder / f"stub_{id(folder)}.py").write_text(stub, encoding="utf-8")
    arguments = ["check-store", "sqlite:fleet.db", "--module", f"{module}:AgentTaskMachine"]
    before = run_cli(arguments, cwd=folder)
    assert before.code == 1 and before.stdout.count("no migration from 1") == 5
    after = run_cli([*arguments, "--options", f"stub_{id(folder)}:MIGRATIONS"], cwd=folder)
    assert after.code == 0, after.stdout + after.stderr
    assert ": 0 of 5 AgentTask instances stranded" in after.stdout


def test_a_flat_machine_gets_states_alone(folder: Path) -> None:
    new = FLAT.replace("version = 1", "version = 2").replace('"rejected"', '"declined"')
    new = new.replace("[states.rejected]", "[states.declined]")
    stub = _stub(folder, FLAT, new)
    assert "def timer(" not in stub and "TypedDict" not in stub
    assert 'case "rejected":\n            return "declined"' in stub
    assert "return migrate_snapshot(snapshot, state=state)\n" in stub
    assert "MIGRATIONS: Final = {1: migrate}\n" in stub
    ast.parse(stub)


def test_a_version_not_raised_by_one_is_warned_about(folder: Path) -> None:
    (folder / "old.toml").write_text(FLAT, encoding="utf-8")
    (folder / "new.toml").write_text(FLAT.replace("version = 1", "version = 3"), encoding="utf-8")
    result = run_cli(["diff", "old.toml", "new.toml", "--stub"], cwd=folder)
    assert result.code == 0
    assert "warning: the stub migrates version 1 to 3" in result.stderr
    ast.parse(result.stdout)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_every_spec_gets_a_stub_that_parses_and_is_formatted(spec: Path, tmp_path: Path) -> None:
    text = spec.read_text(encoding="utf-8")
    stub = _stub(tmp_path, text, _renamed(text))
    ast.parse(stub)
    ruff = shutil.which("ruff", path=str(REPO / ".venv" / "bin")) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    (tmp_path / "stub.py").write_text(stub, encoding="utf-8")
    formatted = subprocess.run(
        [ruff, "format", "--isolated", "--check", "stub.py"], cwd=tmp_path, capture_output=True
    )
    assert formatted.returncode == 0, formatted.stdout.decode() + formatted.stderr.decode()

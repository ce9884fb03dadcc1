"""``statewright diff`` as a user runs it: every spec of the repository against itself and a
mutated copy, the ``REV:path`` form on a git repository, the JSON output against its schema,
and bad input as diagnostics (exit 2), never a traceback."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.model.fingerprint import fingerprint

from tests.conftest import REPO, run_cli
from tests.deploy.bases import FLAT, edited
from tests.deploy.git_repository import git, remove_rejected

SPECS = sorted(
    [
        *REPO.glob("tests/cases/*/spec.toml"),
        *REPO.glob("spec/*.toml"),
        *REPO.glob("examples/*.toml"),
    ]
)
IDS = [f"{spec.parent.name}/{spec.stem}" for spec in SPECS]
SCHEMA = json.loads((REPO / "docs" / "diff.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)


def _json(arguments: list[str], cwd: Path) -> dict[str, object]:
    result = run_cli([*arguments, "--format", "json"], cwd=cwd)
    assert result.code in (0, 1), result.stderr
    document: dict[str, object] = json.loads(result.stdout)
    assert not list(VALIDATOR.iter_errors(document))
    return document


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_every_spec_against_itself_has_no_changes(spec: Path) -> None:
    shown = spec.relative_to(REPO).as_posix()
    result = run_cli(["diff", shown, shown], cwd=REPO)
    assert result.code == 0, result.stderr
    assert "no changes" in result.stdout
    assert result.stdout.endswith("0 breaking, 0 needs-migration, 0 compatible; "
                                  f"version: no bump needed (version {_version(spec)} -> "
                                  f"{_version(spec)})\n")  # fmt: skip
    assert _json(["diff", shown, shown], REPO)["changes"] == []


def _version(spec: Path) -> int:
    found = re.search(r"^version = (\d+)", spec.read_text(encoding="utf-8"), re.MULTILINE)
    return int(found.group(1)) if found else 1


def _renamed(text: str) -> str:
    """The spec with its machine renamed and one event declared more."""
    text = re.sub(r'^(name = ")([^"]+)"', r'\1\2Renamed"', text, count=1, flags=re.MULTILINE)
    return text + '\n[events.DIFF_PROBE]\ndescription = "Added by the test."\n'


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_every_spec_against_a_mutated_copy(spec: Path, tmp_path: Path) -> None:
    text = spec.read_text(encoding="utf-8")
    (tmp_path / "old.toml").write_text(text, encoding="utf-8")
    (tmp_path / "new.toml").write_text(_renamed(text), encoding="utf-8")
    added = run_cli(["diff", "old.toml", "new.toml"], cwd=tmp_path)
    assert added.code == 1, added.stderr
    document = _json(["diff", "old.toml", "new.toml"], tmp_path)
    changes = document["changes"]
    assert isinstance(changes, list)
    found = {(c["class"], c["kind"], c["path"]) for c in changes}
    # a trigger matching every event (a chart's "*") now takes the new one too
    wildcards = {item for item in found if item[1] == "transition-added"}
    assert all(item[0] == "compatible" for item in wildcards)
    assert found - wildcards == {
        ("breaking", "machine-renamed", "machine.name"),
        ("compatible", "event-added", "events.DIFF_PROBE"),
    }
    assert document["summary"] == {
        "breaking": 1,
        "needs-migration": 0,
        "compatible": 1 + len(wildcards),
        "bump_required": True,
        "bumped": False,
        "compatible_fingerprint": None,
    }
    back = run_cli(["diff", "new.toml", "old.toml"], cwd=tmp_path)
    assert back.code == 1
    assert "  event-removed events.DIFF_PROBE: " in back.stdout  # callers may send it
    assert "  machine-renamed machine.name: " in back.stdout


def test_text_output_groups_changes_by_class_and_says_the_version_verdict(tmp_path: Path) -> None:
    edits = (
        ('on.REJECT = "rejected"\n', ""),
        ('[states.rejected]\non.REOPEN = "draft"\n', ""),
        ("REOPEN = {}", "ARCHIVE = {}"),
    )
    new = edited(FLAT, edits)
    (tmp_path / "old.toml").write_text(FLAT, encoding="utf-8")
    (tmp_path / "new.toml").write_text(new, encoding="utf-8")
    result = run_cli(["diff", "old.toml", "new.toml"], cwd=tmp_path)
    assert result.code == 1
    assert result.stdout == (
        "statewright diff old.toml new.toml (Order)\n"
        "breaking (1):\n"
        "  event-removed events.REOPEN: REOPEN is gone: callers send it\n"
        "needs-migration (1):\n"
        "  state-removed states.rejected: rejected is gone: stored instances in it are stranded\n"
        "compatible (1):\n"
        "  event-added events.ARCHIVE: ARCHIVE is new\n"
        "1 breaking, 1 needs-migration, 1 compatible; "
        "version: must be bumped (still 1, was 1): set version = 2\n"
    )
    bumped = new.replace("version = 1", "version = 2")
    (tmp_path / "new.toml").write_text(bumped, encoding="utf-8")
    result = run_cli(["diff", "old.toml", "new.toml"], cwd=tmp_path)
    assert result.code == 1  # bumped, but the stored instances still need a migration
    assert result.stdout.endswith(
        "version: bump needed, done (1 -> 2); stored instances need a migration\n"
    )


def test_compatible_changes_exit_zero(tmp_path: Path) -> None:
    (tmp_path / "old.toml").write_text(FLAT, encoding="utf-8")
    new = FLAT.replace('"An order."', '"A customer order."')
    (tmp_path / "new.toml").write_text(new, encoding="utf-8")
    result = run_cli(["diff", "old.toml", "new.toml"], cwd=tmp_path)
    assert result.code == 0
    assert "description-changed machine.description" in result.stdout
    assert "version: no bump needed" in result.stdout


def test_json_output_has_the_documented_shape(tmp_path: Path) -> None:
    (tmp_path / "old.toml").write_text(FLAT, encoding="utf-8")
    (tmp_path / "new.toml").write_text(FLAT.replace('priority = "int"', 'priority = "str"'))
    document = _json(["diff", "old.toml", "new.toml"], tmp_path)
    old, new = (_fingerprint(tmp_path / name) for name in ("old.toml", "new.toml"))
    assert document == {
        "format": "statewright.diff/1",
        "old": {"source": "old.toml", "machine": "Order", "version": 1, "fingerprint": old},
        "new": {"source": "new.toml", "machine": "Order", "version": 1, "fingerprint": new},
        "changes": [
            {
                "class": "breaking",
                "kind": "payload-field-retyped",
                "path": "events.SUBMIT.payload.priority",
                "message": "SUBMIT's payload field priority: int is now str",
            }
        ],
        "summary": {
            "breaking": 1,
            "needs-migration": 0,
            "compatible": 0,
            "bump_required": True,
            "bumped": False,
            "compatible_fingerprint": None,
        },
    }


def _fingerprint(path: Path) -> str:
    return fingerprint(compile_spec(path)[0])


def test_a_compatible_change_names_the_fingerprint_to_declare(tmp_path: Path) -> None:
    """Every change compatible, the meaning changed: the runtime refuses the old spec's snapshots
    at the same version until told they are compatible, and the report says how. A change of
    documentation only keeps the fingerprint: nothing to declare."""
    (tmp_path / "old.toml").write_text(FLAT, encoding="utf-8")
    (tmp_path / "new.toml").write_text(FLAT.replace("[events]", "[events]\nPING = {}"))
    old, new = _fingerprint(tmp_path / "old.toml"), _fingerprint(tmp_path / "new.toml")
    result = run_cli(["diff", "old.toml", "new.toml"], cwd=tmp_path)
    assert result.code == 0 and old != new
    assert result.stdout.endswith(
        f"fingerprint: {old} is now {new}: stored instances restore with "
        f"MachineOptions(compatible_fingerprints={{'{old}'}})\n"
    )
    document = _json(["diff", "old.toml", "new.toml"], tmp_path)
    assert document["summary"]["compatible_fingerprint"] == old  # type: ignore[index]  # a dict
    reworded = FLAT.replace('"An order."', '"A customer order."')
    (tmp_path / "new.toml").write_text(reworded, encoding="utf-8")
    assert "fingerprint:" not in run_cli(["diff", "old.toml", "new.toml"], cwd=tmp_path).stdout
    needs_bump = FLAT.replace('priority = "int"', 'priority = "str"')
    (tmp_path / "new.toml").write_text(needs_bump, encoding="utf-8")
    assert "fingerprint:" not in run_cli(["diff", "old.toml", "new.toml"], cwd=tmp_path).stdout


def test_the_schema_is_valid_and_lists_every_kind() -> None:
    from statewright_compiler.deploy.changes import KINDS

    Draft202012Validator.check_schema(SCHEMA)
    kinds = SCHEMA["properties"]["changes"]["items"]["properties"]["kind"]["enum"]
    assert kinds == list(KINDS)


def test_the_docs_page_lists_every_kind_with_its_class() -> None:
    from statewright_compiler.deploy.changes import KINDS

    page = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z?-]+)` \| ([a-z-]+) \|", page, flags=re.MULTILINE))
    assert rows == {kind: change_class.value for kind, change_class in KINDS.items()}


# --- bad input: exit 2, diagnostics, no traceback


def test_a_spec_that_does_not_validate_prints_its_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "old.toml").write_text(FLAT, encoding="utf-8")
    (tmp_path / "bad.toml").write_text(FLAT.replace('on.SUBMIT = "review"', 'on.SUBMIT = "reviw"'))
    result = run_cli(["diff", "old.toml", "bad.toml"], cwd=tmp_path)
    assert result.code == 2
    assert re.search(r"^bad\.toml:\d+:\d+: error\[unknown-state\]: ", result.stderr, re.MULTILINE)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("text", "code"),
    [("[machine\n", "toml-syntax"), (b"\xff\xfe".decode("latin-1"), "toml-syntax")],
)
def test_unparsable_specs_are_diagnostics(tmp_path: Path, text: str, code: str) -> None:
    (tmp_path / "old.toml").write_text(FLAT, encoding="utf-8")
    (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
    result = run_cli(["diff", "bad.toml", "old.toml"], cwd=tmp_path)
    assert result.code == 2
    assert f"error[{code}]" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "old.toml").write_text(FLAT, encoding="utf-8")
    result = run_cli(["diff", "old.toml", "nowhere.toml"], cwd=tmp_path)
    assert result.code == 2
    assert "no such spec file: nowhere.toml" in result.stderr
    assert run_cli(["diff", "old.toml"], cwd=tmp_path).code == 2  # argparse: NEW is missing


# --- REV:path


def test_a_spec_at_a_git_revision(repository: Path) -> None:
    remove_rejected(repository)
    result = run_cli(["diff", "main:spec/order.toml", "spec/order.toml"], cwd=repository)
    assert result.code == 1, result.stderr
    assert "state-removed states.rejected" in result.stdout
    # git's own syntax: REV:./path is relative to the working folder
    inside = run_cli(["diff", "HEAD:./order.toml", "order.toml"], cwd=repository / "spec")
    assert inside.stdout.replace("HEAD:./order.toml order.toml", "") == result.stdout.replace(
        "main:spec/order.toml spec/order.toml", ""
    )
    same = run_cli(["diff", "HEAD:spec/order.toml", "main:spec/order.toml"], cwd=repository)
    assert same.code == 0 and "no changes" in same.stdout


def test_a_bad_revision_or_path_is_a_usage_error(repository: Path) -> None:
    for side in ("nosuchrev:spec/order.toml", "main:spec/missing.toml"):
        result = run_cli(["diff", side, "spec/order.toml"], cwd=repository)
        assert result.code == 2, side
        assert result.stderr.startswith("statewright: error: git show"), result.stderr
        assert "Traceback" not in result.stderr


def test_an_invalid_spec_at_a_revision_is_named_by_its_revision(repository: Path) -> None:
    (repository / "spec" / "order.toml").write_text(FLAT.replace('"review"', '"reviw"', 1))
    git(repository, "commit", "-q", "-am", "broken")
    result = run_cli(["diff", "HEAD:spec/order.toml", "HEAD~1:spec/order.toml"], cwd=repository)
    assert result.code == 2
    assert re.search(r"^HEAD:spec/order\.toml:\d+:\d+: error\[unknown-state\]", result.stderr, re.M)


@pytest.mark.slow
def test_the_command_line_entry_point(repository: Path) -> None:
    """The one subprocess: ``python -m statewright_compiler diff`` as the in-process runs."""
    remove_rejected(repository)
    completed = subprocess.run(
        [sys.executable, "-m", "statewright_compiler", "diff", "HEAD:spec/order.toml",
         "spec/order.toml", "--format", "json"],
        capture_output=True, text=True, check=False, cwd=repository,
    )  # fmt: skip
    assert completed.returncode == 1, completed.stderr
    assert json.loads(completed.stdout)["summary"]["needs-migration"] == 1

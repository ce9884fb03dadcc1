"""The issue's deploy, as ``diff`` reports it: a v1 agent task (an approval wait with a deadline,
a suspended state remembering where it was, data) and a v2 that renames a state, removes one,
inserts a timer before the existing one, adds a data field and retypes another; and ``check``
against a baseline holding every spec of the repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.commands.diff import baseline_diagnostics

from tests.conftest import REPO, run_cli
from tests.deploy.git_repository import git, make_repository

V1 = """\
[machine]
name = "AgentTask"
initial = "planning"
version = 1

[data]
notes = { type = "str", initial = "" }
budget = { type = "float", initial = 10.0 }

[events]
PLAN = {}
APPROVE = {}
SUSPEND = {}
WAKE = {}
ARCHIVE = {}

[states.planning]
on.PLAN = "awaiting_approval"
on.ARCHIVE = "legacy"

[states.awaiting_approval]
kind = "wait"
on.APPROVE = "done"
on.SUSPEND = "suspended"
after = { delay = "24h", to = "expired" }

[states.suspended]
on.WAKE = "awaiting_approval"

[states.legacy]
kind = "final"

[states.expired]
kind = "final"

[states.done]
kind = "final"
"""

V2 = """\
[machine]
name = "AgentTask"
initial = "planning"
version = 1

[data]
notes = { type = "list[str]", initial = [] }
budget = { type = "float", initial = 10.0 }
attempts = { type = "int", initial = 0 }

[events]
PLAN = {}
APPROVE = {}
SUSPEND = {}
WAKE = {}
ARCHIVE = {}

[states.planning]
on.PLAN = "awaiting_approval"
on.ARCHIVE = "expired"

[states.awaiting_approval]
kind = "wait"
on.APPROVE = "done"
on.SUSPEND = "paused"
after = [{ delay = "1h", to = "planning" }, { delay = "24h", to = "expired" }]

[states.paused]
on.WAKE = "awaiting_approval"

[states.expired]
kind = "final"

[states.done]
kind = "final"
"""

REPORT = """\
statewright diff v1.toml v2.toml (AgentTask)
needs-migration (4):
  timer-added after.awaiting_approval.1h: after.awaiting_approval.1h is new: stored \
instances in awaiting_approval do not have it pending
  data-field-retyped data.notes: data field notes: str is now list[str]
  state-removed states.legacy: legacy is gone: stored instances in it are stranded
  state-renamed? states.suspended: suspended looks renamed to paused (same kind, parent and \
transitions): stored instances in suspended must be moved to paused
compatible (3):
  data-field-added data.attempts: new data field attempts: stored instances get 0
  data-field-initial-changed data.notes: data field notes starts otherwise (stored instances \
keep their values)
  transition-added states.planning.on.ARCHIVE: planning --ARCHIVE--> expired is new
0 breaking, 4 needs-migration, 3 compatible; version: must be bumped (still 1, was 1): set \
version = 2
"""


def test_the_issues_deploy_is_reported_change_by_change(tmp_path: Path) -> None:
    (tmp_path / "v1.toml").write_text(V1, encoding="utf-8")
    (tmp_path / "v2.toml").write_text(V2, encoding="utf-8")
    result = run_cli(["diff", "v1.toml", "v2.toml"], cwd=tmp_path)
    assert result.code == 1, result.stderr
    assert result.stdout == REPORT


@pytest.mark.slow
def test_check_against_a_baseline_holding_every_spec_of_the_repository(tmp_path: Path) -> None:
    """The baseline check over every spec of the repository (in-process, without generating:
    the command's own path is tested in test_check_baseline.py): unchanged, each passes; one
    changed incompatibly without a bump is refused, by name."""
    repo = make_repository(tmp_path)
    specs = sorted(
        [
            *REPO.glob("tests/cases/*/spec.toml"),
            *REPO.glob("spec/*.toml"),
            *REPO.glob("examples/*.toml"),
        ]
    )
    copies = []
    for spec in specs:
        target = repo / "all" / spec.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(spec, target)
        copies.append((target, target.relative_to(repo).as_posix()))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "every spec")

    machines = [compile_spec(path, shown)[0] for path, shown in copies]
    assert baseline_diagnostics(copies, machines, "HEAD") == []
    door = repo / "all" / "examples" / "door.toml"
    door.write_text(door.read_text().replace('name = "Door"', 'name = "Gate"', 1))
    machines = [m for m in machines if m.source_path != "all/examples/door.toml"]
    machines.append(compile_spec(door, "all/examples/door.toml")[0])
    found = baseline_diagnostics(copies, machines, "HEAD")
    assert [(d.code, d.path) for d in found] == [("version-not-bumped", "all/examples/door.toml")]
    assert "machine-renamed machine.name" in found[0].message

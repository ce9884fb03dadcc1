"""``statewright replay``: stored histories run again through a new module, the first divergence
reported (exit 1), the same decisions passing (exit 0), and what cannot replay said so.

The stored instances are real: a v1 module generated into a folder, instances driven through it
(sends, a timer fired by the clock, data) and saved in SQLite; then ``replay`` against v1 itself
and against a v2 whose edit changes one decision.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from statewright import MachineOptions, SqliteStore
from statewright_compiler.pipeline import module_source

from tests.conftest import run_cli
from tests.deploy.bases import compile_text

V1 = """\
[machine]
name = "Review"
initial = "drafting"
version = 1

[data]
rounds = { type = "int", initial = 0 }

[events]
SUBMIT = { payload = { title = "str" } }
APPROVE = {}
REJECT = {}

[states.drafting]
on.SUBMIT = { to = "reviewing", actions = [{ assign = "rounds", expr = "rounds + 1" }] }

[states.reviewing]
on.APPROVE = "approved"
on.REJECT = "drafting"
after = { delay = "1h", to = "drafting" }

[states.approved]
kind = "final"
"""
#: v2 sends a rejected draft to a new ``closed`` state instead of back to drafting.
V2 = V1.replace('on.REJECT = "drafting"', 'on.REJECT = "closed"') + (
    '\n[states.closed]\nkind = "final"\n'
)


class _Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[tuple[Path, str, str]]:
    """v1 and v2 written as modules (unique names: the CLI runs in this process)."""
    suffix = uuid.uuid4().hex[:8]
    names = (f"review_v1_{suffix}", f"review_v2_{suffix}")
    for name, text in zip(names, (V1, V2), strict=True):
        (tmp_path / f"{name}.py").write_text(module_source(compile_text(text)), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path, *names
    finally:
        sys.path.remove(str(tmp_path))
        for name in names:
            sys.modules.pop(name, None)


def _store(folder: Path, v1: str) -> str:
    """Three instances saved by v1: one approved, one rejected once (v2 decides that
    differently), one whose review timed out (a timer's record); one with a pruned history."""
    sys.modules.pop(v1, None)
    module: Any = __import__(v1)
    url = f"sqlite:///{folder / 'tasks.db'}"
    store = SqliteStore(folder / "tasks.db")
    clock = _Clock()

    def new(instance_id: str, limit: int | None = 1000) -> Any:
        options = MachineOptions(clock=clock, store=store, instance_id=instance_id)
        if limit is not None:
            options = MachineOptions(
                clock=clock, store=store, instance_id=instance_id, history_limit=limit
            )
        return module.ReviewMachine(None, options=options)

    approved = new("approved")
    approved.send_external("SUBMIT", {"title": "a"})
    clock.now += 60
    approved.send_external("APPROVE", {})
    rejected = new("rejected")
    rejected.send_external("SUBMIT", {"title": "b"})
    clock.now += 60
    rejected.send_external("REJECT", {})
    clock.now += 60
    rejected.send_external("SUBMIT", {"title": "c"})
    timed_out = new("timed-out")
    timed_out.send_external("SUBMIT", {"title": "d"})
    clock.now += 7200
    assert timed_out.fire_due() == 1
    pruned = new("pruned", limit=1)
    pruned.send_external("SUBMIT", {"title": "e"})
    pruned.send_external("APPROVE", {})
    for machine in (approved, rejected, timed_out, pruned):
        machine.save()
    store.close()
    return url


def _replay(folder: Path, url: str, module: str, *options: str) -> Any:
    return run_cli(
        ["replay", "--store", url, "--machine", f"{module}:ReviewMachine", "--path", str(folder),
         *options],
        cwd=folder,
    )  # fmt: skip


def test_the_same_module_replays_every_complete_history_the_same(
    modules: tuple[Path, str, str],
) -> None:
    folder, v1, _ = modules
    url = _store(folder, v1)
    run = _replay(folder, url, v1)
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "approved (Review): same, 2 event(s)" in lines
    assert "rejected (Review): same, 3 event(s)" in lines
    assert "timed-out (Review): same, 2 event(s)" in lines
    assert any(
        line.startswith("pruned (Review): not replayable: its history starts") for line in lines
    )
    assert lines[-1] == "4 instance(s): 3 same, 0 diverged, 1 not-replayable"


def test_a_changed_decision_is_reported_at_its_event_and_fails(
    modules: tuple[Path, str, str],
) -> None:
    folder, v1, v2 = modules
    url = _store(folder, v1)
    run = _replay(folder, url, v2)
    assert run.code == 1
    assert (
        "rejected (Review): diverged at event 2 (REJECT), after 1 the same: "
        "recorded reviewing -> drafting, new spec reviewing -> closed"
    ) in run.stdout.splitlines()
    only = _replay(folder, url, v2, "--instance", "rejected", "--format", "json")
    [outcome] = json.loads(only.stdout)["instances"]
    assert outcome == {
        "instance_id": "rejected", "machine": "Review", "status": "diverged", "events": 1,
        "event_id": 2, "event": "REJECT", "recorded": "reviewing -> drafting",
        "replayed": "reviewing -> closed", "reason": None,
    }  # fmt: skip


def test_an_event_the_new_spec_refuses_is_a_divergence(modules: tuple[Path, str, str]) -> None:
    folder, v1, v2 = modules
    url = _store(folder, v1)
    # this v2 takes REJECT nowhere: the recorded REJECT is refused
    refusing = module_source(compile_text(V1.replace('on.REJECT = "drafting"\n', "")))
    (folder / f"{v2}.py").write_text(refusing, encoding="utf-8")
    run = _replay(folder, url, v2, "--instance", "rejected")
    assert run.code == 1
    [line, summary] = run.stdout.splitlines()
    assert line.startswith(
        "rejected (Review): diverged at event 2 (REJECT), after 1 the same: recorded reviewing "
        "-> drafting, new spec refused: InvalidTransition:"
    )
    assert summary == "1 instance(s): 0 same, 1 diverged, 0 not-replayable"


def test_a_missing_store_or_class_is_a_usage_error(modules: tuple[Path, str, str]) -> None:
    folder, v1, _ = modules
    missing = _replay(folder, f"sqlite:///{folder / 'none' / 'x.db'}", v1)
    assert missing.code == 2 and "statewright: error:" in missing.stderr
    url = _store(folder, v1)
    wrong = run_cli(["replay", "--store", url, "--machine", "nowhere:Nothing"], cwd=folder)
    assert wrong.code == 2 and "cannot import nowhere" in wrong.stderr


def test_a_timer_that_now_means_another_transition_is_a_divergence(
    modules: tuple[Path, str, str],
) -> None:
    folder, v1, v2 = modules
    url = _store(folder, v1)
    moved = V2.replace(
        'after = { delay = "1h", to = "drafting" }', 'after = { delay = "1h", to = "closed" }'
    )
    (folder / f"{v2}.py").write_text(module_source(compile_text(moved)), encoding="utf-8")
    run = _replay(folder, url, v2, "--instance", "timed-out")
    assert run.code == 1
    [line, _] = run.stdout.splitlines()
    assert line.startswith("timed-out (Review): diverged at event 2 (")
    assert line.endswith("recorded reviewing -> drafting, new spec reviewing -> closed")

"""Eight worker processes over 100 tickets with child machines, timers and keyed events, for
about 30 s, against PostgreSQL and against one SQLite file; one worker is SIGKILLed a third of the
way in.

Checked afterwards, from the acknowledgement files and the stored tickets:

* no event applied twice: every idempotency key is in at most one history record, although
  each event was delivered by two workers racing each other;
* no lost update: every key a worker acknowledged (after ``send_once`` returned), the killed
  one's included, is in its ticket's history exactly once;
* revisions gapless: each acknowledged revision was won by one writer only, and a ticket's
  revision is 1 (its creation) plus one per applied event plus one per timer firing;
* no orphan child and no ticket waiting on a child that is not there: when the workers stop,
  a ticket has its review child exactly while it is waiting;
* every due timer fired exactly once: after a last ``fire_due_timers`` far in the future, each
  ticket's history alternates ``WAIT`` and its child's ``done.invoke.review``, and every one has
  a lateness (the child's timer fired late by that much).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from statewright import MachineOptions, fire_due_timers, open_store

from tests.runtime.chart_specs import compile_chart
from tests.runtime.fleet import CHILD_SPEC, SPEC, TIMER_EVENT
from tests.runtime.store_kinds import postgres_schema_url

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals"),
]

WORKER = Path(__file__).resolve().parent / "fleet.py"
WORKERS = 8
TICKETS = 100
SECONDS = float(os.environ.get("STATEWRIGHT_FLEET_SECONDS", "30"))
VICTIM = 3
OPTIONS = MachineOptions(history_limit=None, idempotency_window=1000)


def plan(events: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [
        [f"e{i}", f"t{rng.randrange(TICKETS)}", "WAIT" if rng.random() < 0.25 else "NOTE"]
        for i in range(events)
    ]


@pytest.fixture(params=["postgres", "sqlite"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/fleet.sqlite"
    return postgres_schema_url(request.getfixturevalue("postgres_url"))


def test_a_fleet_of_workers_loses_nothing_and_applies_nothing_twice(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compile_chart(tmp_path, CHILD_SPEC, "review")
    monkeypatch.syspath_prepend(str(tmp_path))  # the ticket module imports its child's: review
    module = compile_chart(tmp_path, SPEC, "ticket")
    machine_class = module.TicketMachine
    store: Any = open_store(store_url)
    try:
        _run_fleet(store, store_url, machine_class, tmp_path)
    finally:
        store.close()


def _run_fleet(store: Any, store_url: str, machine_class: Any, tmp_path: Path) -> None:
    for i in range(TICKETS):
        created = machine_class(None, options=MachineOptions(store=store, instance_id=f"t{i}"))
        assert created.save() == 1
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps(plan(60_000, seed=13)))
    deadline = time.time() + SECONDS
    children = [
        subprocess.Popen(
            _worker_command(tmp_path, store_url, w, plan_path, deadline),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WORKERS)
    ]
    time.sleep(SECONDS / 3)
    os.kill(children[VICTIM].pid, signal.SIGKILL)  # mid-run: often inside a save
    outputs = [child.communicate(timeout=SECONDS + 240) for child in children]
    for w, (child, (_, err)) in enumerate(zip(children, outputs, strict=True)):
        expected = -signal.SIGKILL if w == VICTIM else 0
        assert child.returncode == expected, f"worker {w}: {err[-3000:]}"
    summaries = [json.loads(out) for w, (out, _) in enumerate(outputs) if w != VICTIM]
    for i in range(TICKETS):  # no orphan child, no ticket waiting on a child that is not there
        ticket = machine_class.load(store, f"t{i}", options=OPTIONS)
        assert (ticket.state == "waiting") == ("review" in ticket.children), f"t{i}"
    while fire_due_timers(store, machine_class, now=time.time() + 3600, options=OPTIONS):
        pass  # the timers still running when the workers stopped
    acks = _acknowledgements(tmp_path)
    tickets = {f"t{i}": machine_class.load(store, f"t{i}", options=OPTIONS) for i in range(TICKETS)}
    _check(tickets, acks, summaries)


def _worker_command(
    folder: Path, store_url: str, index: int, plan_path: Path, deadline: float
) -> list[str]:
    acks = folder / f"acks{index}.txt"
    arguments = [folder, store_url, index, WORKERS, plan_path, deadline, acks]
    return [sys.executable, str(WORKER), *(str(argument) for argument in arguments)]


def _acknowledgements(folder: Path) -> list[tuple[str, str, bool, int]]:
    acks = []
    for w in range(WORKERS):
        path = folder / f"acks{w}.txt"
        for line in path.read_text().splitlines() if path.exists() else ():
            key, ticket, applied, revision = line.split()
            acks.append((key, ticket, applied == "1", int(revision)))
    return acks


def _check(
    tickets: dict[str, Any],
    acks: list[tuple[str, str, bool, int]],
    summaries: list[dict[str, int]],
) -> None:
    applied: dict[str, str] = {}  # key -> ticket, from the histories
    for ticket_id, machine in tickets.items():
        keys = [r.payload["key"] for r in machine.history if "key" in r.payload]
        duplicates = [key for key, n in Counter(keys).items() if n > 1]
        assert not duplicates, f"{ticket_id}: applied twice: {duplicates[:5]}"
        applied.update(dict.fromkeys(keys, ticket_id))
        _check_timers(ticket_id, machine)
        fired = sum(1 for r in machine.history if r.event == TIMER_EVENT)
        assert machine.revision == 1 + len(keys) + fired, f"{ticket_id}: revisions have a gap"
    for key, ticket_id, _, _ in acks:
        assert applied.get(key) == ticket_id, f"acknowledged {key} on {ticket_id} was lost"
    winners = Counter((ticket, revision) for _, ticket, won, revision in acks if won)
    assert all(n == 1 for n in winners.values()), "two writers won one revision"
    won = Counter(key for key, _, was_applied, _ in acks if was_applied)
    assert all(n == 1 for n in won.values()), "a key was applied by two workers"
    totals = {name: sum(s[name] for s in summaries) for name in summaries[0]}
    print(f"fleet: {len(acks)} acknowledged ({totals}), {len(applied)} keys applied")
    assert totals["sent"] > 30 * SECONDS, summaries  # the fleet did real work
    assert totals["duplicates"] > 3 * SECONDS, summaries  # and raced itself
    assert totals["fired"] > SECONDS, summaries


def _check_timers(ticket_id: str, machine: Any) -> None:
    waiting = False
    for record in machine.history:
        if record.event == "WAIT":
            assert not waiting, f"{ticket_id}: WAIT while a timer ran"
            waiting = True
        elif record.event == TIMER_EVENT:
            assert waiting, f"{ticket_id}: a timer fired twice (event {record.event_id})"
            assert record.lateness is not None and record.lateness >= 0
            waiting = False
    assert not waiting and machine.pending_timers == {}, f"{ticket_id}: a timer never fired"

"""A fleet of worker processes sharing one store (``test_fleet.py`` starts them).

The machine: a ticket that takes ``NOTE`` at any time (a targetless transition) and ``WAIT``
when open; waiting, it runs a child machine, a review whose 1 s timer ends it, which sends the
ticket back to open (``done.invoke.review``). Every event carries a unique idempotency key
(also in its payload, so the history shows which keys were applied). Each event of the plan is
delivered by two workers (its index modulo the number of workers names the first, the next one
is the second), at about the same time: at-least-once delivery, duplicates racing each other.

A worker, run as ``python fleet.py WORK_FOLDER STORE_URL INDEX WORKERS PLAN DEADLINE ACKS``:
for each of its events, load the ticket, ``send_once`` (a lost race reloads and sends again),
and only after that returned, append ``key ticket applied revision`` to its acknowledgement
file (written straight through, so a SIGKILL loses nothing acknowledged); every fifth event it
runs ``fire_due_timers``. At the deadline it prints a JSON summary.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The child machine a waiting ticket runs: a review that finishes after 1 s (its timer lives in
#: the ticket's snapshot, fired by ``fire_due_timers``; its end is the ticket's
#: ``done.invoke.review``).
CHILD_SPEC = """
[machine]
name = "Review"
initial = "reviewing"

[states.reviewing]
after = { delay = "1s", to = "reviewed" }

[states.reviewed]
kind = "final"
"""

SPEC = """
[machine]
name = "Ticket"
initial = "open"

[events]
NOTE = { payload = { key = "str" } }
WAIT = { payload = { key = "str" } }

[states.open]
on.NOTE = { to = [] }
on.WAIT = "waiting"

[states.waiting]
on.NOTE = { to = [] }
on."done.invoke.review" = "open"

[[states.waiting.invoke]]
id = "review"
machine = "review:ReviewMachine"
"""

TIMER_EVENT = "done.invoke.review"


def worker(
    folder: str, url: str, index: int, workers: int, plan_path: str, deadline: float, acks: str
) -> None:
    sys.path[:0] = [folder, str(ROOT), str(ROOT / "runtime")]
    from importlib import import_module

    from statewright import (
        Conflict,
        InvalidTransition,
        MachineOptions,
        fire_due_timers,
        open_store,
    )

    ticket = import_module("ticket")  # compiled by the test into ``folder``
    store = open_store(url)
    plan = json.loads(Path(plan_path).read_text())
    mine = [event for i, event in enumerate(plan) if i % workers in (index, (index + 1) % workers)]
    options = MachineOptions(history_limit=None, idempotency_window=1000)
    machine_class = ticket.TicketMachine
    events = ticket.TicketEvent
    out = os.open(acks, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    counts = {"sent": 0, "duplicates": 0, "rejected": 0, "conflicts": 0, "fired": 0}
    for n, (key, ticket_id, kind) in enumerate(mine):
        if time.time() > deadline:
            break
        while True:
            machine = machine_class.load(store, ticket_id, options=options)
            try:
                result = machine.send_once(key, events[kind], key=key)
            except Conflict:
                counts["conflicts"] += 1
                continue
            except InvalidTransition:
                counts["rejected"] += 1
                result = None
            break
        if result is not None:
            counts["sent" if result.applied else "duplicates"] += 1
            revision = machine.revision if result.applied else 0
            line = f"{key} {ticket_id} {int(result.applied)} {revision}\n"
            os.write(out, line.encode())  # acknowledged only now that the save returned
        if n % 5 == 0:
            counts["fired"] += fire_due_timers(
                store, machine_class, options=options, limit=20, lease_seconds=10
            )
    os.close(out)
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    folder, url, index, workers, plan, deadline, acks = sys.argv[1:8]
    worker(folder, url, int(index), int(workers), plan, float(deadline), acks)

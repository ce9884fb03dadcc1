"""Two small specs the change table edits: a flat machine and a chart with a data model,
history, a parallel state, an ``after`` timer and a delayed send (what stored instances hold)."""

from __future__ import annotations

from statewright_compiler.check.validate import validate_source
from statewright_compiler.model import Machine
from statewright_compiler.spec.load import parse_spec_text

__all__ = ["CHART", "FLAT", "compile_text", "edited"]

FLAT = """\
[machine]
name = "Order"
initial = "draft"
version = 1
description = "An order."

[events]
SUBMIT = { payload = { note = "str", priority = "int" } }
APPROVE = {}
REJECT = {}
REOPEN = {}

[states.draft]
on.SUBMIT = "review"

[states.review]
description = "Waiting for a reviewer."
tags = ["open"]
on.APPROVE = { to = "approved", guard = "is_ok" }
on.REJECT = "rejected"

[states.approved]
kind = "final"

[states.rejected]
on.REOPEN = "draft"
"""

CHART = """\
[machine]
name = "Job"
initial = "waiting"
version = 1

[data]
retries = { type = "int", initial = 0 }
note = { type = "str | None" }

[events]
GO = {}
DONE = {}
PAUSE = {}
RESUME = {}
PING = {}

[states.waiting]
on.GO = "working"
after = { delay = "5m", to = "expired" }

[states.working]
initial = "step_a"
on.DONE = "finished"
on.PAUSE = "paused"

[states.step_a]
parent = "working"
entry = [{ send = "PING", delay = "1m", id = "ping" }]
on.GO = { to = "step_b", actions = [{ assign = "retries", expr = "retries + 1" }] }

[states.step_b]
parent = "working"

[states.last]
parent = "working"
kind = "history"
history = "shallow"

[states.paused]
on.RESUME = "last"
on.PING = "paused"

[states.both]
kind = "parallel"

[states.left]
parent = "both"

[states.right]
parent = "both"

[states.expired]
kind = "final"

[states.finished]
kind = "final"
"""


def compile_text(text: str, name: str = "spec.toml") -> Machine:
    machine, _ = validate_source(parse_spec_text(text, name))
    return machine


def edited(base: str, edits: tuple[tuple[str, str], ...]) -> str:
    """``base`` with each ``(old, new)`` replacement made; ``old`` must occur exactly once."""
    text = base
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        text = text.replace(old, new)
    return text

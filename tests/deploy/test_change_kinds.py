"""Each kind of change ``statewright diff`` classifies, against hand-written expected results:
a base spec, an edit, and the exact set of (class, kind, path) the diff must report."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from statewright_compiler.deploy.changes import KINDS
from statewright_compiler.deploy.diff import diff_machines

from tests.deploy.bases import CHART, FLAT, compile_text, edited

C, M, B = "compatible", "needs-migration", "breaking"
CHART_HANDLER = """[[error_handlers]]
from = ["paused"]
to = "expired"
actions = ["log_error"]
"""
HANDLER = """[[error_handlers]]
from = ["draft", "review"]
to = "rejected"
actions = ["log_error"]
"""


HELPER = (
    'invoke = { id = "helper", machine = "research:ResearchMachine", '
    'params = { max_attempts = "retries" } }'
)
#: The chart with a child machine running while it is paused.
INVOKING = CHART.replace("[states.paused]\n", f"[states.paused]\n{HELPER}\n")


class Case(NamedTuple):
    name: str
    base: str
    edits: tuple[tuple[str, str], ...]
    expected: frozenset[tuple[str, str, str]]


def case(
    name: str, base: str, edits: list[tuple[str, str]], *expected: tuple[str, str, str]
) -> Case:
    return Case(name, base, tuple(edits), frozenset(expected))


CASES = [
    # --- the machine
    case(
        "machine renamed",
        FLAT,
        [('name = "Order"', 'name = "Purchase"')],
        (B, "machine-renamed", "machine.name"),
    ),
    case(
        "module renamed",
        FLAT,
        [('name = "Order"', 'name = "Order"\nmodule = "orders"')],
        (B, "module-renamed", "machine.module"),
    ),
    case(
        "version raised",
        FLAT,
        [("version = 1", "version = 2")],
        (C, "version-raised", "machine.version"),
    ),
    case(
        "version lowered",
        FLAT.replace("version = 1", "version = 2"),
        [("version = 2", "version = 1")],
        (B, "version-lowered", "machine.version"),
    ),
    case(
        "description changed",
        FLAT,
        [('"An order."', '"A customer order."')],
        (C, "description-changed", "machine.description"),
    ),
    case(
        "flat initial changed",
        FLAT,
        [('initial = "draft"', 'initial = "rejected"')],
        (M, "initial-changed", "machine.initial"),
    ),
    case(
        "chart initial changed",
        CHART,
        [('initial = "waiting"', 'initial = "paused"')],
        (C, "chart-initial-changed", "machine.initial"),
    ),
    case(
        "flat machine becomes a chart",
        FLAT,
        [('on.REOPEN = "draft"', 'on.REOPEN = "draft"\nafter = { delay = "1h", to = "draft" }')],
        (M, "machine-kind-changed", "machine"),
        (M, "timer-added", "after.rejected.1h"),
    ),
    case(
        "on_error changed",
        CHART,
        [("version = 1", 'version = 1\non_error = "event"')],
        (C, "on-error-changed", "machine.on_error"),
    ),
    # --- states
    case(
        "state added",
        FLAT,
        [
            ("[states.approved]", '[states.held]\non.APPROVE = "approved"\n\n[states.approved]'),
            ('on.REJECT = "rejected"', 'on.REJECT = "rejected"\non.REOPEN = "held"'),
        ],
        (C, "state-added", "states.held"),
        (C, "transition-added", "states.held.on.APPROVE"),
        (C, "transition-added", "states.review.on.REOPEN"),
    ),
    case(
        "state removed",
        FLAT,
        [('on.REJECT = "rejected"\n', ""), ('[states.rejected]\non.REOPEN = "draft"\n', "")],
        (M, "state-removed", "states.rejected"),
    ),
    case(
        "state renamed",
        FLAT,
        [
            ('on.REJECT = "rejected"', 'on.REJECT = "declined"'),
            ("[states.rejected]", "[states.declined]"),
        ],
        (M, "state-renamed?", "states.rejected"),
    ),
    case(
        "state value changed",
        FLAT,
        [("[states.rejected]\n", '[states.rejected]\nvalue = "declined"\n')],
        (M, "state-value-changed", "states.rejected"),
        (C, "label-changed", "states.rejected"),
    ),
    case(
        "state moved to another parent",
        CHART,
        [('[states.step_b]\nparent = "working"', '[states.step_b]\nparent = "both"')],
        (M, "state-moved", "states.step_b"),
        (M, "history-target-removed", "states.last"),
    ),
    case(
        "final state no longer final",
        FLAT,
        [('[states.approved]\nkind = "final"', '[states.approved]\non.REOPEN = "draft"')],
        (M, "state-no-longer-final", "states.approved"),
        (C, "transition-added", "states.approved.on.REOPEN"),
    ),
    case(
        "state became final",
        FLAT,
        [('[states.rejected]\non.REOPEN = "draft"', '[states.rejected]\nkind = "final"')],
        (M, "state-became-final", "states.rejected"),
        (M, "transition-removed", "states.rejected.on.REOPEN"),
    ),
    case(
        "atomic state became compound",
        CHART,
        [
            ("[states.paused]\n", "[states.paused]\n"),
            ("[states.expired]", '[states.nap]\nparent = "paused"\n\n[states.expired]'),
        ],
        (M, "state-became-compound", "states.paused"),
        (C, "state-added", "states.nap"),
    ),
    case(
        "compound state became parallel",
        CHART,
        [
            ('initial = "step_a"\n', ""),
            ("[states.working]\n", '[states.working]\nkind = "parallel"\n'),
            ('[states.last]\nparent = "working"\nkind = "history"\nhistory = "shallow"\n', ""),
            ('on.RESUME = "last"', 'on.RESUME = "working"'),
        ],
        (M, "state-became-parallel", "states.working"),
        (M, "history-removed", "states.last"),
        (C, "transition-added", "states.paused.on.RESUME"),
    ),
    case(
        "parallel state became atomic",
        CHART,
        [
            ('[states.both]\nkind = "parallel"\n', "[states.both]\n"),
            ('[states.left]\nparent = "both"\n\n[states.right]\nparent = "both"\n\n', ""),
        ],
        (M, "state-became-atomic", "states.both"),
        (M, "state-removed", "states.left"),
        (M, "state-removed", "states.right"),
    ),
    case(
        "state became a history state",
        CHART,
        [
            (
                '[states.step_b]\nparent = "working"\n',
                '[states.step_b]\nparent = "working"\nkind = "history"\n',
            ),
            ('on.GO = { to = "step_b", actions', 'on.GO = { to = "step_a", actions'),
        ],
        (M, "state-became-history", "states.step_b"),
        (M, "history-target-removed", "states.last"),
        (C, "transition-added", "states.step_a.on.GO"),
        (C, "chart-transition-removed", "states.step_a.on.GO"),
    ),
    case(
        "parallel region added",
        CHART,
        [("[states.expired]", '[states.middle]\nparent = "both"\n\n[states.expired]')],
        (M, "parallel-region-added", "states.middle"),
    ),
    case(
        "state kind changed to wait",
        FLAT,
        [("[states.review]\n", '[states.review]\nkind = "wait"\n')],
        (C, "state-kind-changed", "states.review"),
    ),
    case(
        "compound initial changed",
        CHART,
        [('initial = "step_a"', 'initial = "step_b"')],
        (C, "compound-initial-changed", "states.working"),
        (C, "history-default-changed", "states.last"),
    ),
    case(
        "entry steps changed",
        CHART,
        [("[states.paused]\n", '[states.paused]\nentry = ["remind"]\n')],
        (C, "entry-changed", "states.paused"),
    ),
    case(
        "exit steps changed",
        CHART,
        [("[states.paused]\n", '[states.paused]\nexit = ["remind"]\n')],
        (C, "exit-changed", "states.paused"),
    ),
    case(
        "docs of a state changed",
        FLAT,
        [
            ('"Waiting for a reviewer."', '"Waiting for review."'),
            ('tags = ["open"]', 'tags = ["open", "human"]'),
            (
                "[states.draft]\n",
                '[states.draft]\nlabel = "Draft"\nmetadata = { owner = "sales" }\n',
            ),
        ],
        (C, "description-changed", "states.review"),
        (C, "tags-changed", "states.review"),
        (C, "label-changed", "states.draft"),
        (C, "metadata-changed", "states.draft"),
    ),
    # --- history
    case(
        "history state removed",
        CHART,
        [
            ('[states.last]\nparent = "working"\nkind = "history"\nhistory = "shallow"\n', ""),
            ('on.RESUME = "last"', 'on.RESUME = "working"'),
        ],
        (M, "history-removed", "states.last"),
        (C, "transition-added", "states.paused.on.RESUME"),
    ),
    case(
        "history kind changed",
        CHART,
        [('history = "shallow"', 'history = "deep"')],
        (M, "history-kind-changed", "states.last"),
    ),
    case(
        "history target gone",
        CHART,
        [
            ('[states.step_b]\nparent = "working"\n', ""),
            ('on.GO = { to = "step_b", actions', 'on.GO = { to = "step_a", actions'),
        ],
        (M, "state-removed", "states.step_b"),
        (M, "history-target-removed", "states.last"),
        (C, "transition-added", "states.step_a.on.GO"),
    ),
    case(
        "history default changed",
        CHART,
        [('history = "shallow"', 'history = "shallow"\ndefault = "step_b"')],
        (C, "history-default-changed", "states.last"),
    ),
    # --- events
    case(
        "event added",
        FLAT,
        [
            ("REOPEN = {}", "REOPEN = {}\nARCHIVE = {}"),
            ('on.REOPEN = "draft"', 'on.REOPEN = "draft"\non.ARCHIVE = "approved"'),
        ],
        (C, "event-added", "events.ARCHIVE"),
        (C, "transition-added", "states.rejected.on.ARCHIVE"),
    ),
    case(
        "external event removed",
        FLAT,
        [
            ("REOPEN = {}\n", ""),
            ('[states.rejected]\non.REOPEN = "draft"', '[states.rejected]\nkind = "final"'),
        ],
        (B, "event-removed", "events.REOPEN"),
        (M, "transition-removed", "states.rejected.on.REOPEN"),
        (M, "state-became-final", "states.rejected"),
    ),
    case(
        "event value changed",
        FLAT,
        [("REJECT = {}", 'REJECT = { value = "reject" }')],
        (M, "event-value-changed", "events.REJECT"),
        (C, "label-changed", "events.REJECT"),
    ),
    case(
        "event made internal",
        CHART,
        [("PING = {}", "PING = { internal = true }")],
        (B, "event-made-internal", "events.PING"),
    ),
    case(
        "event made external",
        CHART.replace("PING = {}", "PING = { internal = true }"),
        [("PING = { internal = true }", "PING = {}")],
        (C, "event-made-external", "events.PING"),
    ),
    case(
        "payload field added, optional",
        FLAT,
        [('priority = "int" }', 'priority = "int", tag = "str | None" }')],
        (C, "payload-field-added", "events.SUBMIT.payload.tag"),
    ),
    case(
        "payload field added, required",
        FLAT,
        [('priority = "int" }', 'priority = "int", tag = "str" }')],
        (B, "payload-field-required", "events.SUBMIT.payload.tag"),
    ),
    case(
        "payload field removed",
        FLAT,
        [('note = "str", ', "")],
        (B, "payload-field-removed", "events.SUBMIT.payload.note"),
    ),
    case(
        "payload field retyped",
        FLAT,
        [('priority = "int"', 'priority = "str"')],
        (B, "payload-field-retyped", "events.SUBMIT.payload.priority"),
    ),
    case(
        "payload field widened",
        FLAT,
        [('priority = "int"', 'priority = "int | None"')],
        (C, "payload-field-widened", "events.SUBMIT.payload.priority"),
    ),
    case(
        "event description changed",
        FLAT,
        [("APPROVE = {}", 'APPROVE = { description = "A reviewer approves." }')],
        (C, "description-changed", "events.APPROVE"),
    ),
    # --- transitions
    case(
        "transition removed",
        FLAT,
        [('on.REOPEN = "draft"', 'on.REOPEN = "review"')],
        (M, "transition-removed", "states.rejected.on.REOPEN"),
        (C, "transition-added", "states.rejected.on.REOPEN"),
    ),
    case(
        "chart transition removed",
        CHART,
        [('on.PING = "paused"\n', "")],
        (C, "chart-transition-removed", "states.paused.on.PING"),
    ),
    case(
        "chart error route changed",
        edited(CHART, (("[states.waiting]", CHART_HANDLER + "\n[states.waiting]"),)),
        [('to = "expired"\nactions', 'to = "finished"\nactions')],
        (C, "chart-error-route-changed", "error_handlers.paused"),
    ),
    case(
        "guard changed",
        FLAT,
        [('guard = "is_ok"', 'guard = "is_ok and is_paid"')],
        (C, "guard-changed", "states.review.on.APPROVE"),
    ),
    case(
        "actions changed",
        FLAT,
        [('on.SUBMIT = "review"', 'on.SUBMIT = { to = "review", actions = ["notify"] }')],
        (C, "actions-changed", "states.draft.on.SUBMIT"),
    ),
    case(
        "checkpoint changed",
        FLAT,
        [('on.SUBMIT = "review"', 'on.SUBMIT = { to = "review", checkpoint = true }')],
        (C, "checkpoint-changed", "states.draft.on.SUBMIT"),
    ),
    case(
        "error route added",
        FLAT,
        [("[states.draft]", HANDLER + "\n[states.draft]")],
        (C, "error-route-added", "error_handlers.draft"),
        (C, "error-route-added", "error_handlers.review"),
    ),
    case(
        "error route removed",
        edited(FLAT, (("[states.draft]", HANDLER + "\n[states.draft]"),)),
        [('from = ["draft", "review"]', 'from = ["draft"]')],
        (M, "error-route-removed", "error_handlers.review"),
    ),
    case(
        "error route retargeted",
        edited(FLAT, (("[states.draft]", HANDLER + "\n[states.draft]"),)),
        [('to = "rejected"\nactions', 'to = "approved"\nactions')],
        (M, "error-route-retargeted", "error_handlers.draft"),
        (M, "error-route-retargeted", "error_handlers.review"),
    ),
    case(
        "error route actions changed",
        edited(FLAT, (("[states.draft]", HANDLER + "\n[states.draft]"),)),
        [('actions = ["log_error"]', 'actions = ["log_error", "alert"]')],
        (C, "actions-changed", "error_handlers.draft"),
        (C, "actions-changed", "error_handlers.review"),
    ),
    # --- timers
    case(
        "timer retargeted",
        CHART,
        [('after = { delay = "5m", to = "expired" }', 'after = { delay = "5m", to = "paused" }')],
        (M, "timer-retargeted", "after.waiting.5m"),
    ),
    case(
        "timer removed",
        CHART,
        [('after = { delay = "5m", to = "expired" }', 'after = { delay = "10m", to = "expired" }')],
        (M, "timer-removed", "after.waiting.5m"),
        (M, "timer-added", "after.waiting.10m"),
    ),
    case(
        "timer inserted before the existing one",
        CHART,
        [
            (
                'after = { delay = "5m", to = "expired" }',
                'after = [{ delay = "1m", to = "paused" }, { delay = "5m", to = "expired" }]',
            )
        ],
        (M, "timer-added", "after.waiting.1m"),
    ),
    case(
        "timer delay changed under a kept id",
        CHART.replace('delay = "5m", to', 'id = "deadline", delay = "5m", to'),
        [('delay = "5m"', 'delay = "10m"')],
        (M, "timer-delay-changed", "after.waiting.deadline"),
    ),
    case(
        "timer given an id",
        CHART,
        [
            (
                'after = { delay = "5m", to = "expired" }',
                'after = { id = "deadline", delay = "5m", to = "expired" }',
            )
        ],
        (M, "timer-removed", "after.waiting.5m"),
        (M, "timer-added", "after.waiting.deadline"),
    ),
    case(
        "timer restore policy changed",
        CHART,
        [
            (
                'after = { delay = "5m", to = "expired" }',
                'after = { delay = "5m", to = "expired", on_restore = "restart" }',
            )
        ],
        (C, "timer-restore-changed", "after.waiting.5m"),
    ),
    case(
        "delayed send removed",
        CHART,
        [('entry = [{ send = "PING", delay = "1m", id = "ping" }]\n', "")],
        (M, "send-timer-removed", "send.ping"),
        (C, "entry-changed", "states.step_a"),
    ),
    case(
        "delayed send changed",
        CHART,
        [('delay = "1m", id = "ping"', 'delay = "2m", id = "ping"')],
        (M, "send-timer-changed", "send.ping"),
        (C, "entry-changed", "states.step_a"),
    ),
    # --- the data model
    case(
        "data field added with a default",
        CHART,
        [
            (
                'note = { type = "str | None" }',
                'note = { type = "str | None" }\nlimit = { type = "int", initial = 3 }',
            )
        ],
        (C, "data-field-added", "data.limit"),
    ),
    case(
        "data field added, computed",
        CHART,
        [
            (
                'note = { type = "str | None" }',
                'note = { type = "str | None" }\nlimit = { type = "int", expr = "retries + 3" }',
            )
        ],
        (M, "data-field-added-computed", "data.limit"),
    ),
    case(
        "data field removed",
        CHART,
        [('note = { type = "str | None" }\n', "")],
        (M, "data-field-removed", "data.note"),
    ),
    case(
        "data field retyped",
        CHART,
        [
            (
                'retries = { type = "int", initial = 0 }',
                'retries = { type = "float", initial = 0.0 }',
            )
        ],
        (M, "data-field-retyped", "data.retries"),
        (C, "data-field-initial-changed", "data.retries"),
    ),
    case(
        "data field widened",
        CHART,
        [('note = { type = "str | None" }', 'note = { type = "str | int | None" }')],
        (C, "data-field-widened", "data.note"),
    ),
    case(
        "data field initial value changed",
        CHART,
        [("initial = 0 }", "initial = 1 }")],
        (C, "data-field-initial-changed", "data.retries"),
    ),
    case(
        "a state given data of its own, late binding",
        CHART.replace("version = 1", 'version = 1\nbinding = "late"'),
        [
            (
                "[states.paused]\n",
                '[states.paused]\ndata = { nap = { type = "int", initial = 0 } }\n',
            )
        ],
        (C, "data-field-added", "states.paused.data.nap"),
        (M, "state-data-added", "states.paused.data"),
    ),
    case(
        "data field moved to a state, late binding",
        CHART,
        [
            ("version = 1", 'version = 1\nbinding = "late"'),
            ('note = { type = "str | None" }\n', ""),
            ("[states.paused]\n", '[states.paused]\ndata = { note = { type = "str | None" } }\n'),
        ],
        (M, "data-field-moved", "states.paused.data.note"),
        (M, "data-binding-changed", "machine.binding"),
    ),
]


CASES += [
    # --- child machines
    case(
        "child machine added",
        CHART,
        [("[states.paused]\n", f"[states.paused]\n{HELPER}\n")],
        (M, "invoke-added", "states.paused.invoke[0]"),
    ),
    case(
        "child machine removed",
        INVOKING,
        [(f"{HELPER}\n", "")],
        (M, "invoke-removed", "states.paused.invoke[0]"),
    ),
    case(
        "child machine swapped",
        INVOKING,
        [('"research:ResearchMachine"', '"triage:TriageMachine"')],
        (M, "invoke-child-changed", "states.paused.invoke[0]"),
    ),
    case(
        "child machine id changed",
        INVOKING,
        [('id = "helper"', 'id = "assistant"')],
        (M, "invoke-child-changed", "states.paused.invoke[0]"),
    ),
    case(
        "child machine params changed",
        INVOKING,
        [('max_attempts = "retries"', 'max_attempts = "retries + 1"')],
        (C, "invoke-changed", "states.paused.invoke[0]"),
    ),
]


def _found(base: str, edits: tuple[tuple[str, str], ...]) -> frozenset[tuple[str, str, str]]:
    diff = diff_machines(compile_text(base), compile_text(edited(base, edits)))
    return frozenset((c.change_class.value, c.kind, c.path) for c in diff.changes)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_change_is_classified(case: Case) -> None:
    assert _found(case.base, case.edits) == case.expected


def test_the_table_covers_at_least_thirty_kinds() -> None:
    covered = {kind for case in CASES for _, kind, _ in case.expected}
    assert len(covered) >= 30, sorted(covered)
    assert covered <= set(KINDS)


def test_every_expected_class_is_the_kinds_class() -> None:
    for case in CASES:
        for change_class, kind, _ in case.expected:
            assert KINDS[kind].value == change_class, (case.name, kind)

"""The spec's fingerprint (``SPEC_HASH``, a snapshot's ``spec_hash``) is what the spec
means: documentation, comments and layout leave it alone, so a docs fix at the same version
keeps every stored instance loadable; a change of meaning gives a new one, which the runtime
refuses at the same version (tests/runtime/test_fingerprints.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from statewright_compiler.model.fingerprint import fingerprint

from tests.conftest import REPO
from tests.deploy.bases import compile_text

BASE = """\
[machine]
name = "Order"
initial = "draft"
description = "An order."

[data]
total = { type = "float", initial = 0.0, description = "What it costs." }

[events]
SUBMIT = { payload = { amount = "float" }, description = "Send it." }
APPROVE = {}

[states.draft]
label = "Draft"
on.SUBMIT = { to = "review", actions = [{ assign = "total", expr = "_event.data.amount" }] }

[states.review]
metadata = { owner = "ops" }
on.APPROVE = "done"
after = { delay = "1h", to = "draft" }

[states.done]
kind = "final"
"""

SAME_MEANING = {
    "descriptions": BASE.replace("An order.", "An order, reworded.").replace(
        "What it costs.", "Its price."
    ),
    "comments and layout": "# a comment\n" + BASE.replace("[states.done]", "\n\n[states.done]"),
    "labels and metadata": BASE.replace('label = "Draft"', 'label = "Drafting"').replace(
        'owner = "ops"', 'owner = "sales"'
    ),
    "the module's name": BASE.replace('name = "Order"', 'name = "Order"\nmodule = "orders_v2"'),
    "key order": BASE.replace(
        'name = "Order"\ninitial = "draft"', 'initial = "draft"\nname = "Order"'
    ),
}
OTHER_MEANING = {
    "a target": BASE.replace('on.APPROVE = "done"', 'on.APPROVE = "draft"'),
    "a timer's delay": BASE.replace('delay = "1h"', 'delay = "2h"'),
    "a data field's type": BASE.replace(
        'type = "float", initial = 0.0', 'type = "int", initial = 0'
    ).replace('amount = "float"', 'amount = "int"'),
    "an expression": BASE.replace('expr = "_event.data.amount"', 'expr = "_event.data.amount * 2"'),
    "an added event": BASE.replace("APPROVE = {}", "APPROVE = {}\nCANCEL = {}"),
}


@pytest.mark.parametrize("text", SAME_MEANING.values(), ids=SAME_MEANING)
def test_documentation_comments_and_layout_keep_the_fingerprint(text: str) -> None:
    assert fingerprint(compile_text(text)) == fingerprint(compile_text(BASE))


@pytest.mark.parametrize("text", OTHER_MEANING.values(), ids=OTHER_MEANING)
def test_a_change_of_meaning_changes_it(text: str) -> None:
    assert fingerprint(compile_text(text)) != fingerprint(compile_text(BASE))


@pytest.mark.slow  # subprocesses
def test_it_is_the_same_in_every_process() -> None:
    """No set or dict order reaches it: two interpreters with other hash seeds agree."""
    program = (
        "from tests.deploy.bases import compile_text\n"
        "from tests.deploy.test_spec_fingerprint import BASE\n"
        "from statewright_compiler.model.fingerprint import fingerprint\n"
        "print(fingerprint(compile_text(BASE)))\n"
    )
    found = {
        subprocess.run(
            [sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True,
            env={**os.environ, "PYTHONHASHSEED": seed}, check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }  # fmt: skip
    assert found == {fingerprint(compile_text(BASE))}

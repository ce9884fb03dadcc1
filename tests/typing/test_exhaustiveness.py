"""Exhaustive ``match`` over generated enums: a spec change breaks the consumer's type check.

A consumer handles every ``DoorState`` and ``DoorEvent`` member with ``case _: assert_never(x)``.
It passes ``mypy --strict``; after a state or an event is added to the spec and the module is
regenerated, the unchanged consumer fails, and the error names the new member.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.mypy_cache import TARGETS
from tests.typing import CASES, Message, generate, run_mypy

SPEC = """\
[machine]
name = "Door"
initial = "closed"

[states.closed]
on.OPEN = "open"
on.LOCK = { to = "locked", actions = ["remember_code"] }

[states.open]
on.CLOSE = "closed"

[states.locked]
on.UNLOCK = [
  { to = "closed", guard = "code_matches" },
  { to = "broken" },
]

[states.broken]
kind = "final"

[events.OPEN]
[events.CLOSE]
[events.LOCK]
payload = { code = "str" }
[events.UNLOCK]
payload = { code = "str", attempt = "int | None" }
"""

NEW_STATE = """
[states.jammed]
kind = "final"

[[transitions]]
from = "open"
event = "LOCK"
to = "jammed"
"""

NEW_EVENT = """
[events.KICK]

[[transitions]]
from = "open"
event = "KICK"
to = "broken"
"""


def _check(project: Path, spec_text: str, target: str) -> list[Message]:
    spec = project / "door.toml"
    spec.write_text(spec_text, encoding="utf-8")
    generate(spec, project)
    result, messages = run_mypy(["consumer.py"], project, target=target)
    assert result.code in {0, 1}, result.output  # 2 would be a mypy usage error or crash
    assert (result.code == 0) == (not messages), result.output
    return messages


def _assert_never_errors(messages: list[Message]) -> list[str]:
    """The error texts, after checking they all sit on the consumer's ``assert_never`` lines."""
    consumer = (CASES / "exhaustive_door.py.txt").read_text(encoding="utf-8").splitlines()
    errors = [message for message in messages if message.kind == "error"]
    for error in errors:
        assert error.path == "consumer.py", error
        assert "assert_never(" in consumer[error.line - 1], error
    return [error.message for error in errors]


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_new_state_or_event_breaks_exhaustive_consumer(tmp_path: Path, target: str) -> None:
    shutil.copyfile(CASES / "exhaustive_door.py.txt", tmp_path / "consumer.py")

    assert _check(tmp_path, SPEC, target) == []

    errors = _assert_never_errors(_check(tmp_path, SPEC + NEW_STATE, target))
    assert len(errors) == 1, errors
    assert 'Argument 1 to "assert_never" has incompatible type' in errors[0]
    assert '"Literal[DoorState.JAMMED]"' in errors[0]

    errors = _assert_never_errors(_check(tmp_path, SPEC + NEW_EVENT, target))
    assert len(errors) == 1, errors
    assert 'Argument 1 to "assert_never" has incompatible type' in errors[0]
    assert '"Literal[DoorEvent.KICK]"' in errors[0]

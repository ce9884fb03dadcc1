"""The mypy plugin: a str-valued enum compared with a string that is none of its values.

``cases/plugin_wrong.py.txt`` marks each comparison the plugin must reject (``# E: <part of the
message>``); ``cases/plugin_right.py.txt`` holds legal ones. Both are checked by a real mypy, with
the plugin enabled in the consumer's config file (targeting every supported Python: on 3.10 the
runtime's branch defines the ``StrEnum`` backport) and without it, next to a freshly generated
``door`` module; then both run, proving the rejected comparisons wrong and the accepted
ones true. The same check proves that the plugin's error code can be disabled: a copy of the
wrong cases whose config section disables it gets no error (a module's section sets what
``[mypy]`` sets for every module; one check instead of two, each of which would start from a
cold cache). The message wording is tested without mypy, on the plugin's functions.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from statewright_compiler.mypy_plugin import StrEnumValues, closest_value, problem

from tests.mypy_cache import TARGETS
from tests.typing import CASES, REPO, Message, expectations, generate, run, run_mypy

PLUGIN = "plugins = statewright_compiler.mypy_plugin\n"
WRONG, RIGHT, DISABLED = "plugin_wrong", "plugin_right", "plugin_disabled"
FILES = ["door.py", f"{WRONG}.py", f"{RIGHT}.py", f"{DISABLED}.py"]
CODE = "  [statewright-comparison]"
#: The plugin on, and its code off in the copy of the wrong cases.
WITH_PLUGIN = PLUGIN + f"\n[mypy-{DISABLED}]\ndisable_error_code = statewright-comparison\n"
#: The errors of the check with the plugin, by target (each target's is run once).
_WITH_PLUGIN: dict[str, list[Message]] = {}


@pytest.fixture(scope="module")
def consumer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plugin-consumer")
    generate(REPO / "examples" / "door.toml", folder)
    for name in (WRONG, RIGHT):
        shutil.copyfile(CASES / f"{name}.py.txt", folder / f"{name}.py")
    shutil.copyfile(CASES / f"{WRONG}.py.txt", folder / f"{DISABLED}.py")
    return folder


def _mypy(consumer: Path, name: str, *, config: str, target: str) -> list[Message]:
    """mypy in a copy of the consumer folder (its own config file and cache)."""
    folder = consumer.parent / f"{consumer.name}-{name}-{target}"
    shutil.copytree(consumer, folder)
    result, messages = run_mypy(FILES, folder, config=config, target=target)
    assert result.code in {0, 1}, result.output  # 2 would be a usage error or a crash
    assert "Invalid error code" not in result.output, result.output
    return [message for message in messages if message.kind == "error"]


def _with_plugin(consumer: Path, target: str) -> list[Message]:
    if target not in _WITH_PLUGIN:
        _WITH_PLUGIN[target] = _mypy(consumer, "plugin", config=WITH_PLUGIN, target=target)
    return _WITH_PLUGIN[target]


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_plugin_rejects_exactly_the_marked_comparisons(consumer: Path, target: str) -> None:
    errors = _with_plugin(consumer, target)
    expected = expectations(CASES / f"{WRONG}.py.txt")
    found = {(error.path, error.line) for error in errors}
    assert found == {(f"{WRONG}.py", line) for line in expected}, "\n".join(map(str, errors))
    for error in errors:
        # A rejected == is typed Any: returned, it is also "no-any-return" (marked where it is).
        assert error.message.endswith((CODE, "  [no-any-return]")), error
        parts = expected[error.line]["E"]
        assert any(part in error.message for part in parts), (error, parts)
    for line, marks in expected.items():
        on_line = [error.message for error in errors if error.line == line]
        assert len(on_line) == len(marks["E"]), (line, marks, on_line)


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_without_the_plugin_mypy_accepts_every_comparison(consumer: Path, target: str) -> None:
    assert _mypy(consumer, "no-plugin", config="", target=target) == []


@pytest.mark.slow
@pytest.mark.main_only
@pytest.mark.parametrize("target", TARGETS)
def test_the_code_can_be_disabled(consumer: Path, target: str) -> None:
    errors = _with_plugin(consumer, target)
    assert [error for error in errors if error.path == f"{DISABLED}.py"] == []
    assert any(error.path == f"{WRONG}.py" for error in errors)  # the same lines, enabled


@pytest.mark.slow
@pytest.mark.parametrize("name", [WRONG, RIGHT])
def test_the_cases_run_and_their_claims_hold(consumer: Path, name: str) -> None:
    executed = run([sys.executable, f"{name}.py"], consumer)
    assert executed.code == 0, executed.output


DOOR = StrEnumValues(
    "DoorState", {"closed": "CLOSED", "open": "OPEN", "locked": "LOCKED", "broken": "BROKEN"}
)
EVENT = StrEnumValues("DoorEvent", {"OPEN": "OPEN", "CLOSE": "CLOSE"})


def test_a_value_is_no_problem() -> None:
    assert problem("open", [DOOR], operator="==") is None
    assert problem("CLOSE", [DOOR, EVENT], operator="!=") is None


@pytest.mark.parametrize(
    ("operator", "expected"),
    [
        ("==", 'this comparison is always False; did you mean "locked", or "is DoorState.LOCKED"?'),
        (
            "!=",
            'this comparison is always True; did you mean "locked", or "is not DoorState.LOCKED"?',
        ),
        ("in", 'it never matches; did you mean "locked", or DoorState.LOCKED?'),
    ],
)
def test_the_message_names_the_enum_and_the_closest_member(operator: str, expected: str) -> None:
    message = problem("lockd", [DOOR], operator=operator)
    assert message == f'"lockd" is not a value of "DoorState", so {expected}'


def test_without_a_close_value_the_values_are_listed() -> None:
    message = problem("xyzzy", [DOOR, EVENT], operator="==")
    assert message == (
        '"xyzzy" is not a value of "DoorState" or "DoorEvent", so this comparison is always False'
        ' (values: "closed", "open", "locked", "broken", "OPEN", "CLOSE")'
    )
    many = StrEnumValues("Many", {f"value_{number}": f"V{number}" for number in range(10)})
    listed = problem("xyzzy", [many], operator="==")
    assert listed is not None and listed.endswith('"value_6", "value_7", ...)'), listed


def test_the_closest_value_prefers_the_same_case_then_ignores_case() -> None:
    assert closest_value("opn", [DOOR, EVENT]) == ("open", "DoorState.OPEN")
    assert closest_value("OPN", [DOOR, EVENT]) == ("OPEN", "DoorEvent.OPEN")
    assert closest_value("LOCKED", [DOOR]) == ("locked", "DoorState.LOCKED")
    assert closest_value("xyzzy", [DOOR]) is None

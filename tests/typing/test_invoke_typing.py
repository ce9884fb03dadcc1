"""mypy checks a parent machine against the child machines it invokes (#20).

The spec check cannot see a child's spec, only its module's name, so what the parent says about
the child is checked by mypy in the parent's generated module: each param assigned to a field of
the child's ``<Name>Data`` (a field it lacks, a value of the wrong type), each event sent to the
child a member of its ``<Name>Event``; and a consumer reaches a running child typed, through
``machine.children.<id>``. One mypy run per target Python checks the README's research machine
(the child), a parent that is right, three that are wrong in one way each, and a consumer
snippet with its expected errors marked (``# E:``).
"""

from __future__ import annotations

import shutil

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.mypy_cache import TARGETS
from tests.typing import CASES, REPO, Message, expectations, run_mypy

PARENT = """\
[machine]
name = "Lab"
module = "{module}"
initial = "running"

[data]
budget = {{ type = "int", initial = 3 }}

[events]
HINT = {{ payload = {{ text = "str" }} }}

[states.running]
on.HINT = {{ to = [], actions = [
  {{ send = "{event}", target = "#_searcher", data = {{ text = "_event.data.text" }} }},
] }}
on."done.invoke.searcher" = "done"

[[states.running.invoke]]
id = "searcher"
machine = "research:ResearchMachine"
params = {{ {field} = "{value}" }}

[states.done]
kind = "final"
"""
#: module -> (the param's field, its value, the event sent to the child), and what mypy says.
PARENTS = {
    "lab_right": (("max_attempts", "budget", "FOUND"), None),
    "lab_field": (("max_attempt", "budget", "FOUND"), 'has no attribute "max_attempt"'),
    "lab_type": (("findings", "budget", "FOUND"), 'variable has type "list[str]"'),
    "lab_event": (("max_attempts", "budget", "FOUNDX"), 'has no attribute "FOUNDX"'),
}
CONSUMER = "invoke_children"


def _where(source: str, text: str) -> int:
    """The line of the generated module holding ``text`` (1-based)."""
    (line,) = [n for n, each in enumerate(source.splitlines(), start=1) if text in each]
    return line


@pytest.fixture(scope="module", params=TARGETS)
def checked(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, str], list[Message]]:
    folder = tmp_path_factory.mktemp(f"invoke_{request.param}")
    shutil.copyfile(REPO / "generated" / "research.py", folder / "research.py")
    sources = {}
    for module, ((field, value, event), _) in PARENTS.items():
        text = PARENT.format(module=module, field=field, value=value, event=event)
        machine, _ = validate_source(parse_spec_text(text, f"{module}.toml"))
        sources[module] = module_source(machine)
        (folder / f"{module}.py").write_text(sources[module], encoding="utf-8")
    shutil.copyfile(CASES / f"{CONSUMER}.py.txt", folder / f"{CONSUMER}.py")
    files = ["research.py", *(f"{module}.py" for module in PARENTS), f"{CONSUMER}.py"]
    result, messages = run_mypy(files, folder, target=request.param)
    assert result.code in {0, 1}, result.output  # 2 would be a mypy usage error or crash
    return sources, [message for message in messages if message.kind == "error"]


@pytest.mark.slow
@pytest.mark.main_only  # mypy checks every target Python from the main interpreter
def test_a_parent_is_checked_against_its_child_module(
    checked: tuple[dict[str, str], list[Message]],
) -> None:
    sources, errors = checked
    assert not [error for error in errors if error.path in ("research.py", "lab_right.py")]
    for module, ((field, _, event), expected) in PARENTS.items():
        if expected is None:
            continue
        found = [(error.line, error.message) for error in errors if error.path == f"{module}.py"]
        wrong = f"ResearchEvent.{event}" if module == "lab_event" else f"child.{field} ="
        assert len(found) == 1 and expected in found[0][1], found
        assert found[0][0] == _where(sources[module], wrong), found


@pytest.mark.slow
@pytest.mark.main_only
def test_a_running_child_is_typed_as_its_machine(
    checked: tuple[dict[str, str], list[Message]],
) -> None:
    _, errors = checked
    expected = expectations(CASES / f"{CONSUMER}.py.txt")
    found = {error.line: error.message for error in errors if error.path == f"{CONSUMER}.py"}
    assert set(found) == set(expected), found
    for line, marks in expected.items():
        assert all(mark in found[line] for mark in marks["E"]), (line, found[line])

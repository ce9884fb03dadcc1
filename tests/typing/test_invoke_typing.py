"""mypy checks a parent machine against the child machines it invokes (#20).

The spec check cannot see a child's spec, only its module's name, so what the parent says about
the child is checked by mypy in the parent's generated module: each param assigned to a field of
the child's ``<Name>Data`` (a field it lacks, a value of the wrong type), each event sent to the
child a member of its ``<Name>Event``; and a consumer reaches a running child typed, through
``machine.children.<id>``. A child runs on its parent's handlers object, so the parent's handlers
protocol includes each child's: an object the parent's protocol accepts has every guard and
action of the tree. One mypy run per target Python checks the README's research machine (the
child), a parent that is right, three that are wrong in one way each, a child with handlers and
two parents of it (with handlers of their own and without), and consumer snippets with their
expected errors marked (``# E:``).
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

#: A child machine with a guard and actions, invoked by a parent with an action of its own
#: (``lab_tools``) and by one without any (``lab_bare``): each parent's handlers are the tree's.
CRAWLER = """\
[machine]
name = "Crawler"
module = "crawler"
initial = "fetching"
statechart = true

[events]
PAGE = { payload = { url = "str" } }

[states.fetching]
entry = ["open_session"]
on.PAGE = { to = "done", guard = "can_fetch", actions = ["record_page"] }

[states.done]
kind = "final"
"""
TREE_PARENT = """\
[machine]
name = "{name}"
module = "{module}"
initial = "running"

[events]
HINT = {{ payload = {{ text = "str" }} }}

[states.running]
on.HINT = {hint}
on."done.invoke.crawler" = "done"

[[states.running.invoke]]
id = "crawler"
machine = "crawler:CrawlerMachine"

[states.done]
kind = "final"
"""
#: module -> (machine name, the parent's own transition on HINT).
TREE_PARENTS = {
    "lab_tools": ("LabTools", '{ to = [], actions = ["log_hint"] }'),
    "lab_bare": ("LabBare", "{ to = [] }"),
}
TREE_CONSUMER = "invoke_handlers"


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
    specs = {"crawler": CRAWLER}
    for module, (name, hint) in TREE_PARENTS.items():
        specs[module] = TREE_PARENT.format(name=name, module=module, hint=hint)
    for module, text in specs.items():
        machine, _ = validate_source(parse_spec_text(text, f"{module}.toml"))
        sources[module] = module_source(machine)
        (folder / f"{module}.py").write_text(sources[module], encoding="utf-8")
    for consumer in (CONSUMER, TREE_CONSUMER):
        shutil.copyfile(CASES / f"{consumer}.py.txt", folder / f"{consumer}.py")
    files = [f"{module}.py" for module in ("research", *PARENTS, *specs, CONSUMER, TREE_CONSUMER)]
    result, messages = run_mypy(files, folder, target=request.param)
    assert result.code in {0, 1}, result.output  # 2 would be a mypy usage error or crash
    return sources, messages


def _errors(messages: list[Message]) -> list[Message]:
    return [message for message in messages if message.kind == "error"]


@pytest.mark.slow
@pytest.mark.main_only  # mypy checks every target Python from the main interpreter
def test_a_parent_is_checked_against_its_child_module(
    checked: tuple[dict[str, str], list[Message]],
) -> None:
    sources, messages = checked
    errors = _errors(messages)
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
    _, messages = checked
    errors = _errors(messages)
    expected = expectations(CASES / f"{CONSUMER}.py.txt")
    found = {error.line: error.message for error in errors if error.path == f"{CONSUMER}.py"}
    assert set(found) == set(expected), found
    for line, marks in expected.items():
        assert all(mark in found[line] for mark in marks["E"]), (line, found[line])


@pytest.mark.slow
@pytest.mark.main_only
def test_a_parent_handlers_object_serves_its_children(
    checked: tuple[dict[str, str], list[Message]],
) -> None:
    """A child runs on its parent's handlers object: the parent's protocol (sync and async)
    includes the child's, so an object missing a child's guard or action is a mypy error where
    the parent is built, restored or loaded, and the modules of the tree type-check."""
    _, messages = checked
    tree = ["crawler.py", *(f"{module}.py" for module in TREE_PARENTS)]
    assert not [error for error in _errors(messages) if error.path in tree]
    expected = expectations(CASES / f"{TREE_CONSUMER}.py.txt")
    file = f"{TREE_CONSUMER}.py"
    errors = {m.line: m.message for m in messages if m.path == file and m.kind == "error"}
    notes: dict[int, list[str]] = {}
    for message in messages:
        if message.path == file and message.kind == "note":
            notes.setdefault(message.line, []).append(message.message)
    assert set(errors) == set(expected), errors
    for line, marks in expected.items():
        assert all(mark in errors[line] for mark in marks["E"]), (line, errors[line])
        assert all(any(mark in note for note in notes[line]) for mark in marks["N"]), notes[line]

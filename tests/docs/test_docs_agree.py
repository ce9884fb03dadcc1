"""What the compiler writes into a user's project points at docs that exist, and what the docs
say about generated code is what it generates."""

from __future__ import annotations

import re
from pathlib import Path

from statewright_compiler import SPEC_LANGUAGE_URL
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.toml_compat import tomllib

from tests.compiler.shapes import large_shape
from tests.conftest import REPO, run_cli

#: A docs page named in text: a Markdown file under some ``docs/`` folder.
DOCS_REFERENCE = re.compile(r"[\w:/.-]*docs/[\w./-]+\.md")


def _repository() -> str:
    urls = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    repository: str = urls["Repository"]
    assert urls["Documentation"].startswith(repository), urls
    return repository


def _check_references(text: str, where: str) -> int:
    """Every docs page ``text`` names is an address of the project's repository (the wheel
    ships no docs) for a file that exists here; returns how many there are."""
    prefix = f"{_repository()}/blob/main/"
    found = 0
    for match in DOCS_REFERENCE.finditer(text):
        address = match.group(0)
        assert address.startswith(prefix), f"{where}: {address!r} is not an address of the project"
        assert (REPO / address.removeprefix(prefix)).is_file(), f"{where}: {address} is missing"
        found += 1
    return found


def test_the_starter_spec_points_at_docs_that_exist(tmp_path: Path) -> None:
    assert run_cli(["init", "--no-pre-commit"], cwd=tmp_path).code == 0
    starter = (tmp_path / "spec" / "task.toml").read_text(encoding="utf-8")
    assert _check_references(starter, "spec/task.toml") == 1
    assert SPEC_LANGUAGE_URL in starter


def test_generated_modules_point_at_docs_that_exist() -> None:
    checked = 0
    for spec in [*sorted((REPO / "spec").glob("*.toml")), REPO / "examples" / "agent_task.toml"]:
        machine, _ = compile_spec(spec)
        checked += _check_references(module_source(machine), spec.name)
        with large_shape():
            checked += _check_references(module_source(machine), f"{spec.name} (large)")
    assert checked  # the large shape explains its tables with a reference


def test_the_configuration_type_is_what_the_docs_say() -> None:
    generated = (REPO / "generated" / "agent_task.py").read_text(encoding="utf-8")
    assert "class AgentTaskConfiguration(NamedTuple):" in generated
    page = (REPO / "docs" / "spec-language.md").read_text(encoding="utf-8")
    said = " ".join(page.split("`<Name>Configuration`, ", 1)[1].split()[:3])
    assert said.startswith("a `NamedTuple`"), said

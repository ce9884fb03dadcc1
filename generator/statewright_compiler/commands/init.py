"""``statewright init``: set a project up to use statewright, without touching the user's files.

Everything is planned before anything is written. A file init would create that already exists
with other content is a conflict: init names it, writes nothing and exits 1. A file that already
says what init would write is kept, so running init twice changes nothing. The one file init may
add to is ``pyproject.toml``: a ``[tool.statewright]`` table is appended when there is none.

Generated modules need no tool exclusions: each says ``# ruff: noqa`` and ``# fmt: off``, so
ruff, Black and isort leave it alone (a test runs two ruff versions over a project made here).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from statewright_compiler import SPEC_LANGUAGE_URL
from statewright_compiler.codegen.jinja_env import template_environment
from statewright_compiler.config import Config, ConfigError, find_config, has_statewright_table
from statewright_compiler.spec.naming import constant_case, is_identifier
from statewright_compiler.spec.schema import schema_json

__all__ = ["InitConflict", "PlannedFile", "Step", "plan_init", "write_plan"]

SCHEMA_FILE: Final = "statewright.schema.json"
CONFIG_TABLE: Final = """
[tool.statewright]
specs = ["spec/*.toml"]
output = "generated"
docs = "docs/machines"
schema = "spec/statewright.schema.json"
"""
PRE_COMMIT_FILE: Final = ".pre-commit-config.yaml"
PRE_COMMIT_CONFIG: Final = """\
# Written by `statewright init`: fails a commit whose specs are invalid or whose generated
# files are stale. It runs the `statewright` of the environment pre-commit runs in.
repos:
  - repo: local
    hooks:
      - id: statewright-check
        name: statewright check
        entry: statewright check
        language: system
        pass_filenames: false
        always_run: true
"""


class InitConflict(Exception):
    """A file init would write exists with other content; nothing was written."""


class Step(enum.Enum):
    CREATE = "created"
    APPEND = "added [tool.statewright] to"
    KEEP = "kept"


@dataclass(frozen=True)
class PlannedFile:
    path: Path
    content: str
    step: Step


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise InitConflict(f"{path}: cannot read it ({error})") from None


def _own_file(path: Path, content: str, *, hint: str) -> PlannedFile:
    """A file init writes whole: created, kept when identical, a conflict otherwise."""
    existing = _read(path)
    if existing is None:
        return PlannedFile(path, content, Step.CREATE)
    if existing == content:
        return PlannedFile(path, content, Step.KEEP)
    raise InitConflict(f"{path} exists with other content; {hint}")


def _config(root: Path) -> tuple[Config, PlannedFile | None]:
    """The project's configuration, and the ``pyproject.toml`` step that sets it up if needed."""
    pyproject = root / "pyproject.toml"
    existing = _read(pyproject)
    try:
        if has_statewright_table(pyproject):
            return find_config(root), PlannedFile(pyproject, existing or "", Step.KEEP)
    except ConfigError as error:
        raise InitConflict(str(error)) from None
    if existing is None:
        content, step = CONFIG_TABLE.lstrip("\n"), Step.CREATE
    else:
        content, step = (
            existing + ("" if existing.endswith("\n") else "\n") + CONFIG_TABLE,
            Step.APPEND,
        )
    fresh = Config(
        root.resolve(),
        ("spec/*.toml",),
        root.resolve() / "generated",
        root.resolve() / "docs" / "machines",
        root.resolve() / "spec" / SCHEMA_FILE,
    )
    return fresh, PlannedFile(pyproject, content, step)


def plan_init(root: Path, name: str, *, pre_commit: bool = True) -> list[PlannedFile]:
    """What ``statewright init --name NAME`` would do in ``root``; raises :class:`InitConflict`."""
    if not (is_identifier(name) and name[0].isupper()):
        raise ValueError(f"--name {name!r} must be a PascalCase identifier, e.g. 'Order'")
    config, pyproject = _config(root)
    spec_folder = root.resolve() / PurePosixPath(config.specs[0]).parent
    spec = spec_folder / f"{constant_case(name).lower()}.toml"
    if not any(spec.relative_to(config.root).match(pattern) for pattern in config.specs):
        raise InitConflict(
            f"the starter spec {spec} would not match tool.statewright.specs "
            f"({', '.join(config.specs)}); add a spec yourself"
        )
    schema = config.schema or spec_folder / SCHEMA_FILE
    schema_reference = os.path.relpath(schema, spec.parent).replace(os.sep, "/")
    if not schema_reference.startswith("."):
        schema_reference = f"./{schema_reference}"
    starter = template_environment().get_template("starter.toml.jinja")
    plan = [] if pyproject is None else [pyproject]
    plan.append(
        _own_file(
            spec,
            starter.render(
                name=name, schema_path=schema_reference, spec_language_url=SPEC_LANGUAGE_URL
            ),
            hint="choose another --name",
        )
    )
    existing_schema = _read(schema)
    # The schema is statewright's own output (``generate`` refreshes a configured one).
    plan.append(
        PlannedFile(schema, schema_json(), Step.CREATE if existing_schema is None else Step.KEEP)
    )
    if pre_commit:
        hook = root / PRE_COMMIT_FILE
        existing = _read(hook)
        if existing is not None and "statewright check" not in existing:
            raise InitConflict(
                f"{hook} exists without a statewright hook; add this to its repos, or run "
                f"init with --no-pre-commit:\n{PRE_COMMIT_CONFIG.split('repos:', 1)[1]}"
            )
        step = Step.CREATE if existing is None else Step.KEEP
        plan.append(PlannedFile(hook, existing or PRE_COMMIT_CONFIG, step))
    return plan


def write_plan(plan: list[PlannedFile]) -> None:
    for planned in plan:
        if planned.step is Step.KEEP:
            continue
        planned.path.parent.mkdir(parents=True, exist_ok=True)
        planned.path.write_text(planned.content, encoding="utf-8")

"""``[tool.statewright]`` in the project's pyproject.toml: which specs, where outputs go."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statewright_compiler.spec.toml_compat import tomllib

__all__ = ["Config", "ConfigError", "find_config", "has_statewright_table", "statewright_table"]

_DEFAULT_SPECS = ("spec/*.toml",)


class ConfigError(ValueError):
    """The configuration itself is wrong: a usage error (exit code 2)."""


@dataclass(frozen=True)
class Config:
    root: Path
    """The folder holding pyproject.toml (or the working folder when there is none)."""
    specs: tuple[str, ...]
    """Glob patterns relative to ``root``."""
    output: Path
    docs: Path | None
    schema: Path | None = None
    """Where ``generate`` keeps the spec language's JSON Schema (for editors), if anywhere."""
    deploy_baseline: str | None = None
    """The git revision ``check`` compares each spec with (what is deployed), if any."""

    def spec_paths(self) -> list[Path]:
        found: dict[Path, None] = {}
        for pattern in self.specs:
            found.update(dict.fromkeys(sorted(self.root.glob(pattern))))
        return list(found)


def _section(pyproject: Path) -> dict[str, Any] | None:
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read [tool.statewright]: {error}") from None
    section = document.get("tool", {}).get("statewright")
    return section if isinstance(section, dict) else None


def has_statewright_table(pyproject: Path) -> bool:
    """Whether ``pyproject`` exists and has a ``[tool.statewright]`` table."""
    return pyproject.is_file() and _section(pyproject) is not None


def statewright_table(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest pyproject.toml at or above ``start`` with a ``[tool.statewright]`` table,
    and that table; None when there is none."""
    for folder in (start.resolve(), *start.resolve().parents):
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and (section := _section(pyproject)) is not None:
            return pyproject, section
    return None


def find_config(start: Path) -> Config:
    """Use the nearest pyproject.toml with a ``[tool.statewright]`` table, else the defaults."""
    found = statewright_table(start)
    if found is not None:
        pyproject, section = found
        return _from_section(pyproject.parent, section, pyproject)
    return Config(start.resolve(), _DEFAULT_SPECS, start.resolve() / "generated", None)


def _from_section(root: Path, section: dict[str, Any], pyproject: Path) -> Config:
    # ``mcp`` is ``statewright mcp``'s own table (statewright_compiler.mcp_server.settings).
    unknown = set(section) - {"specs", "output", "docs", "schema", "deploy_baseline", "mcp"}
    if unknown:
        raise ConfigError(
            f"{pyproject}: unknown [tool.statewright] keys: {', '.join(sorted(unknown))}"
        )
    specs = section.get("specs", list(_DEFAULT_SPECS))
    if isinstance(specs, str):
        specs = [specs]
    output, docs, schema = (
        section.get("output", "generated"),
        section.get("docs"),
        section.get("schema"),
    )
    if not (isinstance(specs, list) and all(isinstance(item, str) for item in specs)):
        raise ConfigError(f"{pyproject}: tool.statewright.specs must be a list of glob patterns")
    if not isinstance(output, str) or not (docs is None or isinstance(docs, str)):
        raise ConfigError(f"{pyproject}: tool.statewright.output and .docs must be folder paths")
    if not (schema is None or isinstance(schema, str)):
        raise ConfigError(f"{pyproject}: tool.statewright.schema must be a file path")
    baseline = section.get("deploy_baseline")
    if not (baseline is None or (isinstance(baseline, str) and baseline)):
        raise ConfigError(f"{pyproject}: tool.statewright.deploy_baseline must be a git revision")
    return Config(
        root,
        tuple(specs),
        root / output,
        root / docs if docs else None,
        root / schema if schema else None,
        baseline,
    )

"""Mutated seed specs: the compiler answers with diagnostics or with a sound module, nothing else.

Each case takes one of the repository's specs and applies a few random mutations, either to its
text (lines deleted, duplicated or swapped; words replaced by names, keywords and hostile
fragments; characters flipped; brackets piled up), which mostly tests the TOML layer, or to its
parsed document written back as TOML (keys dropped, renamed or added, values replaced by other
names, types and hostile text), which keeps the TOML valid and tests everything after it. Then:

* validation returns a machine or raises :class:`SpecError` (any other exception fails);
* every spec that validates renders a module and a docs page; the module compiles and imports
  against the runtime, and all of them pass the project's ruff rules (one ruff run at the end);
* a sample of them passes ``mypy --strict`` for this interpreter's Python (one mypy run at the
  end, see tests/mypy_cache.py).
"""

from __future__ import annotations

import copy
import random
import subprocess
import sys
import types
from pathlib import Path

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import SpecError
from statewright_compiler.docs.page import render_markdown
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text
from statewright_compiler.spec.toml_compat import tomllib

from tests.compiler.soundness import RULES, VERBATIM_TEXT_CODES, ruff_binary
from tests.compiler.specgen import toml_string
from tests.conftest import REPO
from tests.fuzz import budget, seed
from tests.mypy_cache import RUNNING, STRICT, run_mypy

SEEDS = sorted([*(REPO / "spec").glob("*.toml"), *(REPO / "examples").glob("*.toml")])
SEEDS += [REPO / "tests" / "cases" / name / "spec.toml" for name in ("kitchen_sink", "data_task")]
WORDS = [
    "__class__", "_x", "class", "match", "None", "self", "context", "payload", "event", "state",
    "send", "*", "tag:active", "<previous>", "", " ", "x" * 300, "Decimal", "typing", "Any",
    "Literal['a', 1]", "list[int]", "dict[str, Any]", "int | None", "not not g", "a and b or c",
    "__future__", "TAGS", "INITIAL_STATE", "final", "wait", "error", "true", "1", "-1",
]  # fmt: skip
FRAGMENTS = [
    "[", "]", "{", "}", '"', "'", '"""', "'''", "=", ",", "\n", "#", ".", "[[transitions]]\n",
    "[states.x]\n", 'on.GO = "x"\n', "[events.GO]\n", "\\", "`", "<script>", "|", "\x00",
    "[" * 40, "{ a = " * 40, "\ud7ff", "中文",
]  # fmt: skip
IDENTIFIER_CHARS = "abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def mutate(text: str, chooser: random.Random) -> str:
    for _ in range(chooser.randint(1, 4)):
        lines = text.split("\n")
        kind = chooser.randrange(7)
        if kind == 0 and len(lines) > 1:
            del lines[chooser.randrange(len(lines))]
        elif kind == 1:
            index = chooser.randrange(len(lines))
            lines.insert(index, lines[index])
        elif kind == 2 and len(lines) > 1:
            a, b = chooser.randrange(len(lines)), chooser.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
        elif kind == 3:
            # Replace a word (an identifier-like run) by a word of the pool.
            index = chooser.randrange(len(lines))
            line = lines[index]
            starts = [i for i, c in enumerate(line) if c in IDENTIFIER_CHARS]
            if starts:
                start = chooser.choice(starts)
                end = start
                while end < len(line) and line[end] in IDENTIFIER_CHARS:
                    end += 1
                lines[index] = line[:start] + chooser.choice(WORDS) + line[end:]
        elif kind == 4:
            position = chooser.randrange(len(text) + 1)
            text = text[:position] + chooser.choice(FRAGMENTS) + text[position:]
            continue
        elif kind == 5 and text:
            position = chooser.randrange(len(text))
            text = text[:position] + chr(chooser.randrange(32, 0x3000)) + text[position + 1 :]
            continue
        else:
            # Replace the contents of a quoted string by a hostile word.
            quotes = [i for i, c in enumerate(text) if c == '"']
            if len(quotes) >= 2:
                first = chooser.randrange(len(quotes) - 1)
                start, end = quotes[first], quotes[first + 1]
                text = text[: start + 1] + chooser.choice(WORDS + FRAGMENTS) + text[end:]
            continue
        text = "\n".join(lines)
    return text


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    assert isinstance(value, dict)
    return "{ " + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


def toml_document(document: dict[str, object]) -> str:
    """Any document as TOML: one table per top-level table, everything below it inline."""
    lines = []
    for key, value in document.items():
        if isinstance(value, dict):
            lines.append(f"[{toml_string(key)}]")
            lines += [f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()]
        else:
            lines.insert(0, f"{toml_string(key)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def random_value(chooser: random.Random, depth: int = 0) -> object:
    kind = chooser.randrange(8 if depth < 2 else 5)
    if kind == 0:
        return chooser.choice([True, False, 0, -1, 2**63, 1.5, float("inf")])
    if kind in (1, 2, 3):
        return chooser.choice(WORDS)
    if kind == 4:
        return chooser.choice(FRAGMENTS) + chooser.choice(WORDS)
    if kind in (5, 6):
        return [random_value(chooser, depth + 1) for _ in range(chooser.randint(0, 3))]
    return {chooser.choice(WORDS): random_value(chooser, depth + 1) for _ in range(2)}


def containers(value: object, found: list[dict[str, object] | list[object]]) -> None:
    if isinstance(value, dict | list):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found)


def mutate_document(document: dict[str, object], chooser: random.Random) -> str:
    for _ in range(chooser.randint(1, 3)):
        found: list[dict[str, object] | list[object]] = []
        containers(document, found)
        target = chooser.choice(found)
        if isinstance(target, list):
            if target and chooser.random() < 0.5:
                del target[chooser.randrange(len(target))]
            else:
                target.append(
                    copy.deepcopy(chooser.choice(target)) if target else random_value(chooser)
                )
            continue
        keys = list(target)
        action = chooser.randrange(4)
        if action == 0 and keys:
            del target[chooser.choice(keys)]
        elif action == 1 and keys:
            key = chooser.choice(keys)
            target[chooser.choice(WORDS) or "x"] = target.pop(key)
        elif action == 2 and keys:
            target[chooser.choice(keys)] = random_value(chooser)
        else:
            target[chooser.choice(WORDS) or "y"] = random_value(chooser)
    return toml_document(document)


def load_module(source: str, name: str) -> None:
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]


@pytest.mark.slow
def test_mutated_specs_get_diagnostics_or_sound_modules(tmp_path: Path) -> None:
    chooser = random.Random(seed())
    originals = [path.read_text(encoding="utf-8") for path in SEEDS]
    modules = tmp_path / "modules"
    modules.mkdir()
    valid = 0
    documents = [tomllib.loads(text) for text in originals]
    for case in range(budget()):
        if case % 2:
            text = mutate(chooser.choice(originals), chooser)
        else:
            text = mutate_document(copy.deepcopy(chooser.choice(documents)), chooser)
        where = f"seed {seed()}, case {case}"
        try:
            machine, _ = validate_source(parse_spec_text(text, "mutant.toml"))
        except SpecError as error:
            assert error.diagnostics, where
            assert all(d.line >= 1 and d.column >= 1 for d in error.diagnostics), where
            continue
        except Exception as error:  # pragma: no cover - what the fuzzer is looking for
            raise AssertionError(f"{where}: {type(error).__name__}: {error}\n{text}") from error
        valid += 1
        source = module_source(machine)
        render_markdown(machine)
        name = f"mutant_{case}"
        load_module(source, name)
        (modules / f"{name}.py").write_text(source, encoding="utf-8")
    assert valid, "no mutant validated: the mutations are too destructive to test modules"
    lint = subprocess.run(
        [ruff_binary(), "check", "--isolated", "--ignore-noqa", "--select", RULES,
         "--ignore", VERBATIM_TEXT_CODES, "--target-version", "py310", "--quiet", str(modules)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert lint.returncode == 0, f"seed {seed()}:\n{lint.stdout}"
    sample = sorted(modules.glob("*.py"))[:12]
    checked = run_mypy(
        [*STRICT, "--python-version", RUNNING], sample,
        cwd=tmp_path, cache_dir=tmp_path / ".mypy_cache",
        # a mutant of a parent machine imports its child's module: the repository's generated one
        env={"PATH": "", "MYPYPATH": f"{REPO / 'runtime'}:{REPO / 'generated'}"},
    )  # fmt: skip
    assert checked.returncode == 0, f"seed {seed()}:\n{checked.stdout}"

"""Hostile and mutated expressions in every expression slot: the compiler answers with
diagnostics or with a sound module, and nothing from the spec ever runs as code.

A chart with every expression slot (a cond, an assign's location and value, an if, a foreach, a
log, a send's event, delay, data, content, target and type, a cancel, a data initializer, both
forms of done data) gets, in one slot at a time, an entry of an injection corpus (quotes, newlines,
triple quotes, ``__import__``, dunders, huge numbers, deep nesting, ...) or a random expression
from a small grammar, possibly mutated token by token. Then:

* validation returns a machine or raises :class:`SpecError` with positions in the file;
* every module that compiles imports against the runtime, passes the project's ruff rules (one
  run) and, for a sample, ``mypy --strict`` (one run);
* the expression functions of every module hold only what the translation prints (an audit of
  their syntax trees: the four parameters, the allowed functions, no dunder attribute, no lambda
  or comprehension), and no corpus entry ever ran (its side effect, a file, never appears).
"""

from __future__ import annotations

import ast
import random
import subprocess
from pathlib import Path
from typing import Final

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import SpecError
from statewright_compiler.docs.page import render_markdown
from statewright_compiler.expressions.syntax import FUNCTIONS
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.compiler.soundness import RULES, VERBATIM_TEXT_CODES, ruff_binary
from tests.compiler.specgen import toml_string
from tests.conftest import REPO
from tests.fuzz import budget, seed
from tests.fuzz.test_spec_mutations import load_module
from tests.mypy_cache import RUNNING, STRICT, run_mypy

#: What a generated expression function may name: its parameters, the runtime's lookup, the
#: language's functions.
ALLOWED_NAMES: Final = frozenset({"data", "event", "system", "active", "lookup", *FUNCTIONS})
#: A file the corpus tries to create: it must never exist.
MARKER: Final = "statewright_fuzz_pwned"

#: Each slot with the valid expression it holds when another slot is under test.
SLOTS: Final = {
    "cond": "attempts < max_attempts",
    "location": "scores['k']",
    "value": "_event.data.score or 0",
    "if": "attempts > 1",
    "foreach": "findings",
    "log": "current",
    "eventexpr": "'NOTE'",
    "delayexpr": "'1s'",
    "param": "_event.data.text",
    "content": "{'text': current}",
    "targetexpr": "'#_internal'",
    "typeexpr": "'scxml'",
    "cancel": "current",
    "initial": "max_attempts * 2",
    "donedata": "len(findings)",
    "donedata_expr": "findings[0] if findings else None",
}
TEMPLATE: Final = """
[machine]
name = "Fuzzed"
initial = "working"
on_error = "event"

[data]
attempts = {{ type = "int", initial = 0 }}
max_attempts = {{ type = "int", initial = 3 }}
budget = {{ type = "int", expr = {initial} }}
findings = {{ type = "list[str]", initial = [] }}
scores = {{ type = "dict[str, int]", initial = {{}} }}
current = {{ type = "str", initial = "" }}
position = {{ type = "int", initial = 0 }}
anything = {{ type = "Any", initial = 1 }}

[events]
FOUND = {{ payload = {{ text = "str", score = "int | None" }} }}
NOTE = {{ payload = {{ text = "str" }}, internal = true }}
STOP = {{}}

[states.working]
initial = "a"
on.FOUND = {{ to = "b", cond = {cond}, actions = [
  {{ assign = {location}, expr = {value} }},
  {{ if = {if}, then = [{{ log = "l", expr = {log} }}] }},
  {{ foreach = {foreach}, item = "current", index = "position" }},
  {{ eventexpr = {eventexpr}, delayexpr = {delayexpr}, targetexpr = {targetexpr} }},
  {{ send = "NOTE", data = {{ text = {param} }}, typeexpr = {typeexpr} }},
  {{ send = "NOTE", content = {content} }},
  {{ cancel_expr = {cancel} }},
] }}
on.STOP = "over"
on."done.state.working" = "over"

[states.a]
parent = "working"

[states.b]
parent = "working"
on.NOTE = "done"

[states.done]
parent = "working"
kind = "final"
donedata = {{ count = {donedata} }}

[states.over]
kind = "final"
donedata = {donedata_expr}
"""
CORPUS: Final = [
    '"', "'", '"""', "'''", "\\", "\n", "\r\n", "\t", "\x00", "\u2028", "", " ", "#", "1 # x",
    f"__import__('os').system('touch {MARKER}')",
    f"open('{MARKER}', 'w')",
    "().__class__.__bases__[0].__subclasses__()", "__builtins__", "__name__", "__debug__",
    "eval('1')", "exec('x = 1')", "compile('1', 'x', 'eval')", "getattr(attempts, 'real')",
    "globals()", "vars()", "print('x')", "breakpoint()", "lookup(anything, 'x')",
    "lambda: 1", "[x for x in findings]", "(y := 1)", "f'{attempts}'", "await attempts",
    "attempts.__class__", "_event.__class__", "_event.data.__dict__", "anything.__class__",
    "anything._private", "hasattr(_event, '__class__')", "hasattr(anything, 'x')",
    "data", "event", "system", "active", "self", "lookup", "In", "len",
    "9**9**9", "10**100", "2 ** 64", "2 ** 65", "'x' * 10**9", "'x' * 10000", "[1] * 10001",
    "1" * 30, "1e400", "-1e308 * 10", "1_000", "0x10", "0o7", "1j", "...",
    "-" * 40 + "1", "(" * 50 + "1" + ")" * 50, "not " * 300 + "True",
    "attempts" + " + attempts" * 400, "[" * 33 + "]" * 33,
    '"""\nimport os\n"""', "'; import os; '", "1)\nimport os\n(", "In('a'); import os",
    "'\\x00'", "'\\N{DIGIT ONE}'", "b'x'", "r'\\d'", "'a' 'b'", "None", "True", "[]", "{}",
    "findings[::-1]", "findings[0:1:2]", "attempts if attempts else", "*findings", "**scores",
    "{**scores}", "{1, 2}", "(1, 2)", "attempts ~ 1", "~attempts", "attempts @ attempts",
    "attempts is 1", "attempts == True", "True or attempts", "x = 1", "del attempts",
    "'é' + '中文' + '\U0001f600'", "\ufeffattempts", "attempts\u200b",
    "\uff46\uff49\uff4e\uff44\uff49\uff4e\uff47\uff53",  # findings in full-width letters
    "_sessionid", "_name", "_ioprocessors['scxml']['location']", "_event.name",
    "_event.data", "_event.data.text", "_event.data['score']", "_event.sendid or ''",
    "In('a') and In('nowhere')", "scores.get('k', None)", "scores.get(current)",
]  # fmt: skip
#: Pieces of the expression grammar the generator combines.
ATOMS: Final = [
    "attempts", "max_attempts", "findings", "scores", "current", "position", "anything",
    "_event.data.text", "_event.data.score", "_event.name", "_sessionid", "0", "1", "-2",
    "2.5", "'a'", '"b"', "True", "None", "[]", "{}", "['x']", "{'k': 1}", "In('a')",
]  # fmt: skip
BINARY: Final = ["+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=", "in",
                 "not in", "is", "is not", "and", "or"]  # fmt: skip
CALLS: Final = [*FUNCTIONS, "get"]


def expression(chooser: random.Random, depth: int = 0) -> str:
    """A random expression of the language's shape (often mistyped, sometimes invalid)."""
    kind = chooser.randrange(9 if depth < 4 else 1)
    if kind == 0:
        return chooser.choice(ATOMS)
    if kind in (1, 2):
        left, right = expression(chooser, depth + 1), expression(chooser, depth + 1)
        return f"{left} {chooser.choice(BINARY)} {right}"
    if kind == 3:
        return f"{chooser.choice(['not ', '-', '+'])}{expression(chooser, depth + 1)}"
    if kind == 4:
        function = chooser.choice(CALLS)
        arguments = ", ".join(expression(chooser, depth + 1) for _ in range(chooser.randint(0, 3)))
        if function == "get":
            return f"{expression(chooser, depth + 1)}.get({arguments})"
        return f"{function}({arguments})"
    if kind == 5:
        return f"{expression(chooser, depth + 1)}[{expression(chooser, depth + 1)}]"
    if kind == 6:
        parts = [expression(chooser, depth + 1) for _ in range(3)]
        return f"{parts[0]} if {parts[1]} else {parts[2]}"
    if kind == 7:
        return f"({expression(chooser, depth + 1)})"
    return f"[{', '.join(expression(chooser, depth + 1) for _ in range(chooser.randint(0, 3)))}]"


#: Well-typed pieces by type, so that many generated expressions compile.
TYPED: Final = {
    "int": ["attempts", "max_attempts", "position", "len(findings)", "1", "-2", "abs(position)"],
    "bool": ["In('a')", "'x' in findings", "current == 'x'", "not findings", "anything"],
    "str": ["current", "'s'", "str(attempts)", "_sessionid", "_event.name"],
    "list": ["findings", "[current]", "findings[1:]"],
}
#: What each slot wants.
SLOT_TYPES: Final = {
    "cond": "bool", "if": "bool", "value": "int", "initial": "int", "foreach": "list",
    "eventexpr": "str", "delayexpr": "int", "param": "str", "targetexpr": "str",
    "typeexpr": "str", "cancel": "str", "log": "int", "donedata": "int", "donedata_expr": "list",
    "location": "str", "content": "str",
}  # fmt: skip


def typed(chooser: random.Random, kind: str, depth: int = 0) -> str:
    """A random expression of type ``kind`` (``int``, ``bool``, ``str`` or ``list``)."""
    if depth > 2 or chooser.random() < 0.4:
        return chooser.choice(TYPED[kind])
    inner = depth + 1
    if kind == "int":
        operator = chooser.choice(["+", "-", "*", "//", "%"])
        return f"({typed(chooser, 'int', inner)} {operator} {typed(chooser, 'int', inner)})"
    if kind == "bool":
        shapes = [
            f"{typed(chooser, 'int', inner)} {chooser.choice(['<', '<=', '>', '!='])} "
            f"{typed(chooser, 'int', inner)}",
            f"{typed(chooser, 'bool', inner)} {chooser.choice(['and', 'or'])} "
            f"{typed(chooser, 'bool', inner)}",
            f"not {typed(chooser, 'bool', inner)}",
            f"{typed(chooser, 'str', inner)} in findings",
        ]
        return chooser.choice(shapes)
    if kind == "str":
        return f"{typed(chooser, 'str', inner)} + {typed(chooser, 'str', inner)}"
    return f"{typed(chooser, 'list', inner)} + [{typed(chooser, 'str', inner)}]"


def mutated(text: str, chooser: random.Random) -> str:
    """``text`` with a few characters or pieces deleted, repeated or replaced."""
    for _ in range(chooser.randint(1, 3)):
        if not text:
            return chooser.choice(CORPUS)
        position = chooser.randrange(len(text))
        action = chooser.randrange(4)
        if action == 0:
            text = text[:position] + text[position + 1 :]
        elif action == 1:
            text = text[:position] + chooser.choice(CORPUS + BINARY) + text[position:]
        elif action == 2:
            text = text[:position] + text[position:] * 2
        else:
            text = text[:position] + chooser.choice(ATOMS) + text[position + 1 :]
    return text


def spec(values: dict[str, str]) -> str:
    return TEMPLATE.format(**{slot: toml_string(text) for slot, text in values.items()})


def audit(source: str, where: str) -> None:
    """The expression functions hold only what the translation prints."""
    tree = ast.parse(source)
    functions = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_expr_")
    ]
    for function in functions:
        assert [arg.arg for arg in function.args.args] == ["data", "event", "system", "active"]
        assert len(function.body) == 1 and isinstance(function.body[0], ast.Return), where
        for node in ast.walk(function.body[0]):
            refused = (ast.Lambda, ast.comprehension, ast.NamedExpr, ast.JoinedStr, ast.Await)
            assert not isinstance(node, refused), (where, ast.dump(node))
            if isinstance(node, ast.Name):
                assert node.id in ALLOWED_NAMES, (where, node.id)
            if isinstance(node, ast.Attribute):
                assert not node.attr.startswith("_"), (where, node.attr)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert node.func.attr == "get", (where, node.func.attr)


def test_the_template_compiles_with_every_slot_filled() -> None:
    machine, _ = validate_source(parse_spec_text(spec(dict(SLOTS)), "fuzzed.toml"))
    source = module_source(machine)
    assert source.count("def _expr_") >= len(SLOTS)
    audit(source, "template")


@pytest.mark.slow
def test_hostile_expressions_in_every_slot_get_diagnostics_or_sound_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where a corpus entry that ran would leave its file
    chooser = random.Random(seed())
    modules = tmp_path / "modules"
    modules.mkdir()
    slots = list(SLOTS)
    cases = [(slot, entry) for entry in CORPUS for slot in slots]  # the corpus, every slot
    cases = chooser.sample(cases, min(len(cases), budget()))
    cases += [(chooser.choice(slots), "") for _ in range(budget() // 2)]  # generated ones
    compiled = 0
    for case, (slot, entry) in enumerate(cases):
        values = dict(SLOTS)
        if entry or case < budget():
            values[slot] = entry
        elif chooser.random() < 0.4:
            values[slot] = expression(chooser)
        elif chooser.random() < 0.5 and slot != "location":
            made = typed(chooser, SLOT_TYPES[slot])
            values[slot] = f"{{'text': {made}}}" if slot == "content" else made
        else:
            values[slot] = mutated(chooser.choice([SLOTS[slot], expression(chooser)]), chooser)
        where = f"seed {seed()}, case {case}, slot {slot}: {values[slot]!r}"
        try:
            machine, _ = validate_source(parse_spec_text(spec(values), "fuzzed.toml"))
        except SpecError as error:
            assert error.diagnostics, where
            assert all(d.line >= 1 and d.column >= 1 for d in error.diagnostics), where
            continue
        except Exception as error:  # pragma: no cover - what the fuzzer is looking for
            raise AssertionError(f"{where}: {type(error).__name__}: {error}") from error
        compiled += 1
        source = module_source(machine)
        render_markdown(machine)
        audit(source, where)
        name = f"fuzzed_{case}"
        load_module(source, name)
        (modules / f"{name}.py").write_text(source, encoding="utf-8")
    assert compiled, "no case compiled: the cases are too destructive to test modules"
    assert not (tmp_path / MARKER).exists()
    lint = subprocess.run(
        [ruff_binary(), "check", "--isolated", "--ignore-noqa", "--select", RULES,
         "--ignore", VERBATIM_TEXT_CODES, "--target-version", "py310", "--quiet", str(modules)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert lint.returncode == 0, f"seed {seed()}:\n{lint.stdout}"
    sample = chooser.sample(sorted(modules.glob("*.py")), min(10, compiled))
    checked = run_mypy(
        [*STRICT, "--python-version", RUNNING], sample,
        cwd=tmp_path, cache_dir=tmp_path / ".mypy_cache",
        env={"PATH": "", "MYPYPATH": str(REPO / "runtime")},
    )  # fmt: skip
    assert checked.returncode == 0, f"seed {seed()}:\n{checked.stdout}"

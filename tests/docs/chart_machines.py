"""Statecharts for the docs and diagram tests, compiled from specs (building a chart's tree is the
compiler's job, so these are not hand-built like ``sample_machines``).

``chart_task``, ``chart_parallel``, ``chart_sink`` and ``invoke_task`` are the chart cases of
``tests/cases``
(their outputs are golden files); ``docs_example`` is the example of docs/spec-language.md (as
``docs/task.toml``); ``regions`` reaches what those do not (initial states in several regions, a
history state of a parallel state, a one-state region, edges between regions and between a
compound state and its own descendants, a compound state's self-loops); ``nasty_chart`` puts text
that breaks naive Mermaid, DOT or Markdown in every label, log step and value a chart adds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from statewright_compiler import compile_spec
from statewright_compiler.check.validate import validate_source
from statewright_compiler.model import Machine
from statewright_compiler.spec.load import parse_spec_text

from tests.compiler.specgen import toml_string
from tests.docs.tools import REPOSITORY

__all__ = ["CASES", "CHART_MACHINES", "NASTY_TEXTS", "compile_case"]

CASES = sorted((REPOSITORY / "tests" / "cases").glob("*/spec.toml"))


def compile_case(spec: Path) -> Machine:
    """A case compiled the way the compiler's golden test does (the path as the page shows it)."""
    machine, _ = compile_spec(spec, f"tests/cases/{spec.parent.name}/spec.toml")
    return machine


DOCS_EXAMPLE = """\
[machine]
name = "Task"
initial = "active"
on_error = "raise"

[events]
START = {}
PERCEIVED = {}
SUSPEND = {}
RESUME = {}

[states.active]
initial = "perceiving"
on.SUSPEND = "suspended"

[states.perceiving]
parent = "active"
on.PERCEIVED = "thinking"

[states.thinking]
parent = "active"
always = { to = "done", guard = "enough" }

[states.resume_point]
kind = "history"
parent = "active"
history = "shallow"
default = "perceiving"

[states.suspended]
on.RESUME = "resume_point"

[states.done]
kind = "final"
"""

REGIONS = """\
[machine]
name = "Regions"
initial = ["a1", "b1"]

[events]
GO = {}
BACK = {}
LOOP = {}
RESET = {}
JUMP = {}
ENTER = {}

[states.p]
kind = "parallel"
on.RESET = "p"
on.ENTER = { to = "a2", type = "internal" }

[states.p_history]
kind = "history"
parent = "p"

[states.a]
parent = "p"
kind = "wait"
on.LOOP = { to = [] }

[states.a1]
parent = "a"
on.GO = "a2"
on.JUMP = "b1"

[states.a2]
parent = "a"
on.BACK = "p"
on.GO = "outside"

[states.b1]
parent = "p"

[states.outside]
on.GO = "p_history"
on.BACK = "a"
"""

#: Labels, log texts and values of ``nasty_chart``, by where they go.
NASTY_TEXTS = {
    "outer": 'state "x" as s9 {\n--\n}',
    "inner": "[*] --> s0 : %% #59; <b>&amp;</b> | `code`",
    "history": "H* -- end\r\nnote left of s0",
    "leaf": 'a"b\\c {}; 中文 😀 <script>alert(1)</script>',
    "event": "go: now; [x] / y",
    "log": 'log "}" --> [*]\n# heading\n| pipe',
    "log_label": "label: <i>x</i>",
}


def _nasty_chart_spec() -> str:
    def t(key: str) -> str:
        return toml_string(NASTY_TEXTS[key])

    return f"""\
[machine]
name = "NastyChart"
initial = "outer"

[events.GO]
label = {t("event")}

[events.BACK]

[states.outer]
label = {t("outer")}
value = {t("outer")}
entry = [{{ log = {t("log")}, label = {t("log_label")} }}]
on.BACK = {{ to = "outer_history", actions = [{{ log = {t("log")} }}] }}

[states.inner]
parent = "outer"
kind = "parallel"
label = {t("inner")}

[states.left]
parent = "inner"
label = {t("leaf")}
on.GO = {{ to = "end", guard = "ready" }}

[states.right]
parent = "inner"
label = {t("leaf")}

[states.outer_history]
parent = "outer"
kind = "history"
history = "deep"
label = {t("history")}

[states.end]
kind = "final"
label = {t("leaf")}
"""


def _from_text(text: str, path: str) -> Callable[[], Machine]:
    def build() -> Machine:
        machine, _ = validate_source(parse_spec_text(text, path))
        return machine

    return build


def _case(name: str) -> Callable[[], Machine]:
    return lambda: compile_case(REPOSITORY / "tests" / "cases" / name / "spec.toml")


CHART_MACHINES: dict[str, Callable[[], Machine]] = {
    "chart_task": _case("chart_task"),
    "chart_parallel": _case("chart_parallel"),
    "chart_sink": _case("chart_sink"),
    "invoke_task": _case("invoke_task"),
    "docs_example": _from_text(DOCS_EXAMPLE, "docs/task.toml"),
    "regions": _from_text(REGIONS, "tests/docs/regions.toml"),
    "nasty_chart": _from_text(_nasty_chart_spec(), "tests/docs/nasty_chart.toml"),
}

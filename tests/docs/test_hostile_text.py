"""No spec text can put HTML into a docs page or break its tables, as real renderers read it.

Specs full of hostile text (HTML, backtick runs, pipes, backslashes, line breaks, control
characters, link tricks) are compiled and their pages rendered by markdown-it (CommonMark) and
marked (GitHub-flavoured), both with raw HTML enabled. The HTML must contain only the elements a
page is made of, links only to safe destinations, every table with its rows, and every label and
value exactly as the spec wrote it.
"""

from __future__ import annotations

import random
from html.parser import HTMLParser

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.docs.markdown import visible
from statewright_compiler.docs.page import render_markdown
from statewright_compiler.model import Machine
from statewright_compiler.spec.load import parse_spec_text

from tests.compiler.specgen import toml_string
from tests.docs.tools import run_renderers

FRAGMENTS = [
    "`", "``", "```", "````", " ` ", "a`b", "\\`<img src=x onerror=alert(1)>\\`",
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "</td></tr>", "<!--", "-->",
    "<div>", "|", "\\|", "\\\\|", "\\", "\\\\", "\n", "\r\n", "\t", "*", "**", "_", "~~",
    "[x](javascript:alert(1))", "[x](&#106;avascript:alert(1))", "[x]( <javascript:alert(1)>)",
    "![i](data:text/html,x)", "[x](JaVaScRiPt:alert(1))", "&lt;", "&#60;script&#62;", "&amp;",
    "# h", "> q", "---", "===", "- l", "1. n", "~~~", "    indented", "<http://x.y>",
    "<javascript:alert(1)>", "[r]: javascript:alert(1)", "\u2028", "\u2029", "\x00", "\x1b[31m",
    "\u200b", "中文", "😀", "{{ x }}", "%%", '"', "'", "a", " ", ":", "[", "]", "(", ")",
]  # fmt: skip
#: Literal strings in payload types allow anything but ', \ and line breaks.
LITERAL_FRAGMENTS = ["`", "``", "|", "<b>", "&amp;", "*", "_", "a", " ", '"', "<img src=x>"]
ALLOWED_ELEMENTS = frozenset(
    {"h1", "h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "pre",
     "em", "strong", "del", "s", "a", "br", "ul", "li"}
)  # fmt: skip
SAFE_LINK_PREFIXES = ("http://", "https://", "mailto:")
PAGES = 80
#: Statechart pages, after the flat ones.
CHART_PAGES = 40
#: The findings of the hardening review, as the first pages: a value whose backticks used to
#: close its code span, a line of raw HTML, a line break in a value.
FIXED = ["a`<img src=x onerror=alert(1)>`b", "<script>alert(1)</script>", "one\ntwo"]


def hostile(chooser: random.Random, fragments: list[str] = FRAGMENTS) -> str:
    return "".join(chooser.choice(fragments) for _ in range(chooser.randint(1, 8)))


def hostile_spec(seed: int) -> tuple[str, dict[str, str]]:
    """A spec with hostile text in every field that takes text, and the literal texts."""
    chooser = random.Random(seed)
    texts = {name: hostile(chooser) for name in ("label", "event_label", "meta", "meta_key")}
    texts["value"] = hostile(chooser) + f" #{seed}"
    if seed < len(FIXED):
        texts.update(label=FIXED[seed], meta=FIXED[seed], value=FIXED[seed])
    texts["event_value"] = hostile(chooser) + f" @{seed}"
    literal = "".join(chooser.choice(LITERAL_FRAGMENTS) for _ in range(6))

    def t(name: str | None = None) -> str:
        return toml_string(texts[name] if name else hostile(chooser))

    spec = f"""\
[machine]
name = "Hostile"
module = "hostile"
initial = "s0"
description = {t()}
metadata = {{ {t("meta_key")} = {t("meta")}, list = [{t()}, 1, true] }}

[states.s0]
value = {t("value")}
label = {t("label")}
description = {t()}
metadata = {{ {t("meta_key")} = {t("meta")} }}
on.E0 = [{{ to = "s1", guard = "g and not h", description = {t()} }}, {{ to = "s0" }}]

[states.s1]
kind = "final"
description = {t()}

[events.E0]
value = {t("event_value")}
label = {t("event_label")}
description = {t()}
payload = {{ x = {toml_string(f"Literal['{literal}'] | None")} }}
metadata = {{ {t("meta_key")} = {t("meta")} }}

[[error_handlers]]
from = "*"
to = "s1"
description = {t()}
"""
    return spec, texts


def hostile_chart_spec(seed: int) -> tuple[str, dict[str, str]]:
    """A statechart with hostile text in every field that takes text, log steps and the data
    model's expressions (hostile string literals in a cond, an assign, a send's data) included."""
    chooser = random.Random(seed)
    texts = {name: hostile(chooser) for name in ("label", "event_label", "meta", "meta_key", "log")}
    texts["literal"] = hostile(chooser)
    literal = repr(texts["literal"])  # a string literal of the expression language
    texts["value"] = hostile(chooser) + f" #{seed}"
    texts["event_value"] = hostile(chooser) + f" @{seed}"

    def t(name: str | None = None) -> str:
        return toml_string(texts[name] if name else hostile(chooser))

    spec = f"""\
[machine]
name = "HostileChart"
module = "hostile_chart"
initial = "outer"
description = {t()}
metadata = {{ {t("meta_key")} = {t("meta")} }}

[states.outer]
value = {t("value")}
label = {t("label")}
description = {t()}
entry = [{{ log = {t("log")}, label = {t()} }}, {{ raise = "E1" }}]
on.E0 = [{{ to = "left", type = "internal", guard = "g and in(right)", description = {t()} }}]
on."done.state" = {{ to = "done", then = [{{ log = {t("log")} }}] }}

[states.both]
parent = "outer"
kind = "parallel"
label = {t("label")}
metadata = {{ {t("meta_key")} = {t("meta")} }}

[data]
current = {{ type = "str", initial = {t()}, description = {t()} }}

[states.left]
parent = "both"
label = {t()}
on.E1 = {{ to = [], cond = {toml_string(f"current != {literal}")}, actions = [
  {{ log = {t()} }},
  {{ assign = "current", expr = {toml_string(literal + " + current")} }},
  {{ send = "E1", data = {{ note = {toml_string(literal)} }}, target = {t()} }},
] }}
always = {{ to = "finished", guard = "h" }}

[states.right]
parent = "both"
description = {t()}

[states.memory]
parent = "outer"
kind = "history"
history = "deep"
label = {t("label")}

[states.finished]
parent = "outer"
kind = "final"

[states.done]
kind = "final"

[events.E0]
value = {t("event_value")}
label = {t("event_label")}
description = {t()}
metadata = {{ {t("meta_key")} = {t("meta")} }}

[events.E1]
description = {t()}
payload = {{ note = "str | None" }}

[[transitions]]
from = ["right"]
event = "E1"
to = "memory"
"""
    return spec, texts


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.rows_per_table: list[int] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))
        if tag == "table":
            self.rows_per_table.append(0)
        elif tag == "tr":
            self.rows_per_table[-1] += 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.elements.append(("<!--comment-->", []))


def expected_rows(machine: Machine) -> list[int]:
    """Rows (header included) of each table of the page, in page order."""
    overview = 9 + len(machine.metadata)
    rows = [overview + 1, len(machine.states) + 1, len(machine.events) + 1]
    rows += [len(machine.data) + 1] if machine.data else []
    for state in machine.states:
        if machine.chart:  # a chart's rows follow its rules
            count = sum(1 for rule in machine.rules if state.name in rule.sources)
        else:
            count = sum(1 for t in machine.transitions if t.source == state.name)
        rows += [count + 1] if count else []
    rows += [len(machine.error_handlers) + 1] if machine.error_handlers else []
    rows += [len(machine.tags) + 1] if machine.tags else []
    return rows


@pytest.fixture(scope="module")
def rendered(
    tmp_path_factory: pytest.TempPathFactory,
) -> list[tuple[Machine, dict[str, str], dict[str, str]]]:
    folder = tmp_path_factory.mktemp("hostile")
    machines = []
    for seed in range(PAGES + CHART_PAGES):
        spec, texts = hostile_spec(seed) if seed < PAGES else hostile_chart_spec(seed)
        path = f"specs/`odd` |<b>{seed}</b>\\.toml"
        machine, _ = validate_source(parse_spec_text(spec, path))
        page = folder / f"page{seed}.md"
        page.write_text(render_markdown(machine), encoding="utf-8")
        machines.append((page, machine, texts))
    html = run_renderers([page for page, _, _ in machines])
    return [(machine, texts, html[str(page)]) for page, machine, texts in machines]


@pytest.mark.slow
def test_hostile_text_never_becomes_html_or_breaks_a_table(
    rendered: list[tuple[Machine, dict[str, str], dict[str, str]]],
) -> None:
    for machine, texts, outputs in rendered:
        for renderer, html in outputs.items():
            parsed = _Elements()
            parsed.feed(html)
            for tag, attributes in parsed.elements:
                assert tag in ALLOWED_ELEMENTS, (renderer, tag, texts)
                for name, value in attributes:
                    if tag == "a" and name == "href":
                        assert value is not None and (
                            value.startswith(SAFE_LINK_PREFIXES) or ":" not in value.split("/")[0]
                        ), (renderer, value)
                    else:
                        assert (tag, name) in {("code", "class"), ("a", "title")}, (
                            renderer,
                            tag,
                            name,
                        )
            assert parsed.rows_per_table == expected_rows(machine), (renderer, texts)


@pytest.mark.slow
def test_labels_values_and_paths_read_back_exactly(
    rendered: list[tuple[Machine, dict[str, str], dict[str, str]]],
) -> None:
    for machine, texts, outputs in rendered:
        for renderer, html in outputs.items():
            parsed = _Elements()
            parsed.feed(html)
            shown = "".join(parsed.text)
            for name in ("value",):
                assert visible(texts[name]) in shown, (renderer, name, texts[name])
            if machine.chart:
                assert visible(texts["log"]) in shown, (renderer, "log", texts["log"])
                assert visible(repr(texts["literal"])) in shown, (renderer, texts["literal"])
            for name in ("label", "event_label", "meta"):
                for line in texts[name].splitlines():
                    # Whitespace at the ends of a cell is not shown (HTML collapses it).
                    assert visible(line.strip()) in shown, (renderer, name, line)
            assert visible(machine.source_path) in shown, renderer

"""A statechart's Markdown page: well-formed tables whatever the spec text, and every fact a
chart adds shown (parents, kinds, default entries, triggers, targets, types, then-steps, internal
events, what an error does)."""

from __future__ import annotations

import re

import pytest
from statewright_compiler.diagrams import render_mermaid
from statewright_compiler.docs.page import render_markdown

from tests.docs.chart_machines import CHART_MACHINES, NASTY_TEXTS
from tests.docs.test_markdown import tables
from tests.docs.tools import MarkdownBlock, MermaidResult, html_text

NAMES = list(CHART_MACHINES)


def _section(markdown: str, heading: str) -> str:
    start = markdown.index(f"\n{heading}\n")
    level = len(heading) - len(heading.lstrip("#"))
    following = re.search(rf"\n#{{1,{level}}} ", markdown[start + len(heading) + 2 :])
    end = start + len(heading) + 2 + following.start() if following else len(markdown)
    return markdown[start:end]


def _rows(markdown: str, heading: str) -> dict[str, list[str]]:
    """The first table after ``heading``, rows keyed by their first cell's code span."""
    header, _, *rows = next(tables(_section(markdown, heading)))
    return {"header": header, **{re.sub(r"`(\w+)`.*", r"\1", row[0]): row for row in rows}}


@pytest.mark.parametrize("name", NAMES)
def test_every_table_is_rectangular_and_inert(name: str) -> None:
    found = list(tables(render_markdown(CHART_MACHINES[name]())))
    assert len(found) >= 3
    for table in found:
        assert all(set(cell) == {"-"} for cell in table[1]), table[1]
        for row in table:
            assert len(row) == len(table[0]), row
            for cell in row:
                # Outside code spans (which show "<" as it is), no "<" or ">" but our <br>.
                text = re.sub(r"(`+).*?\1", "", cell).replace("<br>", "")
                assert "<" not in text and ">" not in text, cell


@pytest.mark.parametrize("name", NAMES)
def test_page_embeds_the_diagram_and_is_deterministic(name: str) -> None:
    first, second = CHART_MACHINES[name](), CHART_MACHINES[name]()
    assert f"```mermaid\n{render_mermaid(first)}```\n" in render_markdown(first)
    assert render_markdown(first) == render_markdown(second)


@pytest.mark.parametrize("name", NAMES)
def test_mermaid_fence_parses(name: str, mermaid_results: dict[str, MermaidResult]) -> None:
    fences = [key for key in mermaid_results if key.startswith(f"chartpage-{name}.md#")]
    assert fences == [f"chartpage-{name}.md#1"]
    assert mermaid_results[fences[0]].ok, mermaid_results[fences[0]].error


def test_overview_counts_kinds_and_names_the_error_policy() -> None:
    overview = _section(render_markdown(CHART_MACHINES["chart_parallel"]()), "## Overview")
    assert "| Initial state | `idle` |" in overview
    assert "| States | 13 (2 compound, 1 parallel, 1 history, 3 final, 1 error, 1 wait) |" in (
        overview
    )
    assert "| On error | `event` |" in overview
    assert "Error handlers" not in overview
    regions = _section(render_markdown(CHART_MACHINES["regions"]()), "## Overview")
    assert "| Initial state | `a1`, `b1` |" in regions
    assert "| States | 7 (1 compound, 1 parallel, 1 history, 1 wait) |" in regions


def test_states_table_shows_parent_kind_default_entry_and_steps() -> None:
    rows = _rows(render_markdown(CHART_MACHINES["chart_task"]()), "## States")
    assert rows["header"] == [
        "State",
        "Parent",
        "Kind",
        "Default entry",
        "Tags",
        "Description",
        "Entry actions",
        "Exit actions",
    ]
    assert rows["active"][:4] == [
        "`active`<br>Active &lt;working&gt; (initial)",
        "",
        "compound",
        "`perceiving` / `warm_up`",
    ]
    assert rows["active"][6:] == [
        "`start_clock`, log `active: entered` (label `task`)",
        "`stop_clock`",
    ]
    assert rows["thinking"][1:4] == ["`active`", "compound", "`drafting`"]
    assert rows["reviewing"][1:3] == ["`thinking`", "wait"]
    assert rows["resume_point"][1:4] == [
        "`active`",
        "deep history",
        "`perceiving` / `restore_defaults`",
    ]
    assert rows["last_child"][2] == "shallow history"
    parallel = _rows(render_markdown(CHART_MACHINES["chart_parallel"]()), "## States")
    assert parallel["working"][2:4] == ["parallel", ""]
    assert parallel["working"][6:] == ["`open_session`, raise `TICK`", "log `leaving work`"]
    assert parallel["waiting_tool"][2:5] == ["wait", "", "`busy`"]
    assert _rows(render_markdown(CHART_MACHINES["regions"]()), "## States")["a"][2] == (
        "compound, wait"
    )


def test_transitions_follow_the_rules_with_triggers_targets_types_and_then() -> None:
    machine = CHART_MACHINES["chart_parallel"]()
    markdown = render_markdown(machine)
    section = _section(markdown, "## Transitions")
    headings = re.findall(r"^### From `(\w+)`$", section, flags=re.MULTILINE)
    assert headings == [state.name for state in machine.states]
    for state in machine.states:
        found = list(tables(_section(markdown, f"### From `{state.name}`")))
        rules = [rule for rule in machine.rules if state.name in rule.sources]
        assert (len(found[0]) - 2 if found else 0) == len(rules), state.name
    header, _, *working = next(tables(_section(markdown, "### From `working`")))
    assert header == [
        "Trigger",
        "Target",
        "Type",
        "Guard",
        "Actions",
        "Then",
        "Checkpoint",
        "Description",
        "Rule",
    ]
    assert [row[:6] for row in working] == [
        ["`PAUSE`", "`paused`", "", "", "", ""],
        ["`done.state.working` (`done_state_working`)", "`finished`", "", "", "", "`report`"],
        ["`error.*` (`tool_failed`, `error_execution`)", "`failed`", "", "", "`record_error`", ""],
    ]
    _, _, *planner = next(tables(_section(markdown, "### From `planner`")))
    assert planner[0][:5] == ["`REPLAN`", "`drafting`", "internal", "", "`forget_plan`"]
    _, _, *drafting = next(tables(_section(markdown, "### From `drafting`")))
    assert drafting[0][:4] == ["`TOOL_CALL`", "`waiting_tool`", "", "`in(budget_ok) and has_tool`"]
    assert drafting[1][:4] == ["eventless", "`plan_done`", "", "`plan_complete`"]
    assert drafting[3][:5] == ["`TICK`", "none (targetless)", "", "", "log `tick while busy`"]
    assert drafting[3][-1] == "line 99, from any state tagged 'busy'"
    _, _, *paused = next(tables(_section(markdown, "### From `paused`")))
    assert paused[0][1] == "`planner_history` (deep history of `planner`), `budget_ok`"
    assert paused[2][0].startswith("`*` (`START`, `TOOL_CALL`,")
    assert "No transitions of its own: those of `working` apply." in _section(
        markdown, "### From `budget`"
    )
    assert "History pseudo-state of `planner`: never active itself." in _section(
        markdown, "### From `planner_history`"
    )


def test_internal_events_and_errors() -> None:
    markdown = render_markdown(CHART_MACHINES["chart_parallel"]())
    assert _section(markdown, "## Internal events").strip().splitlines()[2:] == [
        "Events the machine puts on its own queue: raised ones are handled before the next event "
        "from",
        "outside, sent ones when their timer fires.",
        "",
        "- `TICK`: raised by the entry of `working`; sent by the entry of `drafting` after `1m30s` "
        "(id `heartbeat`).",
        "- `done_state_working` (value `done.state.working`): raised when every region of "
        "`working` is in a final state.",
        "- `done_state_planner` (value `done.state.planner`): raised when `planner` enters a "
        "final child.",
        "- `done_state_budget` (value `done.state.budget`): raised when `budget` enters a final "
        "child.",
        "- `error_execution` (value `error.execution`): raised when a guard or an action raises "
        "an exception.",
        "- `after_waiting_tool_30s` (value `after.waiting_tool.30s`): sent by the timer of "
        "`waiting_tool`, after `30s`.",
        "- `after_budget_ok_budget_window` (value `after.budget_ok.budget_window`): sent by the "
        "timer of `budget_ok`, "
        "after `budget_window()` (on restore `resume`).",
    ]
    assert '`on_error = "event"`: a guard that raises' in _section(markdown, "## Errors")
    task = render_markdown(CHART_MACHINES["chart_task"]())
    assert "- `PERCEIVED`: raised by the transition at line 26." in task
    assert '`on_error = "raise"`: a guard or an action' in _section(task, "## Errors")
    example = render_markdown(CHART_MACHINES["docs_example"]())
    assert "None: every event comes from outside (a method call)." in example


def test_an_invoking_state_links_its_child_machines_and_says_when_they_are_done() -> None:
    machine = CHART_MACHINES["invoke_task"]()
    markdown = render_markdown(machine)
    row = _rows(markdown, "## States")["investigating"]
    assert _rows(markdown, "## States")["header"][-1] == "Invokes"
    searcher, helper = row[-1].split("<br>")
    assert searcher.startswith("[`ResearchMachine`](research.md) as `searcher` with ")
    assert "`max_attempts = budget`" in searcher and "/ finalize " in searcher
    assert helper == "[`ResearchMachine`](research.md) id in `helper_id` (every event forwarded)"
    assert (
        "- `done_invoke_searcher` (value `done.invoke.searcher`): sent when the child "
        "`searcher` of `investigating` reaches a final state."
    ) in _section(markdown, "## Internal events")
    assert 'state "investigating<br>invokes Research, Research" as s0' in render_mermaid(machine)


# --- Read back by a real Markdown parser (marked, GitHub-flavoured) ------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_page_structure_as_a_markdown_parser_reads_it(
    name: str, markdown_results: dict[str, list[MarkdownBlock]]
) -> None:
    machine = CHART_MACHINES[name]()
    blocks = markdown_results[f"chartpage-{name}.md"]
    headings = [(b["depth"], html_text(b["html"])) for b in blocks if b["type"] == "heading"]
    expected = [
        (1, machine.name),
        *[(2, section) for section in ("Overview", "Diagram", "States", "Events")],
        *([(2, "Data")] if machine.data else []),
        (2, "Internal events"),
        (2, "Transitions"),
        *[(3, f"From {state.name}") for state in machine.states],
        (2, "Errors"),
        *([(2, "Tags")] if machine.tags else []),
        (2, "Handlers"),
    ]
    assert headings == expected
    assert [b["lang"] for b in blocks if b["type"] == "code"] == ["mermaid"]


def test_nasty_text_reads_back_exactly(markdown_results: dict[str, list[MarkdownBlock]]) -> None:
    blocks = markdown_results["chartpage-nasty_chart.md"]
    states = next(b for b in blocks if b["type"] == "table" and "Parent" in str(b["header"]))
    shown = [html_text(row[0]) for row in states["rows"]]
    for key in ("outer", "inner", "leaf", "history"):
        assert any("\n".join(NASTY_TEXTS[key].splitlines()) in cell for cell in shown), key
    entry = html_text(states["rows"][0][states["header"].index("Entry actions")])
    assert entry == (
        "log " + NASTY_TEXTS["log"].replace("\n", "\\x0a") + f" (label {NASTY_TEXTS['log_label']})"
    )

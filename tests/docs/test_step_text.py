"""Executable content and timers as diagrams and pages word them; delays in the spec's syntax."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    Expression,
    ForeachStep,
    IfStep,
    LogStep,
    RaiseStep,
    SendStep,
)
from statewright_compiler.model.step_text import delay_text, duration_text, step_text
from statewright_compiler.spec.durations import MAX_DELAY, parse_duration

from tests.docs.chart_machines import CHART_MACHINES
from tests.fuzz import main_only_examples


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (86400.0, "1d"),
        (5400.0, "1h30m"),
        (90.0, "1m30s"),
        (30.0, "30s"),
        (0.25, "250ms"),
        (1.5, "1s500ms"),
        (0.0005, "0.0005s"),
        (MAX_DELAY, "3650d"),
    ],
)
def test_durations_read_as_the_spec_writes_them(seconds: float, text: str) -> None:
    assert duration_text(seconds) == text
    assert parse_duration(text) == pytest.approx(seconds)


@settings(max_examples=main_only_examples(100))
@given(st.integers(min_value=1, max_value=int(MAX_DELAY * 1000)))
def test_whole_milliseconds_round_trip(milliseconds: int) -> None:
    seconds = milliseconds / 1000
    assert parse_duration(duration_text(seconds)) == pytest.approx(seconds, abs=1e-9)


def test_steps_and_delays() -> None:
    assert step_text("notify") == "notify"
    assert step_text(RaiseStep("GO")) == "raise GO"
    assert step_text(LogStep("hi")) == 'log "hi"'
    assert step_text(LogStep("hi", "agent")) == 'log agent: "hi"'
    assert step_text(SendStep("PING", "reminder", 300.0)) == "send PING after 5m (reminder)"
    handler = SendStep("PING", "reminder", None, "interval", "resume")
    assert step_text(handler) == "send PING after interval() (reminder)"
    assert delay_text(handler) == "interval()"
    assert step_text(CancelStep("reminder")) == "cancel reminder"


def test_the_data_models_steps_read_as_the_spec_writes_their_expressions() -> None:
    def e(text: str) -> Expression:
        return Expression(text, (), "value")

    assert step_text(AssignStep(e("count"), e("count +\n    1"))) == "count = count + 1"
    branches = ((e("count > 2"), (RaiseStep("GO"),)), (e("In('a')"), ()))
    shown = "if count > 2: (raise GO); elif In('a'): pass; else: (note)"
    assert step_text(IfStep(branches, ("note",))) == shown
    foreach = ForeachStep(e("items"), "item", "i", (LogStep("", "l", e("item")),))
    assert step_text(foreach) == "foreach item, i in items: (log l: item)"
    send = SendStep("", "", None, event_expr=e("'GO'"), delay_expr=e("'5s'"), target="#_internal")
    assert step_text(send) == "send 'GO' after '5s' to #_internal"
    assert step_text(SendStep("GO", "")) == "send GO"
    assert step_text(CancelStep("", e("timer or 'x'"))) == "cancel timer or 'x'"
    assert step_text(LogStep("", "", e("'a  b'"))) == "log 'a  b'"  # a literal's spaces kept


def test_timer_transitions_are_labelled_with_their_delay() -> None:
    from statewright_compiler.diagrams import build_diagram

    edges = build_diagram(CHART_MACHINES["chart_parallel"]()).edges
    labels = {(e.source.key, e.target.key, e.label) for e in edges}
    assert ("waiting_tool", "drafting", "after 30s / give_up_tool") in labels
    assert ("budget_ok", "budget_spent", "after budget_window()") in labels


def test_long_and_odd_durations_are_written_as_the_spec_reads_them() -> None:
    """Whole milliseconds near the ten-year limit lose nothing to float error, and what is not
    whole milliseconds is written in plain decimals, never exponent notation."""
    assert duration_text(17_179_869.184) == "198d20h11m9s184ms"
    assert parse_duration(duration_text(17_179_869.184)) == 17_179_869.184
    assert duration_text(0.0005) == "0.0005s"
    assert duration_text(123_456_789.0001) == "123456789.0001s"
    assert parse_duration("123456789.0001s") == pytest.approx(123_456_789.0001)

"""Random charts: after the start and after every event, the compiled machine and the reference
interpreter (SCXML's algorithm, written independently in :mod:`tests.charts.reference`) agree on
how it ended (taken, rejected, failed, looping), the active leaves, ``state``, ``is_final``, the
allowed events and every guard, action and log step they ran, in order; also when every event
goes to a machine restored from a snapshot.

The fuzz suite's conventions hold: ``STATEWRIGHT_FUZZ_BUDGET`` scales the number of examples and
``STATEWRIGHT_FUZZ_SEED`` seeds them (``make fuzz`` sets both). Eventless loops are cut after
:data:`LOOP_BOUND` microsteps in both interpreters rather than the runtime's 10,000, so that a
looping chart costs milliseconds (``test_semantics`` checks the real bound).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from statewright import _chart

from tests.charts import reference
from tests.charts.harness import (
    compile_chart,
    first_difference,
    run_async_machine,
    run_machine,
    run_reference,
)
from tests.charts.strategies import ChartCase, chart_cases
from tests.fuzz import budget, seed

#: Microsteps a macrostep may take here before both interpreters call it a loop.
LOOP_BOUND: Final = 60
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large]


@contextmanager
def loop_bound(bound: int) -> Iterator[None]:
    with mock.patch.object(_chart, "MAX_MICROSTEPS", bound):
        yield


def check(
    case: ChartCase, *, asynchronous: bool = False, restore: bool = False, repeat: int = 1
) -> None:
    """The machine and the reference agree on ``case``'s events (``repeat`` times over; with
    more than one, after a first machine of the same class took them, so that the events its
    configurations planned are committed inline: statewright._chart_plans)."""
    note(f"STATEWRIGHT_FUZZ_SEED={seed()}, spec:\n{case.toml}")
    module = compile_chart(case.toml)
    events = case.events * repeat
    with loop_bound(LOOP_BOUND):
        if asynchronous:
            machine = run_async_machine(module, case.script(), events)
        else:
            if repeat > 1:
                run_machine(module, case.script(), events)
            machine = run_machine(module, case.script(), events, restore=restore)
    expected = run_reference(case.toml, case.script(), events, LOOP_BOUND)
    assert machine == expected, first_difference(machine, expected, events)


def test_the_reference_has_the_runtime_s_loop_bound() -> None:
    assert reference.MAX_MICROSTEPS == _chart.MAX_MICROSTEPS


@settings(max_examples=budget(3), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(chart_cases())
def test_machine_agrees_with_the_reference(case: ChartCase) -> None:
    check(case)


@settings(max_examples=budget(6), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(chart_cases(size=10))
def test_async_machine_agrees_with_the_reference(case: ChartCase) -> None:
    check(case, asynchronous=True)


@settings(max_examples=budget(6), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(chart_cases(size=12))
def test_machines_restored_from_snapshots_agree_with_the_reference(case: ChartCase) -> None:
    """Each event goes to a machine restored from a snapshot of the previous one: snapshots
    keep the configuration, history memory and whether the machine finished."""
    check(case, restore=True)


@settings(max_examples=budget(6), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(st.sampled_from([0.0, 0.0, 0.1]).flatmap(lambda c: chart_cases(12, 16, content=c)))
def test_machines_taking_planned_events_agree_with_the_reference(case: ChartCase) -> None:
    """Charts with little or no content (most events only move such a chart), their events
    three times over, on a machine of a class that has already met them: those that only move
    the chart from a configuration are committed inline from its plan."""
    check(case, repeat=3)


@pytest.mark.slow
@settings(max_examples=budget(2), deadline=None, suppress_health_check=SUPPRESSED)
@hypothesis_seed(seed())
@given(chart_cases(size=32, max_events=30))
def test_large_charts_and_long_runs_agree_with_the_reference(case: ChartCase) -> None:
    check(case)

"""Shared fixtures: the hand-built machines live in ``machines.py`` next to this file."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.runtime.machines import FakeClock, TaskContext, TaskHandlers, TaskMachine


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def handlers() -> TaskHandlers:
    return TaskHandlers()


@pytest.fixture
def task(handlers: TaskHandlers) -> Iterator[TaskMachine]:
    yield TaskMachine(TaskContext(), handlers)

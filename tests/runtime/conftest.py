"""Shared fixtures: the hand-built machines live in ``machines.py`` next to this file."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from machines import FakeClock, TaskContext, TaskHandlers, TaskMachine  # noqa: E402


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def handlers() -> TaskHandlers:
    return TaskHandlers()


@pytest.fixture
def task(handlers: TaskHandlers) -> Iterator[TaskMachine]:
    yield TaskMachine(TaskContext(), handlers)

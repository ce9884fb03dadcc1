"""Running one scenario on both flavours: a test is a coroutine whose machine calls go through
:func:`act` (awaited for an asyncio machine, plain for a sync one), run by :func:`both`."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest

from tests.invoke.trees import Clock, options

__all__ = ["FLAVOURS", "act", "new", "run"]

T = TypeVar("T")

#: Each test runs on the sync and the asyncio machine.
FLAVOURS = pytest.mark.parametrize("flavour", ["sync", "async"])


async def act(value: Any) -> Any:
    """``value``, awaited when it is awaitable (an asyncio machine's call)."""
    return await value if inspect.isawaitable(value) else value


async def new(
    classes: tuple[Any, Any], flavour: str, clock: Clock | None = None, **more: Any
) -> Any:
    """A started machine of ``classes`` (sync, asyncio) in ``flavour``."""
    sync, asynchronous = classes
    if flavour == "sync":
        return sync(None, options=options(clock, **more))
    machine = asynchronous(None, options=options(clock, **more))
    await machine.start_chart()
    return machine


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(scenario())

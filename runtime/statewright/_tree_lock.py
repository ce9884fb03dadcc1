"""The one lock of an asyncio tree of machines: an :class:`asyncio.Lock` the task holding it may
take again, as the sync machines' ``threading.RLock`` may be. A tree's machines share it, and a
guard or action of one machine may send to another machine of its tree (its parent, say) while
the tree delivers events under that lock: a plain ``asyncio.Lock`` would wait for itself
forever. Imported by the asyncio machine whose spec invokes children, on first use."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

__all__ = ["TreeLock"]


class TreeLock(asyncio.Lock):
    """An :class:`asyncio.Lock` that the task holding it acquires again without waiting (it is
    released when each acquisition was)."""

    def __init__(self) -> None:
        super().__init__()
        self._holder: asyncio.Task[Any] | None = None
        self._depth = 0

    async def acquire(self) -> Literal[True]:
        task = asyncio.current_task()
        if task is not None and self._holder is task:
            self._depth += 1
            return True
        await super().acquire()
        self._holder, self._depth = task, 1
        return True

    def release(self) -> None:
        self._depth -= 1
        if self._depth <= 0:
            self._holder, self._depth = None, 0
            super().release()

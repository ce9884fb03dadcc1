"""The per-machine lock: a one-token queue that is cheap when nobody else wants it.

``Machine.send`` takes the lock once per event, so its price is paid on every transition. On the
development VM an ``RLock`` acquire/release pair costs 80-120 ns and ``get``/``put`` on a
:class:`queue.SimpleQueue` holding one token 36-70 ns (``bench/bench_send.py`` prints both), and
a thread that finds the token gone still sleeps on the queue's own lock instead of spinning. The
token is the lock: whoever took it holds the machine.

The hot path uses the raw token (``take``/``give``) and runs no user code while holding it. Every
other holder (guards, actions, listeners, stores, readers) goes through the re-entrant context
manager, which records the owning thread, so that a listener can read ``machine.history`` or
send again, and a guard that sends is refused with a clear error instead of waiting for itself.
"""

from __future__ import annotations

from collections.abc import Callable
from queue import Empty, SimpleQueue
from threading import get_ident
from typing import Final, TypeAlias

__all__ = ["NO_LOCK", "Empty", "MachineLock", "Mutex"]


class Mutex:
    """A re-entrant lock whose uncontended, non-re-entrant use is two C calls."""

    __slots__ = ("depth", "give", "owner", "take")

    def __init__(self) -> None:
        token: SimpleQueue[None] = SimpleQueue()
        token.put(None)
        #: ``take(False)`` raises :class:`queue.Empty` when another holder has the token;
        #: ``take()`` waits for it.
        self.take: Callable[..., object] = token.get
        self.give: Callable[[None], object] = token.put
        #: Thread id of the holder that entered through the context manager (or claimed it).
        self.owner: int | None = None
        self.depth = 0

    def __enter__(self) -> None:
        me = get_ident()
        if self.owner != me:
            self.take()
            self.owner = me
        self.depth += 1

    def __exit__(self, *exc_info: object) -> None:
        self.depth -= 1
        if not self.depth:
            self.owner = None
            self.give(None)

    def claim(self) -> None:
        """Mark the calling thread, which took the raw token, as its owner (before user code)."""
        self.owner = get_ident()
        self.depth = 1

    def unclaim(self) -> None:
        """Undo :meth:`claim`; the raw holder then gives the token back itself."""
        self.owner = None
        self.depth = 0


class _NoLock:
    """Stand-in for ``MachineOptions(thread_safe=False)``: every operation is a cheap no-op."""

    __slots__ = ()
    take = staticmethod(bool)
    give = staticmethod(bool)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None

    def claim(self) -> None:
        return None

    def unclaim(self) -> None:
        return None


NO_LOCK: Final = _NoLock()
#: What a machine holds: a real :class:`Mutex` or :data:`NO_LOCK`.
MachineLock: TypeAlias = "Mutex | _NoLock"

"""The lock a machine holds while it applies an event: ``threading.RLock`` when it is thread
safe, else :data:`NO_LOCK`, which costs two calls of a C builtin."""

from __future__ import annotations

from typing import Any, Final, Protocol

__all__ = ["NO_LOCK", "Lock"]


class Lock(Protocol):
    """What the machines need from a lock (``threading.RLock`` or :data:`NO_LOCK`)."""

    def acquire(self) -> object: ...

    def release(self) -> object: ...

    def __enter__(self) -> object: ...

    def __exit__(self, exc_type: Any, exc: Any, tb: Any, /) -> object: ...


class _NoLock:
    """Stand-in for ``MachineOptions(thread_safe=False)``; C builtins keep the calls cheap."""

    __slots__ = ()
    acquire = staticmethod(bool)
    release = staticmethod(bool)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


NO_LOCK: Final = _NoLock()

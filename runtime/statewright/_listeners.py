"""The ``statewright`` logger, the default options, and what a sync machine does with awaitables
its listeners return: the small shared pieces every machine reaches for, none of which imports
anything costly until it is used.

Importing logging costs ~5 ms and :class:`MachineOptions` is a dataclass (importing dataclasses,
with inspect, ast and dis, costs more than the rest of a generated module), so both are imported
by the first machine constructed, not by importing a generated module.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import logging

    from statewright._options import MachineOptions

__all__ = [
    "DEBUG",
    "INFO",
    "default_options",
    "log_cache",
    "logger_of",
    "refuse_async_listeners",
    "statewright_logger",
]

#: ``logging.INFO`` and ``logging.DEBUG``, spelled out so that importing this does not import
#: logging.
INFO: Final = 20
DEBUG: Final = 10
#: The ``statewright`` logger and the default options, made by the first machine constructed.
_LOG: logging.Logger | None = None
_DEFAULT_OPTIONS: MachineOptions | None = None


def statewright_logger() -> logging.Logger:
    """The ``statewright`` logger (importing logging on first use)."""
    global _LOG
    if _LOG is None:
        import logging

        _LOG = logging.getLogger("statewright")
    return _LOG


def logger_of(options: MachineOptions) -> logging.Logger:
    """The logger a machine with ``options`` logs to."""
    return options.logger if options.logger is not None else statewright_logger()


def default_options() -> MachineOptions:
    """The options of a machine constructed without any (one shared, immutable value)."""
    global _DEFAULT_OPTIONS
    if _DEFAULT_OPTIONS is None:
        from statewright._options import MachineOptions

        _DEFAULT_OPTIONS = MachineOptions()
    return _DEFAULT_OPTIONS


def log_cache(logger: logging.Logger, enabled: bool) -> dict[int, bool]:
    """``logger``'s own level cache (level -> enabled; logging clears it whenever levels
    change), or ``{INFO: False}`` when the machine does not log transitions: reading it costs a
    third of an ``isEnabledFor`` call, so the hot path asks it first."""
    if not enabled:
        return {INFO: False}
    cache = getattr(logger, "_cache", None)
    return cache if isinstance(cache, dict) else {}


def refuse_async_listeners(pending: list[Awaitable[object]]) -> None:
    """What a sync machine does with awaitables its listeners returned (after the transition)."""
    import inspect  # an error path: not worth importing inspect with every generated module

    for awaitable in pending:
        if inspect.iscoroutine(awaitable):
            awaitable.close()  # never awaited: close it instead of leaking a warning
    raise TypeError(
        "a listener returned an awaitable: coroutine listeners need AsyncMachine "
        "(the transition itself was applied)"
    )

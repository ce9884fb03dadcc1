"""statewright runtime: the only package generated state-machine modules import.

Standard library only. Generated modules subclass :class:`Machine` (or :class:`AsyncMachine`) and
hand it a :class:`MachineSpec`; statecharts subclass :class:`ChartMachine` (or
:class:`AsyncChartMachine`), imported on first use like the other names below. Everything else
here is for the application around them.

Importing a generated module should cost little, so :class:`AsyncMachine` (asyncio),
:class:`MachineRegistry` (logging, threading), the store implementations and
:func:`open_store` (json, pathlib, tempfile, sqlite3; psycopg only when a PostgreSQL store is
opened), :class:`MachineOptions` and :class:`TransitionRecord` (dataclasses, with inspect, ast
and dis) and the names defined next to them are imported on first use of the name
(PEP 562 ``__getattr__``); type checkers see ordinary imports. The rest imports neither
dataclasses, inspect, logging nor threading: the spec values are plain slotted classes, and
machines import what they need when the first one is constructed, reads its history or calls a
listener.
"""

from typing import TYPE_CHECKING

from statewright._async import AsyncChartMachine, AsyncMachine
from statewright._compat import StrEnum, assert_never
from statewright._errors import (
    ActionFailed,
    ChildMachineError,
    ClockError,
    Conflict,
    GuardFailed,
    InvalidData,
    InvalidPayload,
    InvalidTransition,
    RegistrySaveError,
    SnapshotError,
    StatewrightError,
    StoreError,
    TimerLoop,
    UnknownEvent,
    UnknownInstance,
)
from statewright._machine import ChartMachine, Machine
from statewright._persistence import Snapshot
from statewright._snapshot import SNAPSHOT_FORMAT
from statewright._spec import (
    PREVIOUS,
    Alternative,
    ErrorRoute,
    GuardFunction,
    MachineSpec,
    Previous,
)
from statewright._stores.protocol import (
    ClosableStore,
    IncrementalStore,
    SnapshotUpdate,
    Store,
    TimerStore,
)
from statewright._version import RUNTIME_API, RuntimeVersionError, __version__, require_runtime

if TYPE_CHECKING:
    from statewright._chart_spec import (
        ERROR_ROUTE,
        Cancel,
        Chart,
        ChartNode,
        ChartTransition,
        Invoke,
        Log,
        Raise,
        Send,
    )
    from statewright._data_spec import Assign, DataModel, Foreach, If
    from statewright._event_info import EventInfo, System, lookup
    from statewright._history import Listener, TransitionRecord
    from statewright._idempotency import SendResult
    from statewright._migration import migrate_snapshot
    from statewright._options import ContextCodec, MachineOptions, Migration
    from statewright._payloads import PayloadCodec
    from statewright._registry import MachineRegistry
    from statewright._stores.files import JsonFileStore
    from statewright._stores.memory import MemoryStore
    from statewright._stores.postgres import PostgresStore
    from statewright._stores.sqlite import SqliteStore
    from statewright._stores.url import open_store
    from statewright._timer_driver import fire_due_timers, fire_due_timers_async
    from statewright._tools import ToolDefinition
else:
    # Hidden from type checkers, which would otherwise accept any attribute of the package.

    #: Public names imported on first access, and the module defining each.
    _LAZY = {
        "Assign": "statewright._data_spec",
        "DataModel": "statewright._data_spec",
        "Foreach": "statewright._data_spec",
        "If": "statewright._data_spec",
        "EventInfo": "statewright._event_info",
        "System": "statewright._event_info",
        "lookup": "statewright._event_info",
        "ERROR_ROUTE": "statewright._chart_spec",
        "Cancel": "statewright._chart_spec",
        "Chart": "statewright._chart_spec",
        "ChartNode": "statewright._chart_spec",
        "ChartTransition": "statewright._chart_spec",
        "Invoke": "statewright._chart_spec",
        "Log": "statewright._chart_spec",
        "Raise": "statewright._chart_spec",
        "Send": "statewright._chart_spec",
        "ContextCodec": "statewright._options",
        "JsonFileStore": "statewright._stores.files",
        "Listener": "statewright._history",
        "MachineOptions": "statewright._options",
        "MachineRegistry": "statewright._registry",
        "MemoryStore": "statewright._stores.memory",
        "Migration": "statewright._options",
        "PayloadCodec": "statewright._payloads",
        "PostgresStore": "statewright._stores.postgres",
        "SendResult": "statewright._idempotency",
        "ToolDefinition": "statewright._tools",
        "SqliteStore": "statewright._stores.sqlite",
        "TransitionRecord": "statewright._history",
        "fire_due_timers": "statewright._timer_driver",
        "fire_due_timers_async": "statewright._timer_driver",
        "migrate_snapshot": "statewright._migration",
        "open_store": "statewright._stores.url",
    }

    def __getattr__(name):
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(module), name)
        globals()[name] = value  # later lookups are plain attribute hits
        return value

    def __dir__():
        return sorted({*globals(), *_LAZY})


__all__ = [
    "ERROR_ROUTE",
    "PREVIOUS",
    "RUNTIME_API",
    "SNAPSHOT_FORMAT",
    "ActionFailed",
    "Alternative",
    "Assign",
    "AsyncChartMachine",
    "AsyncMachine",
    "Cancel",
    "Chart",
    "ChartMachine",
    "ChartNode",
    "ChartTransition",
    "ChildMachineError",
    "ClockError",
    "ClosableStore",
    "Conflict",
    "ContextCodec",
    "DataModel",
    "ErrorRoute",
    "EventInfo",
    "Foreach",
    "GuardFailed",
    "GuardFunction",
    "If",
    "IncrementalStore",
    "InvalidData",
    "InvalidPayload",
    "InvalidTransition",
    "Invoke",
    "JsonFileStore",
    "Listener",
    "Log",
    "Machine",
    "MachineOptions",
    "MachineRegistry",
    "MachineSpec",
    "MemoryStore",
    "Migration",
    "PayloadCodec",
    "PostgresStore",
    "Previous",
    "Raise",
    "RegistrySaveError",
    "RuntimeVersionError",
    "Send",
    "SendResult",
    "Snapshot",
    "SnapshotError",
    "SnapshotUpdate",
    "SqliteStore",
    "StatewrightError",
    "Store",
    "StoreError",
    "StrEnum",
    "System",
    "TimerLoop",
    "TimerStore",
    "ToolDefinition",
    "TransitionRecord",
    "UnknownEvent",
    "UnknownInstance",
    "__version__",
    "assert_never",
    "fire_due_timers",
    "fire_due_timers_async",
    "lookup",
    "migrate_snapshot",
    "open_store",
    "require_runtime",
]

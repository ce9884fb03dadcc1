"""statewright runtime: the only package generated state-machine modules import.

Standard library only. Generated modules subclass :class:`Machine` (or :class:`AsyncMachine`) and
hand it a :class:`MachineSpec`; everything else here is for the application around them.
"""

from statewright._async import AsyncMachine
from statewright._compat import StrEnum, assert_never
from statewright._core import Listener
from statewright._errors import (
    ActionFailed,
    Conflict,
    GuardFailed,
    InvalidTransition,
    SnapshotError,
    StatewrightError,
    StoreError,
    UnknownEvent,
    UnknownInstance,
)
from statewright._history import TransitionRecord
from statewright._machine import Machine
from statewright._options import ContextCodec, MachineOptions, Migration
from statewright._registry import MachineRegistry
from statewright._snapshot import SNAPSHOT_FORMAT
from statewright._spec import (
    PREVIOUS,
    Alternative,
    ErrorRoute,
    GuardFunction,
    MachineSpec,
    Previous,
)
from statewright._sqlite import SqliteStore
from statewright._stores import JsonFileStore, MemoryStore, Store
from statewright._version import RUNTIME_API, RuntimeVersionError, __version__, require_runtime

__all__ = [
    "PREVIOUS",
    "RUNTIME_API",
    "SNAPSHOT_FORMAT",
    "ActionFailed",
    "Alternative",
    "AsyncMachine",
    "Conflict",
    "ContextCodec",
    "ErrorRoute",
    "GuardFailed",
    "GuardFunction",
    "InvalidTransition",
    "JsonFileStore",
    "Listener",
    "Machine",
    "MachineOptions",
    "MachineRegistry",
    "MachineSpec",
    "MemoryStore",
    "Migration",
    "Previous",
    "RuntimeVersionError",
    "SnapshotError",
    "SqliteStore",
    "StatewrightError",
    "Store",
    "StoreError",
    "StrEnum",
    "TransitionRecord",
    "UnknownEvent",
    "UnknownInstance",
    "__version__",
    "assert_never",
    "require_runtime",
]

"""Statecharts with a data model, built by hand for the runtime tests (no compiler involved).

What a generated module would hold is written here directly: a slotted data class, the data
model's field shapes, and small Python functions standing for the compiled expressions
(``fn(data, event, system, active)``). They are test code, not spec text: nothing is evaluated
from a string.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from statewright import (
    AsyncMachine,
    Chart,
    ChartNode,
    ChartTransition,
    Machine,
    MachineOptions,
    MachineSpec,
    StrEnum,
)
from statewright._data_spec import DataModel

__all__ = [
    "CLOCK_START",
    "FIELDS",
    "Clock",
    "D",
    "Data",
    "E",
    "S",
    "build",
    "field",
    "options",
    "value",
]

CLOCK_START = 1_800_000_000.0


class S(StrEnum):
    """Every test chart's leaf states (a chart uses those it needs)."""

    IDLE = "idle"
    BUSY = "busy"
    ONE = "one"
    TWO = "two"
    END = "end"
    DONE = "done"


class E(StrEnum):
    GO = "GO"
    PING = "PING"
    PONG = "PONG"
    BACK = "BACK"
    FAIL = "FAIL"
    ERROR = "error.execution"
    COMMUNICATION = "error.communication"
    DONE_OUTER = "done.state.outer"


class Data:
    """The generated ``<Name>Data`` class's stand-in: typed slots with literal initial values."""

    __slots__ = ("count", "event", "index", "item", "items", "label", "seen", "sendid", "table")

    def __init__(self) -> None:
        self.count: int = 0
        self.items: list[int] = [1, 2, 3]
        self.table: dict[str, int] = {"a": 1}
        self.item: int | None = None
        self.index: int | None = None
        self.sendid: str | None = None
        self.label: str = ""
        self.seen: list[Any] = []
        self.event: Any = None


#: The data model's field shapes (what a snapshot's ``data`` is checked against).
FIELDS: tuple[tuple[str, tuple[Any, ...], bool], ...] = (
    ("count", ("int",), True),
    ("items", ("list", ("int",)), True),
    ("table", ("dict", ("int",)), True),
    ("item", ("union", (("int",), ("none",))), False),
    ("index", ("union", (("int",), ("none",))), False),
    ("sendid", ("union", (("str",), ("none",))), False),
    ("label", ("str",), True),
    ("seen", ("list", ("any",)), True),
    ("event", ("any",), False),
)

D = Callable[[Any, Any, Any, Container[int]], Any]


def value(result: Any) -> D:
    """An expression that computes ``result`` (a constant)."""
    return lambda data, event, system, active: result


def field(name: str) -> D:
    """An expression reading the data field ``name``."""
    return lambda data, event, system, active: getattr(data, name)


class Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = CLOCK_START

    def __call__(self) -> float:
        return self.now


def build(
    nodes: tuple[ChartNode, ...],
    transitions: tuple[ChartTransition, ...],
    *,
    on_error: str = "event",
    binding: str = "early",
    data_steps: tuple[Any, ...] = (),
    initial_steps: tuple[Any, ...] = (),
    handlers: frozenset[str] = frozenset(),
    with_data: bool = True,
    flavour: type[Any] = Machine,
    name: str = "DataChart",
    payloads: dict[E, tuple[tuple[str, tuple[Any, ...], bool], ...]] | None = None,
) -> Any:
    """A machine class (``flavour``: :class:`Machine` or :class:`AsyncMachine`) for a chart of
    ``nodes`` and ``transitions``, with the :class:`Data` model unless ``with_data`` is false."""
    chart = Chart(nodes, transitions, (0,), initial_steps, on_error, data_steps)
    leaves = [node.member for node in nodes if node.member is not None]
    spec: MachineSpec[S, E] = MachineSpec(
        name=name,
        version=1,
        spec_hash="0" * 64,
        state_type=S,
        event_type=E,
        initial=leaves[0],
        final_states=frozenset(node.member for node in nodes if node.kind == "final"),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        handler_names=handlers,
        payloads=payloads,
        chart=chart,
        data=DataModel(Data, FIELDS, binding) if with_data else None,
    )
    base = AsyncMachine if flavour is AsyncMachine else Machine
    return type(name + base.__name__, (base,), {"spec": spec})


def options(clock: Clock | None = None, **more: Any) -> MachineOptions:
    return MachineOptions(clock=clock or Clock(), instance_id="session-1", **more)

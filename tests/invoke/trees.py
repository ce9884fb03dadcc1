"""Trees of machines built by hand for the child-machine tests (no compiler involved): what a
generated module would hold, written directly (spec values, a data class per machine, small
Python functions standing for the compiled expressions ``fn(data, event, system, active)``).

* **Worker** (the child): ``working`` until it counted ``limit`` PINGs (or got STOP), then the
  top-level final ``done`` with done data ``{"count", "name"}``. Entering ``working`` tells its
  parent ``started``; each PING answers ``PONG`` with the count; BURST sends ``FIRST`` then
  ``SECOND``; NOISE is remembered; its ``after`` timer sends itself TICK after 5 s (counted).
* **Boss** (the parent): ``idle`` --GO--> ``running`` (invokes the worker as ``worker`` with
  ``{"limit": 3, "name": "w1"}``, finalize counts events from it) --done.invoke.worker-->
  ``finished``; CANCEL goes back to ``idle``; PING is sent on to ``#_worker``; FIRST goes back
  to ``idle`` too; ``running`` starts its own 7 s timer (TOCK). Every event it processes is
  remembered in ``log`` with its ``_event`` fields.
* **Middle**: invokes a worker at start with ``autoforward``, relays its PONGs to its own parent
  as RELAY and finishes (top-level final) when the worker does: a tree of depth 2 under a Boss
  variant that invokes a Middle.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from statewright import (
    Assign,
    AsyncMachine,
    Chart,
    ChartNode,
    ChartTransition,
    Invoke,
    Machine,
    MachineOptions,
    MachineSpec,
    Send,
    StrEnum,
)
from statewright._data_spec import DataModel

__all__ = [
    "CLOCK_START",
    "BossEvent",
    "BossState",
    "Clock",
    "WorkerEvent",
    "WorkerState",
    "boss",
    "middle",
    "options",
    "worker",
]

CLOCK_START = 1_800_000_000.0
N, T = ChartNode, ChartTransition
D = Callable[[Any, Any, Any, Container[int]], Any]


class Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = CLOCK_START

    def __call__(self) -> float:
        return self.now


def options(clock: Clock | None = None, **more: Any) -> MachineOptions:
    more.setdefault("instance_id", "boss-1")
    return MachineOptions(clock=clock or Clock(), **more)


class WorkerState(StrEnum):
    WORKING = "working"
    DONE = "done"


class WorkerEvent(StrEnum):
    PING = "PING"
    STOP = "STOP"
    BURST = "BURST"
    NOISE = "NOISE"
    TICK = "TICK"
    ERROR = "error.execution"


class BossState(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    FINISHED = "finished"
    END = "end"


class BossEvent(StrEnum):
    GO = "GO"
    CANCEL = "CANCEL"
    PING = "PING"
    NOISE = "NOISE"
    TOCK = "TOCK"
    STARTED = "started"
    PONG = "PONG"
    FIRST = "FIRST"
    SECOND = "SECOND"
    RELAY = "RELAY"
    DONE_INVOKE = "done.invoke"
    DONE_WORKER = "done.invoke.worker"
    DONE_MIDDLE = "done.invoke.middle"
    ERROR = "error.execution"
    COMMUNICATION = "error.communication"


def _data_class(fields: dict[str, Any]) -> type:
    """A stand-in for a generated ``<Name>Data`` class: slots holding the literal initials."""

    def __init__(self: Any) -> None:
        for name, initial in fields.items():
            setattr(self, name, list(initial) if isinstance(initial, list) else initial)

    return type("Data", (), {"__slots__": tuple(fields), "__init__": __init__})


def _spec(
    name: str,
    states: type[StrEnum],
    events: type[StrEnum],
    nodes: tuple[ChartNode, ...],
    transitions: tuple[ChartTransition, ...],
    fields: dict[str, tuple[tuple[Any, ...], Any]],
) -> MachineSpec[Any, Any]:
    data_class = _data_class({field: initial for field, (_, initial) in fields.items()})
    shapes = tuple((field, shape, True) for field, (shape, _) in fields.items())
    chart = Chart(nodes, transitions, (0,), on_error="event")
    return MachineSpec(
        name=name,
        version=1,
        spec_hash="0" * 64,
        state_type=states,
        event_type=events,
        initial=next(node.member for node in nodes if node.member is not None),
        final_states=frozenset(node.member for node in nodes if node.kind == "final"),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        chart=chart,
        data=DataModel(data_class, shapes),
    )


def _classes(spec: MachineSpec[Any, Any]) -> tuple[Any, Any]:
    sync = type(spec.name + "Machine", (Machine,), {"spec": spec})
    asynchronous = type(spec.name + "AsyncMachine", (AsyncMachine,), {"spec": spec})
    return sync, asynchronous


def _add(name: str, value: D) -> Assign:
    """``name = name + [value]``."""
    return Assign(name, lambda d, e, s, a: [*getattr(d, name), value(d, e, s, a)], name)


def _event_fields(data: Any, event: Any, system: Any, active: Any) -> dict[str, Any]:
    return {
        "name": event.name,
        "data": event.data,
        "invokeid": event.invokeid,
        "origin": event.origin,
        "sendid": event.sendid,
    }


ANY, INT, STR = ("any",), ("int",), ("str",)
LIST = ("list", ("any",))
MAYBE_STR = ("union", (("str",), ("none",)))


def worker(
    limit: int = 3, name: str = "Worker", extra: tuple[ChartTransition, ...] = ()
) -> tuple[Any, Any]:
    """The worker's sync and asyncio classes (see the module docstring); ``extra`` adds
    transitions (first)."""
    fields: dict[str, tuple[tuple[Any, ...], Any]] = {
        "limit": (INT, limit),
        "count": (INT, 0),
        "name": (STR, ""),
        "seen": (LIST, []),
    }
    hello = Send("started", "hello", target="#_parent", data=lambda d, e, s, a: {"name": d.name})
    nodes = (
        N(
            "working",
            "atomic",
            member=WorkerState.WORKING,
            entry=(hello,),
            timers=(Send(WorkerEvent.TICK, "after.working.5s", delay=5.0),),
        ),
        N(
            "done",
            "final",
            member=WorkerState.DONE,
            donedata=lambda d, e, s, a: {"count": d.count, "name": d.name},
        ),
    )
    pong = Send("PONG", "", target="#_parent", data=lambda d, e, s, a: {"count": d.count})
    count = Assign("count", lambda d, e, s, a: d.count + 1, "count")
    transitions = (
        *extra,
        T(0, frozenset({WorkerEvent.PING}), steps=(count, pong)),
        T(0, cond=lambda d, e, s, a: d.count >= d.limit, targets=(1,)),
        T(0, frozenset({WorkerEvent.STOP}), targets=(1,)),
        T(
            0,
            frozenset({WorkerEvent.BURST}),
            steps=(
                Send("FIRST", "first", target="#_parent"),
                Send("SECOND", "second", target="#_parent"),
            ),
        ),
        T(0, frozenset({WorkerEvent.NOISE}), steps=(_add("seen", _event_fields),)),
        T(0, frozenset({WorkerEvent.TICK}), steps=(count, _add("seen", lambda *_: "tick"))),
        T(0, frozenset({WorkerEvent.ERROR}), steps=(_add("seen", _event_fields),)),
    )
    return _classes(_spec(name, WorkerState, WorkerEvent, nodes, transitions, fields))


WORKER, ASYNC_WORKER = worker()


def boss(
    invoke: Invoke | None = None,
    *,
    extra: tuple[ChartTransition, ...] = (),
    name: str = "Boss",
    more: tuple[Invoke, ...] = (),
) -> tuple[Any, Any]:
    """The parent's sync and asyncio classes (see the module docstring); ``invoke`` replaces
    its invoke of the worker, ``more`` adds invokes to ``running``, ``extra`` transitions."""
    if invoke is None:
        invoke = Invoke(
            lambda: WORKER,
            lambda: ASYNC_WORKER,
            "worker",
            params=lambda d, e, s, a: {"limit": 3, "name": "w1"},
            finalize=(Assign("finalized", lambda d, e, s, a: d.finalized + 1, "finalized"),),
        )
    fields: dict[str, tuple[tuple[Any, ...], Any]] = {
        "log": (LIST, []),
        "result": (ANY, None),
        "finalized": (INT, 0),
        "worker_id": (MAYBE_STR, None),
    }
    remember = _add("log", _event_fields)
    nodes = (
        N("idle", "atomic", member=BossState.IDLE),
        N(
            "running",
            "atomic",
            member=BossState.RUNNING,
            invokes=(invoke, *more),
            timers=(Send(BossEvent.TOCK, "after.running.7s", delay=7.0),),
        ),
        N("finished", "atomic", member=BossState.FINISHED),
        N("end", "final", member=BossState.END),
    )
    to_worker = Send("PING", "", target="#_worker")
    result = Assign("result", lambda d, e, s, a: e.data, "result")
    transitions = (
        *extra,
        T(0, frozenset({BossEvent.GO}), targets=(1,)),
        T(1, frozenset({BossEvent.CANCEL}), targets=(0,)),
        T(1, frozenset({BossEvent.PING}), steps=(to_worker,)),
        T(1, frozenset({BossEvent.FIRST}), steps=(remember,), targets=(0,)),
        T(1, frozenset({BossEvent.DONE_WORKER}), steps=(remember, result), targets=(2,)),
        T(1, frozenset({BossEvent.DONE_MIDDLE}), steps=(remember, result), targets=(2,)),
        *(
            T(node, frozenset({event}), steps=(remember,))
            for node in range(3)
            for event in (
                BossEvent.STARTED,
                BossEvent.PONG,
                BossEvent.SECOND,
                BossEvent.RELAY,
                BossEvent.TOCK,
                BossEvent.DONE_INVOKE,
                BossEvent.ERROR,
                BossEvent.COMMUNICATION,
            )
        ),
        T(2, frozenset({BossEvent.CANCEL}), targets=(3,)),
    )
    return _classes(_spec(name, BossState, BossEvent, nodes, transitions, fields))


def middle() -> tuple[Any, Any]:
    """Middle's sync and asyncio classes: invokes a worker (``autoforward``) at start, relays
    each PONG to its parent as RELAY, and finishes with the worker's done data."""
    fields: dict[str, tuple[tuple[Any, ...], Any]] = {"result": (ANY, None)}
    invoke = Invoke(
        lambda: WORKER,
        lambda: ASYNC_WORKER,
        "inner",
        params=lambda d, e, s, a: {"limit": 2, "name": "inner"},
        autoforward=True,
    )
    relay = Send("RELAY", "", target="#_parent", data=lambda d, e, s, a: e.data)
    nodes = (
        N("working", "atomic", member=WorkerState.WORKING, invokes=(invoke,)),
        N("done", "final", member=WorkerState.DONE, donedata=lambda d, e, s, a: d.result),
    )
    transitions = (
        T(0, frozenset({MiddleEvent.PONG}), steps=(relay,)),
        T(
            0,
            frozenset({MiddleEvent.DONE}),
            steps=(Assign("result", lambda d, e, s, a: e.data, "result"),),
            targets=(1,),
        ),
    )
    return _classes(_spec("Middle", WorkerState, MiddleEvent, nodes, transitions, fields))


class MiddleEvent(StrEnum):
    PING = "PING"
    PONG = "PONG"
    DONE = "done.invoke.inner"

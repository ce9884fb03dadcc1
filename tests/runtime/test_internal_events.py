"""The untrusted-input boundary never lets an internal event in.

Internal events are the ones the machine sends itself: ``done.state.*`` and the other ``error.*``
and ``done.state.*`` events of a statechart, the events ``after`` timers send, and events a spec
declares ``internal = true``. For every seed (``spec/*.toml``), example (``examples/*.toml``) and
chart test spec that has such events, this module walks the machine through its configurations
and, in each, sends every internal event through every untrusted entry point (``send_external``
of the sync and the asyncio machine, with and without an idempotency key, by member, name, value
and method name, with and without arguments): each is refused with :class:`UnknownEvent` and the
machine (its snapshot, its store) is unchanged. ``tools()`` never lists one, in any state, nor
does ``statewright tools``; the generated classes have no method and no typed ``send`` signature
for one.

Which events are internal is worked out here from the spec and the chart, not read from the
compiler's answer (which is checked against it).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from statewright import (
    Chart,
    ChartMachine,
    ChartNode,
    ChartTransition,
    GuardFailed,
    Machine,
    MachineOptions,
    MachineSpec,
    MemoryStore,
    Send,
    StatewrightError,
    StrEnum,
    UnknownEvent,
)
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.model import Machine as CompiledMachine
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.toml_compat import tomllib

from tests.conftest import REPO, run_cli
from tests.runtime.machines import TaskEvent, TaskState, plain_spec

SEEDS = sorted((REPO / "spec").glob("*.toml"))
EXAMPLES = sorted((REPO / "examples").glob("*.toml"))
#: Chart test specs with internal events: the golden cases and imported SCXML documents.
CHART_TESTS = [
    *(REPO / "tests" / "cases" / name / "spec.toml" for name in ("chart_parallel", "chart_sink")),
    REPO / "tests" / "cases" / "chart_task" / "spec.toml",
    *(REPO / "tests" / "scxml" / "valid" / f"{name}.toml" for name in ("nested", "transitions")),
]
SPECS = [*SEEDS, *EXAMPLES, *CHART_TESTS]
#: Specs whose internal events this module must find (so it cannot pass by finding none).
MUST_HAVE_INTERNAL = {
    *("remem", "approval_workflow", "agent_task"),
    *("chart_parallel", "chart_sink", "chart_task", "nested", "transitions"),
}
#: Imported SCXML documents may send themselves ``<send>`` events in a loop: no waiting there.
NO_TIMERS = {"nested", "transitions"}
#: Machines that nothing from outside moves: only their child machines' completion does (the
#: walk sees one configuration of them; their internal events are refused in it all the same).
MOVED_BY_CHILDREN = {"notebook_stage"}
STEPS = 12
ARGUMENTS: list[Any] = [None, {}, {"ok": True}, '{"x": 1}', b"{}", "[]"]
KEYS = [None, "boundary-key"]


def spec_id(path: Path) -> str:
    return path.parent.name if path.name == "spec.toml" else path.stem


@dataclass
class Clock:
    now: float = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Handlers:
    """Every guard True, every action nothing, every delay one minute."""

    def __init__(self, machine: CompiledMachine) -> None:
        for name in machine.guards:
            setattr(self, name, lambda context, payload: True)
        for name in machine.actions:
            setattr(self, name, lambda context, payload: None)
        for name in machine.delays:
            setattr(self, name, lambda context, payload: 60.0)


@dataclass
class Compiled:
    path: Path
    machine: CompiledMachine
    module: ModuleType
    source: str
    internal: frozenset[Any] = field(default_factory=frozenset)


def _compile(path: Path, folder: Path) -> Compiled:
    machine, _ = compile_spec(path)
    source = module_source(machine)
    module_path = folder / f"{machine.module_name}_{spec_id(path)}.py"
    module_path.write_text(source, encoding="utf-8")
    name = f"boundary_{spec_id(path)}_{machine.module_name}"
    spec = importlib.util.spec_from_file_location(name, module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    compiled = Compiled(path, machine, module, source)
    compiled.internal = internal_members(path, module, machine.name)
    return compiled


def internal_members(path: Path, module: ModuleType, name: str) -> frozenset[Any]:
    """What must be internal, from the spec text and the chart: the chart's ``done.state.*``,
    ``done.invoke.*`` and ``error.*`` events, its timers' events, and events declared
    ``internal = true``."""
    events = getattr(module, f"{name}Event")
    chart = module.SPEC.chart
    found: set[Any] = set()
    if chart is not None:
        found |= {
            member
            for member in events
            if member.value == "error"
            or member.value.startswith(("error.", "done.state.", "done.invoke."))
        }
        found |= {timer.event for node in chart.nodes for timer in node.timers}
        found |= {node.done for node in chart.nodes if node.done is not None}
    declared = tomllib.loads(path.read_text(encoding="utf-8")).get("events", {})
    found |= {events[key.upper()] for key, body in declared.items() if body.get("internal")}
    return frozenset(found)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Compiled]:
    folder = tmp_path_factory.mktemp("boundary")
    return {spec_id(path): _compile(path, folder) for path in SPECS}


def test_the_specs_have_internal_events_to_refuse(compiled: dict[str, Compiled]) -> None:
    for name in MUST_HAVE_INTERNAL:
        assert compiled[name].internal, name
    declared = [c for c in compiled.values() if "internal = true" in c.path.read_text()]
    assert declared, "no spec declares an internal event: the declaration goes untested"


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_the_spec_names_its_internal_events(spec: Path, compiled: dict[str, Compiled]) -> None:
    found = compiled[spec_id(spec)]
    assert found.module.SPEC.internal_events == found.internal


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_the_generated_classes_offer_no_internal_event(
    spec: Path, compiled: dict[str, Compiled]
) -> None:
    found = compiled[spec_id(spec)]
    name = found.machine.name
    event_class = f"{name}Event"
    for member in found.internal:
        for flavour in (f"{name}Machine", f"{name}AsyncMachine"):
            machine_class = getattr(found.module, flavour)
            assert not hasattr(machine_class, member.name.lower()), (flavour, member)
    # No typed send, try_send, can_send or send_once signature names it, and no method sends it.
    classes = found.source[found.source.index(f"class {name}Machine(") :]
    for member in found.internal:
        assert f"{event_class}.{member.name}" not in classes, member
        assert f"_E_{member.name}" not in classes, member


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_tools_never_list_an_internal_event(spec: Path, compiled: dict[str, Compiled]) -> None:
    found = compiled[spec_id(spec)]
    machine = new_machine(found, Clock())
    internal_names = {member.name for member in found.internal}
    states = getattr(found.module, f"{found.machine.name}State")
    for state in states:
        listed = {tool.name for tool in machine.tools(state)}
        assert not listed & internal_names, (state, listed & internal_names)
    for flavour in ("openai", "anthropic", "mcp"):
        result = run_cli(["tools", str(spec), "--format", flavour])
        assert result.code == 0, result.stderr
        for state, tools in json.loads(result.stdout).items():
            names = {
                tool["function"]["name"] if flavour == "openai" else tool["name"] for tool in tools
            }
            assert not names & internal_names, (flavour, state, names & internal_names)


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_send_external_refuses_every_internal_event_in_every_configuration(
    spec: Path, compiled: dict[str, Compiled]
) -> None:
    found = compiled[spec_id(spec)]
    clock = Clock()
    machine = new_machine(found, clock)
    store = machine.options.store
    assert store is not None
    moves = walk(found, spec_id(spec))
    visited = set()
    #: How often an internal event would have been taken (by the machine's own send) where
    #: send_external refused it: the refusals are not vacuous.
    takeable = 0
    for move in [None, *moves]:
        if move is not None:
            apply_sync(machine, clock, move)
        visited.add(frozenset(machine.active_states))
        takeable += sum(_takeable(machine, member) for member in found.internal)
        before, revision = machine.snapshot(), machine.revision
        for form, arguments, key in attempts(found):
            with pytest.raises(UnknownEvent):
                if key is None:
                    machine.send_external(form, arguments)
                else:
                    machine.send_external(form, arguments, idempotency_key=key)
            assert machine.snapshot() == before, (form, arguments, key)
            assert machine.revision == revision
        listed = {tool.name for tool in machine.tools()}
        assert not listed & {member.name for member in found.internal}
    moved = len(visited) > 1 or spec_id(spec) in MOVED_BY_CHILDREN
    assert (moved and takeable > 0) or not found.internal


def _takeable(machine: Any, member: Any) -> bool:
    """Whether the machine's own send of ``member`` (without data) would take a transition: a
    transition's condition that failed for want of the data (a child's done data) was one
    waiting for it, so that counts too."""
    try:
        return bool(machine.dynamic.can_send(member))
    except GuardFailed:
        return True


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_the_async_send_external_refuses_every_internal_event(
    spec: Path, compiled: dict[str, Compiled]
) -> None:
    found = compiled[spec_id(spec)]
    moves = walk(found, spec_id(spec))

    async def run() -> None:
        clock = Clock()
        machine = new_machine(found, clock, flavour="AsyncMachine")
        for move in [None, *moves]:
            if move is not None:
                await apply_async(machine, clock, move)
            before = machine.snapshot()
            for form, arguments, key in attempts(found):
                with pytest.raises(UnknownEvent):
                    if key is None:
                        await machine.send_external(form, arguments)
                    else:
                        await machine.send_external(form, arguments, idempotency_key=key)
                assert machine.snapshot() == before, (form, arguments, key)
            assert not {tool.name for tool in machine.tools()} & {m.name for m in found.internal}

    asyncio.run(run())


class HandState(StrEnum):
    WAITING = "waiting"
    DONE = "done"


class HandEvent(StrEnum):
    GO = "GO"
    TIMER = "after.waiting.0"
    PLATFORM_ERROR = "error.platform"


HAND_CHART = Chart(
    nodes=(
        ChartNode(
            "waiting",
            "atomic",
            member=HandState.WAITING,
            timers=(Send(HandEvent.TIMER, "after.waiting.0", delay=5.0),),
        ),
        ChartNode("done", "final", member=HandState.DONE),
    ),
    transitions=(
        ChartTransition(
            0,
            events=frozenset({HandEvent.GO, HandEvent.TIMER, HandEvent.PLATFORM_ERROR}),
            targets=(1,),
        ),
    ),
    initial=(0,),
)


class HandMachine(ChartMachine[HandState, HandEvent, None]):
    """A chart written by hand, without ``internal_events``: its timer's event and its error
    event are internal all the same (the runtime reads them off the chart)."""

    spec = MachineSpec(
        name="Hand",
        version=1,
        spec_hash="0" * 64,
        state_type=HandState,
        event_type=HandEvent,
        initial=HandState.WAITING,
        final_states=frozenset({HandState.DONE}),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        chart=HAND_CHART,
    )


def test_a_chart_written_by_hand_keeps_what_its_chart_sends_internal() -> None:
    clock = Clock()
    machine = HandMachine(None, options=MachineOptions(clock=clock))
    assert [tool.name for tool in machine.tools()] == ["GO"]
    assert machine.allowed_events() == {HandEvent.GO}
    for name in ("TIMER", "after.waiting.0", "PLATFORM_ERROR", "error.platform"):
        with pytest.raises(UnknownEvent, match="is an internal event of Hand"):
            machine.send_external(name)
    assert machine.state is HandState.WAITING
    clock.now += 5
    assert machine.fire_due() == 1  # the machine still sends it to itself
    assert machine.is_in(HandState.DONE)
    assert machine.last_transition is not None
    assert machine.last_transition.event is HandEvent.TIMER


def test_trusted_code_may_still_send_an_internal_event_dynamically() -> None:
    machine = HandMachine(None)
    assert machine.dynamic.send(HandEvent.PLATFORM_ERROR) is HandState.DONE


class HeartbeatMachine(Machine[TaskState, TaskEvent, None]):
    spec = MachineSpec(
        **{
            name: getattr(plain_spec(), name)
            for name in MachineSpec.__match_args__
            if name != "internal_events"
        },
        internal_events=frozenset({TaskEvent.HEARTBEAT}),
    )


def test_a_flat_spec_s_internal_events_are_neither_tools_nor_accepted() -> None:
    machine = HeartbeatMachine(None)
    assert TaskEvent.HEARTBEAT in machine.spec.transitions[TaskState.IDLE]
    assert machine.allowed_events() == {TaskEvent.TASK_CREATED, TaskEvent.CANCEL}
    assert [tool.name for tool in machine.tools()] == ["TASK_CREATED", "CANCEL"]
    assert all(tool.name != "HEARTBEAT" for state in TaskState for tool in machine.tools(state))
    with pytest.raises(UnknownEvent, match="'HEARTBEAT' is an internal event of PlainTask"):
        machine.send_external("HEARTBEAT")
    assert machine.total_transitions == 0


# -- helpers ---------------------------------------------------------------------------------------
def new_machine(found: Compiled, clock: Clock, flavour: str = "Machine") -> Any:
    options = MachineOptions(clock=clock, store=MemoryStore(), instance_id="boundary")
    machine_class = getattr(found.module, f"{found.machine.name}{flavour}")
    return machine_class(None, Handlers(found.machine), options=options)


def attempts(found: Compiled) -> Iterator[tuple[Any, Any, str | None]]:
    """Every internal event as a member, its name, its value and its method's name, with each
    kind of arguments, with and without an idempotency key."""
    for member in sorted(found.internal, key=str):
        for form in (member, member.name, member.value, member.name.lower(), str(member)):
            for arguments in ARGUMENTS:
                for key in KEYS:
                    yield form, arguments, key


#: A move of the walk: an external event to send, or seconds to let pass (then fire timers).
Move = tuple[str, Any]


def walk(found: Compiled, seed: str) -> list[Move]:
    """External events (and, where the chart has timers, waits) chosen at random, mostly among
    what the state accepts, by a machine of its own."""
    rng = random.Random(seed)
    clock = Clock()
    machine = new_machine(found, clock)
    events = getattr(found.module, f"{found.machine.name}Event")
    external = [member for member in events if member not in found.internal]
    chart = found.module.SPEC.chart
    timers = chart is not None and spec_id(found.path) not in NO_TIMERS
    moves: list[Move] = []
    for _ in range(STEPS):
        accepted = sorted(set(machine.allowed_events()) - found.internal, key=external.index)
        if timers and rng.random() < 0.25:
            move: Move = ("wait", rng.choice([1.0, 45.0, 400.0, 3600.0]))
        elif accepted and rng.random() < 0.85:
            move = ("send", rng.choice(accepted))
        elif external:
            move = ("send", rng.choice(external))
        else:
            continue
        apply_sync(machine, clock, move)
        moves.append(move)
    return moves


#: A value of each payload type for :func:`permissive_payload` (``bool`` True, as every guard).
SAMPLES: dict[str, Any] = {"str": "x", "int": 1, "float": 1.0, "bool": True, "list": [], "dict": {}}


def sample(shape: tuple[Any, ...]) -> Any:
    kind = shape[0]
    if kind == "list" and len(shape) > 1:
        return [sample(shape[1])]  # one item: a spec's cond may ask for a non-empty list
    if kind == "union":
        return sample(shape[1][0])
    if kind == "literal":
        return shape[1][0]
    return SAMPLES.get(kind)


def permissive_payload(machine: Any, event: Any) -> dict[str, Any]:
    """A payload for ``event`` as the typed method would send it: every required field a value
    of its type (``bool`` fields True), every optional one None. A spec's ``cond`` expressions
    read the payload, not the permissive handlers: without it the walk would stop at the first
    event whose ``cond`` reads a field."""
    fields = type(machine).spec.payloads.get(event, ())
    return {name: sample(shape) if required else None for name, shape, required in fields}


def apply_sync(machine: Any, clock: Clock, move: Move) -> None:
    kind, argument = move
    try:
        if kind == "wait":
            clock.now += argument
            machine.fire_due()
        else:
            machine.dynamic.try_send(argument, **permissive_payload(machine, argument))
    except StatewrightError:
        pass  # a guard or an action the permissive handlers made fail: the walk goes on


async def apply_async(machine: Any, clock: Clock, move: Move) -> None:
    kind, argument = move
    try:
        if kind == "wait":
            clock.now += argument
            await machine.fire_due()
        else:
            await machine.dynamic.try_send(argument, **permissive_payload(machine, argument))
    except StatewrightError:
        pass

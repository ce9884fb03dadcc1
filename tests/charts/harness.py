"""Running a chart spec two ways, the compiled machine and the reference interpreter, with the
same scripted guards and actions, and recording what each did after every event.

A :class:`Script` answers guards from a table (each guard's answers in turn, cycling, or for a
*finite* guard then False for good) and makes chosen calls of actions raise; it records every
guard call, action call and log step in order, so two runs agree only when they made the same
calls in the same order. The machine reaches the script through :class:`Handlers` (the handler
object the generated module expects) and a logger that records its log steps.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import types
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from statewright import (
    ActionFailed,
    GuardFailed,
    InvalidTransition,
    MachineOptions,
    StatewrightError,
)
from statewright_compiler.check.validate import validate_source
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.charts.reference import MAX_MICROSTEPS, Abandoned, NotSettled, Reference

__all__ = [
    "HandlerFailure",
    "Handlers",
    "Observation",
    "Script",
    "compile_chart",
    "run_async_machine",
    "run_machine",
    "run_reference",
]

#: A guard's scripted answer: True, False, or "raise".
Answer = bool | str
#: What one call did, in order: ("guard", name, answer), ("action", name, raised), ("log", text).
Call = tuple[Any, ...]


class HandlerFailure(Exception):
    """What a scripted guard or action raises."""


@dataclass
class Script:
    guards: Mapping[str, Sequence[Answer]] = field(default_factory=dict)
    #: ``failures[action]``: the (0-based) calls of that action that raise.
    failures: Mapping[str, frozenset[int]] = field(default_factory=dict)
    #: Guards whose answers do not cycle: after the last one they answer False.
    finite: frozenset[str] = frozenset()
    trace: list[Call] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)

    def fresh(self) -> Script:
        """The same script, not yet run."""
        return Script(self.guards, self.failures, self.finite)

    def guard(self, name: str) -> bool:
        answers, call = self.guards.get(name, (True,)), self.calls[name]
        if name in self.finite:
            answer = answers[call] if call < len(answers) else False
        else:
            answer = answers[call % len(answers)]
        self.calls[name] += 1
        self.trace.append(("guard", name, answer))
        if answer == "raise":
            raise HandlerFailure(name)
        return bool(answer)

    def action(self, name: str) -> None:
        raises = self.calls[name] in self.failures.get(name, frozenset())
        self.calls[name] += 1
        self.trace.append(("action", name, raises))
        if raises:
            raise HandlerFailure(name)

    def log(self, text: str) -> None:
        self.trace.append(("log", text))


class Handlers:
    """The handler object a generated machine calls: every name goes to the script."""

    def __init__(self, script: Script) -> None:
        self._script = script

    def __getattr__(self, name: str) -> Callable[[object, object], object]:
        if name.startswith("_"):
            raise AttributeError(name)
        script = self._script
        if name in script.guards:
            return lambda context, payload: script.guard(name)
        return lambda context, payload: script.action(name)


class _LogSteps(logging.Handler):
    """Records the machine's log steps (``{ log = ... }``) into the script's trace."""

    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg == "%s %s: %s: %s" and isinstance(record.args, tuple):
            self.script.log(str(record.args[3]))


def machine_options(script: Script) -> MachineOptions:
    logger = logging.Logger("tests.charts.machine", logging.INFO)  # not registered: no leak
    logger.addHandler(_LogSteps(script))
    return MachineOptions(logger=logger, log_transitions=False, record_history=False)


def compile_chart(text: str, name: str = "random_chart") -> types.ModuleType:
    """Compile a spec in-process and import the module from its source."""
    machine, _ = validate_source(parse_spec_text(text, f"{name}.toml"))
    source = module_source(machine)
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses and typing resolve names through sys.modules
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


@dataclass(frozen=True)
class Observation:
    """After one event (or the start): how it ended, the active leaves, the machine's ``state``
    (the first active leaf in document order), whether it finished, the values of the events
    it would take (guards aside) and the calls it made."""

    outcome: str  # started, taken, rejected, guard-error, action-error, loop
    leaves: frozenset[str]
    state: str | None
    finished: bool
    allowed: frozenset[str]
    calls: tuple[Call, ...]


def _outcome(error: Exception) -> str:
    if isinstance(error, GuardFailed):
        return "guard-error"
    if isinstance(error, ActionFailed):
        return "action-error"
    if isinstance(error, Abandoned):
        return f"{error.where}-error"
    if isinstance(error, NotSettled) or "did not settle" in str(error):
        return "loop"
    raise error


def _observe(outcome: str, machine: Any, script: Script, mark: int) -> Observation:
    calls = tuple(script.trace[mark:])
    if machine is None:
        return Observation(outcome, frozenset(), None, False, frozenset(), calls)
    leaves = frozenset(state.value for state in machine.active_states)
    allowed = frozenset(event.value for event in machine.allowed_events())
    return Observation(outcome, leaves, machine.state.value, machine.is_final, allowed, calls)


def run_machine(
    module: types.ModuleType, script: Script, events: Sequence[str], *, restore: bool = False
) -> list[Observation]:
    """The compiled machine: constructed (which starts it), then sent each event; with
    ``restore``, each event goes to a machine restored from a snapshot of the previous one."""
    machine_type = module.RandomMachine
    try:
        machine = machine_type(None, Handlers(script), options=machine_options(script))
    except StatewrightError as error:
        return [_observe(_outcome(error), None, script, 0)]
    observations = [_observe("started", machine, script, 0)]
    for name in events:
        if restore:
            machine = machine_type.restore(
                machine.snapshot(), Handlers(script), options=machine_options(script)
            )
        mark = len(script.trace)
        try:
            machine.send(module.RandomEvent[name.upper()])
            outcome = "taken"
        except InvalidTransition:
            outcome = "rejected"
        except StatewrightError as error:
            outcome = _outcome(error)
        observations.append(_observe(outcome, machine, script, mark))
    return observations


def run_async_machine(
    module: types.ModuleType, script: Script, events: Sequence[str]
) -> list[Observation]:
    """The asyncio flavour: ``await machine.start_chart()``, then each event."""

    async def run() -> list[Observation]:
        machine = module.RandomAsyncMachine(None, Handlers(script), options=machine_options(script))
        try:
            await machine.start_chart()
        except StatewrightError as error:
            return [_observe(_outcome(error), None, script, 0)]
        observations = [_observe("started", machine, script, 0)]
        for name in events:
            mark = len(script.trace)
            try:
                await machine.send(module.RandomEvent[name.upper()])
                outcome = "taken"
            except InvalidTransition:
                outcome = "rejected"
            except StatewrightError as error:
                outcome = _outcome(error)
            observations.append(_observe(outcome, machine, script, mark))
        return observations

    return asyncio.run(run())


class _ReferenceView:
    """The reference seen through the machine's read-only properties."""

    def __init__(self, reference: Reference) -> None:
        self.reference = reference

    @property
    def active_states(self) -> list[types.SimpleNamespace]:
        return [types.SimpleNamespace(value=name) for name in self.reference.leaves]

    @property
    def state(self) -> types.SimpleNamespace:
        states = self.reference.spec.states
        first = min(self.reference.leaves, key=lambda name: states[name].order)
        return types.SimpleNamespace(value=first)

    @property
    def is_final(self) -> bool:
        return self.reference.finished

    def allowed_events(self) -> list[types.SimpleNamespace]:
        return [types.SimpleNamespace(value=value) for value in self.reference.allowed_events()]


def run_reference(
    text: str, script: Script, events: Sequence[str], max_microsteps: int = MAX_MICROSTEPS
) -> list[Observation]:
    reference = Reference(text, script, max_microsteps)
    try:
        reference.start()
    except (Abandoned, NotSettled) as error:
        return [_observe(_outcome(error), None, script, 0)]
    view = _ReferenceView(reference)
    observations = [_observe("started", view, script, 0)]
    for name in events:
        mark = len(script.trace)
        try:
            outcome = "taken" if reference.send(name) else "rejected"
        except (Abandoned, NotSettled) as error:
            outcome = _outcome(error)
        observations.append(_observe(outcome, view, script, mark))
    return observations


def first_difference(
    machine: Sequence[Observation], reference: Sequence[Observation], events: Sequence[str]
) -> str:
    """Where two runs part, in a few lines: the step, what differs, the calls around it."""
    for index, (got, expected) in enumerate(zip(machine, reference, strict=False)):
        if got == expected:
            continue
        step = "the start" if index == 0 else f"event {index} ({events[index - 1]})"
        lines = [f"after {step}:"]
        for name in ("outcome", "leaves", "state", "finished", "allowed"):
            mine, theirs = getattr(got, name), getattr(expected, name)
            if mine != theirs:
                shown = [sorted(v) if isinstance(v, frozenset) else v for v in (mine, theirs)]
                lines.append(f"  {name}: machine {shown[0]!r}, reference {shown[1]!r}")
        calls = zip(got.calls, expected.calls, strict=False)
        at = next((i for i, (a, b) in enumerate(calls) if a != b), None)
        if at is None and len(got.calls) != len(expected.calls):
            at = min(len(got.calls), len(expected.calls))
        if at is not None:
            lines.append(f"  calls differ at {at} (of {len(got.calls)} / {len(expected.calls)}):")
            lines.append(f"    machine   {list(got.calls[max(0, at - 3) : at + 3])}")
            lines.append(f"    reference {list(expected.calls[max(0, at - 3) : at + 3])}")
        return "\n".join(lines)
    return f"the machine made {len(machine)} observations, the reference {len(reference)}"

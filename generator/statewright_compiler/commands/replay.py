"""``statewright replay``: each stored instance's recorded history, run again through the machine
classes about to be deployed, and the first event where the new spec decides differently: a
regression test of a spec edit over real traffic.

An instance replays from a fresh machine of its class (its context, initial data and handlers
from the same ``module:name`` factories as ``statewright mcp``, read from the same
``[tool.statewright.mcp]`` table): every recorded event in order, an external one sent through
the checked boundary (``send_external``) at its recorded time, one a timer fired by firing the
new machine's earliest pending timer. After each, the transition the new machine recorded
(source, event, target, and whether an error route took it) must be the recorded one. Timers
replay by order, not by absolute time: when the instance was created is not stored, so a timer
started before its first record is due relative to that record.

Only an instance whose history reaches back to its first event can replay (a history limit
prunes older records: such an instance is "not replayable", which does not fail the run).
Nothing is written: the store is only read. Exit 1 when an instance diverged, 0 when none did,
2 on a wrong option or store.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from statewright import MachineOptions, StatewrightError, StoreError, open_store

from statewright_compiler.config import ConfigError
from statewright_compiler.diagnostics import ExitCode
from statewright_compiler.mcp_server.hosting import MachineType, hosted_types
from statewright_compiler.mcp_server.settings import add_code_arguments, settings_from

__all__ = ["Outcome", "add_arguments", "command_replay", "replay_instance"]

SAME: Final = "same"
DIVERGED: Final = "diverged"
NOT_REPLAYABLE: Final = "not-replayable"


@dataclass(frozen=True)
class Outcome:
    """One instance's replay: ``status`` is :data:`SAME`, :data:`DIVERGED` or
    :data:`NOT_REPLAYABLE`; ``events`` how many records replayed the same before it ended. A
    divergence names its record (``event_id``, ``event``), what was ``recorded``
    (``"source -> target"``) and what the new spec ``replayed`` instead."""

    instance_id: str
    machine: str
    status: str
    events: int
    event_id: int | None = None
    event: str | None = None
    recorded: str | None = None
    replayed: str | None = None
    reason: str | None = None


class _Clock:
    """The replaying machine's clock: each record's time, never going back."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``statewright replay`` (each overrides its ``[tool.statewright.mcp]`` key)."""
    add_code_arguments(parser, "the new machine class to replay on (repeat for several)")
    parser.add_argument(
        "--instance", action="append", dest="instances", metavar="ID", help="only this instance"
    )
    parser.add_argument("--format", choices=["text", "json"], default="text", help="default: text")


def command_replay(arguments: argparse.Namespace) -> ExitCode:
    try:
        settings = settings_from(arguments, Path.cwd())
        kinds = {kind.name: kind for kind in hosted_types(settings)}
        with open_store(settings.store) as store:
            ids = arguments.instances or store.list_ids()
            outcomes = [
                _replay_stored(kinds, instance_id, store.load(instance_id)) for instance_id in ids
            ]
    except (ConfigError, StoreError) as error:
        print(f"statewright: error: {error}", file=sys.stderr)
        return ExitCode.USAGE
    if arguments.format == "json":
        print(json.dumps({"instances": [asdict(outcome) for outcome in outcomes]}, indent=2))
    else:
        for outcome in outcomes:
            print(_line(outcome))
        counts = {status: sum(o.status == status for o in outcomes) for status in _STATUSES}
        print(f"{len(outcomes)} instance(s): " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    return ExitCode.FAILURE if any(o.status == DIVERGED for o in outcomes) else ExitCode.OK


_STATUSES: Final = (SAME, DIVERGED, NOT_REPLAYABLE)


def _replay_stored(
    kinds: Mapping[str, MachineType], instance_id: str, snapshot: Mapping[str, Any] | None
) -> Outcome:
    if snapshot is None:
        return Outcome(instance_id, "?", NOT_REPLAYABLE, 0, reason="no such instance")
    name = str(snapshot.get("machine", "?"))
    kind = kinds.get(name)
    if kind is None:
        return Outcome(instance_id, name, NOT_REPLAYABLE, 0, reason=f"no {name} class was given")
    return replay_instance(kind, instance_id, snapshot)


def replay_instance(kind: MachineType, instance_id: str, snapshot: Mapping[str, Any]) -> Outcome:
    """Replay one stored instance's history on a fresh ``kind`` machine (see the module)."""
    records = snapshot.get("history")
    name = kind.name
    if not isinstance(records, list) or (records and records[0].get("event_id") != 1):
        first = records[0].get("event_id") if isinstance(records, list) else None
        reason = f"its history starts at event {first} (older records were pruned)"
        return Outcome(instance_id, name, NOT_REPLAYABLE, 0, reason=reason)
    if not records and snapshot.get("total_transitions"):
        reason = "it kept no history (history limit 0)"
        return Outcome(instance_id, name, NOT_REPLAYABLE, 0, reason=reason)
    clock = _Clock(float(records[0]["epoch"]) if records else 0.0)
    try:
        options = MachineOptions(clock=clock)
        machine = kind.cls(kind.new_context(), kind.handlers, options=options, data=kind.new_data())
    except StatewrightError as error:
        return Outcome(instance_id, name, NOT_REPLAYABLE, 0, reason=f"cannot start: {error}")
    for replayed, record in enumerate(records):
        recorded = _written(record["from"], record["to"], "error" in record)
        found = _step(machine, clock, record)
        if found != recorded:
            event_id, event = int(record["event_id"]), str(record["event"])
            return Outcome(instance_id, name, DIVERGED, replayed, event_id, event, recorded, found)
    return Outcome(instance_id, name, SAME, len(records))


def _step(machine: Any, clock: _Clock, record: Mapping[str, Any]) -> str:
    """What the new machine does with ``record``'s event: ``"source -> target"`` as records
    write it, or why it took none."""
    before = machine.total_transitions
    try:
        if "lateness" in record:  # a timer fired it: fire the new machine's earliest timer
            due = machine.next_due
            if due is None:
                return "no timer is pending"
            clock.now = max(clock.now, due)
            machine.fire_due(clock.now)
        else:
            clock.now = max(clock.now, float(record["epoch"]))
            machine.send_external(str(record["event"]), record.get("payload") or {})
    except StatewrightError as error:
        return f"refused: {type(error).__name__}: {error}"
    last = machine.last_transition
    if machine.total_transitions == before or last is None:
        return "no transition"
    if str(last.event) != str(record["event"]):
        return f"{last.source} -> {last.target} on {last.event}"
    return _written(last.source, last.target, last.error is not None)


def _written(source: object, target: object, error_route: bool) -> str:
    """A transition as replay compares and shows it."""
    return f"{source} -> {target}" + (" (error route)" if error_route else "")


def _line(outcome: Outcome) -> str:
    where = f"{outcome.instance_id} ({outcome.machine})"
    if outcome.status == SAME:
        return f"{where}: same, {outcome.events} event(s)"
    if outcome.status == NOT_REPLAYABLE:
        return f"{where}: not replayable: {outcome.reason}"
    return (
        f"{where}: diverged at event {outcome.event_id} ({outcome.event}), after "
        f"{outcome.events} the same: recorded {outcome.recorded}, new spec {outcome.replayed}"
    )

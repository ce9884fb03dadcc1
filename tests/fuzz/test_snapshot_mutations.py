"""Corrupted snapshots: the runtime restores exactly what it was given, or raises SnapshotError.

Each case walks one of the generated seed machines at random (handlers whose guards answer at
random and whose actions sometimes raise, so error routes and rejections happen too), takes its
snapshot and corrupts it, either as data (keys deleted, renamed or added; values replaced by other
types, NaN, huge or negative numbers, deep nesting; history shuffled, cut, reversed or
duplicated; states swapped) or as JSON text (truncated, characters flipped, keys duplicated).
Then ``restore`` must either raise :class:`SnapshotError` or give a machine whose ``snapshot()``
equals the corrupted input (the order of ``counts`` and the spec hash aside: a snapshot writes
counts in spec order and the machine's own hash). Any other exception fails the case.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import json
import random
from typing import Any

import pytest
from statewright import Machine, MachineOptions, SnapshotError, StatewrightError

from tests.fuzz import budget, seed
from tests.runtime.test_hardening import deep_list

MODULES = ["agent_task", "approval_workflow", "door", "notebook_bcc_v1", "notebook_bcc_v2",
           "pegasus_task", "remem"]  # fmt: skip
HOSTILE = [
    None, True, False, 0, -1, 1, 2**63, 2**63 - 1, -(2**70), 1.5, float("nan"), float("inf"),
    -float("inf"), 1e300, "", "x", "idle", "done", "NaN", "1", [], {}, [1, 2], {"a": 1},
    [["idle", "X", "done", 1]], "statewright.snapshot/1", "1970-01-01T00:00:00.000000+00:00",
]  # fmt: skip


class RandomHandlers:
    """Every handler method: guards pass 60% of the time, 5% of calls raise."""

    def __init__(self, chooser: random.Random) -> None:
        self.chooser = chooser

    def __getattr__(self, name: str) -> Any:
        def handler(context: Any, payload: Any, /) -> bool:
            roll = self.chooser.random()
            if roll < 0.05:
                raise RuntimeError(f"{name} failed")
            return roll < 0.65

        return handler


def machine_types() -> list[type[Machine[Any, Any, Any]]]:
    types = []
    for name in MODULES:
        module = importlib.import_module(name)
        types += [
            value
            for key, value in vars(module).items()
            if key.endswith("Machine")
            and isinstance(value, type)
            and issubclass(value, Machine)
            and "spec" in vars(value)
        ]
    return types


def walked(cls: type[Machine[Any, Any, Any]], chooser: random.Random) -> Machine[Any, Any, Any]:
    start = chooser.uniform(0, 2e9)
    ticks = iter(start + i * chooser.choice([0.001, 1.0, 3600.5]) for i in range(10_000))
    options = MachineOptions(
        history_limit=chooser.choice([None, 3, 1000]),
        record_history=chooser.random() < 0.9,
        instance_id=f"fuzz-{chooser.randrange(1000)}",
        clock=lambda: next(ticks),
    )
    context = {"n": chooser.randrange(100), "tags": ["a", "b"], "nested": {"x": [1.5, None]}}
    machine = cls(context, RandomHandlers(chooser), options=options)
    for _ in range(chooser.randrange(30)):
        events: list[Any] = sorted(machine.allowed_events()) or list(
            machine.spec.event_type.__members__.values()
        )
        payload = {"value": chooser.choice([1, "s", [1, {"a": None}], 2.5, True])}
        with contextlib.suppress(StatewrightError):  # rejections, failed actions
            machine.dynamic.send(chooser.choice(events), **payload)
    return machine


def containers(value: Any, found: list[Any], depth: int = 0) -> None:
    """The dicts and lists in ``value`` (not below a depth of 20: deep lists are mutations)."""
    if isinstance(value, dict | list) and depth < 20:
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found, depth + 1)


def mutate_data(data: dict[str, Any], chooser: random.Random, states: list[str]) -> None:
    for _ in range(chooser.randint(1, 3)):
        kind = chooser.randrange(8)
        history = data.get("history")
        if kind == 0 and isinstance(history, list) and history:
            action = chooser.randrange(5)
            if action == 0:
                chooser.shuffle(history)
            elif action == 1:
                del history[: chooser.randrange(len(history) + 1)]
            elif action == 2:
                del history[chooser.randrange(len(history)) :]
            elif action == 3:
                history.reverse()
            else:
                history.append(copy.deepcopy(chooser.choice(history)))
            continue
        if kind == 1:
            key = chooser.choice(["state", "previous"])
            data[key] = chooser.choice(states)
            continue
        if kind == 2:
            found: list[Any] = []
            containers(data, found)
            target = chooser.choice(found)
            target_key = chooser.choice(list(target) or [0]) if isinstance(target, dict) else 0
            if isinstance(target, dict) and target:
                target[target_key] = deep_list(chooser.choice([50, 98, 99, 101, 200]))
            continue
        found = []
        containers(data, found)
        target = chooser.choice(found)
        if isinstance(target, list):
            if target and chooser.random() < 0.5:
                index = chooser.randrange(len(target))
                if chooser.random() < 0.5:
                    del target[index]
                else:
                    target[index] = copy.deepcopy(chooser.choice(HOSTILE))
            else:
                target.append(copy.deepcopy(chooser.choice(HOSTILE)))
            continue
        keys = list(target)
        action = chooser.randrange(4)
        if action == 0 and keys:
            del target[chooser.choice(keys)]
        elif action == 1 and keys:
            target[chooser.choice(["x", "epoch", "state", "error", ""])] = target.pop(
                chooser.choice(keys)
            )
        elif action == 2 and keys:
            target[chooser.choice(keys)] = copy.deepcopy(chooser.choice(HOSTILE))
        else:
            target[chooser.choice(["x", "error", "revision", "previous"])] = copy.deepcopy(
                chooser.choice(HOSTILE)
            )


def mutate_text(text: str, chooser: random.Random) -> str:
    for _ in range(chooser.randint(1, 3)):
        kind = chooser.randrange(4)
        if kind == 0:
            text = text[: chooser.randrange(len(text) + 1)]
        elif kind == 1 and text:
            position = chooser.randrange(len(text))
            character = chooser.choice(['"', "{", "]", ",", "0", "9", "e", "-", ".", "\\", "é"])
            text = text[:position] + character + text[position + 1 :]
        elif kind == 2:
            key = chooser.choice(["state", "revision", "previous", "counts", "history", "context"])
            text = text.replace("{", f'{{"{key}": {json.dumps(chooser.choice(HOSTILE))}, ', 1)
        else:
            text = text.replace(
                '"revision": ', '"revision": ' + chooser.choice(["1e400", "-", "NaN"])
            )
    return text


def normalized(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Without what a snapshot writes anew: the spec hash, the order of counts and (a chart's)
    the time it was taken."""
    out = dict(snapshot)
    out["spec_hash"] = None
    if isinstance(out.get("counts"), list):
        out["counts"] = sorted(out["counts"], key=json.dumps)
    if isinstance(out.get("chart"), dict):
        out["chart"] = {**out["chart"], "saved_at": None}
    return out


def test_corrupted_snapshots_restore_exactly_or_raise_snapshot_error() -> None:
    chooser = random.Random(seed())
    types = machine_types()
    restored = 0
    for case in range(budget()):
        cls = chooser.choice(types)
        machine = walked(cls, chooser)
        states = [str(state) for state in machine.spec.state_type]
        original = json.loads(json.dumps(machine.snapshot(), allow_nan=False))
        given: Any
        if case % 3:
            data = copy.deepcopy(original)
            mutate_data(data, chooser, states)
            given = data
            expected: Any = data
        else:
            given = mutate_text(json.dumps(original), chooser)
            try:
                expected = json.loads(given, parse_constant=lambda name: float(name))
            except (ValueError, RecursionError):
                expected = None
        where = f"seed {seed()}, case {case}, {cls.__name__}"
        try:
            result = cls.restore(
                given, RandomHandlers(chooser), options=MachineOptions(history_limit=None)
            )
        except SnapshotError:
            continue
        except Exception as error:  # pragma: no cover - what the fuzzer is looking for
            raise AssertionError(f"{where}: {type(error).__name__}: {error}") from error
        restored += 1
        assert isinstance(expected, dict), f"{where}: restored something that is no object"
        assert normalized(result.snapshot()) == normalized(expected), where
    assert restored, "no corrupted snapshot restored: the mutations never leave one valid"


@pytest.mark.parametrize("module", MODULES)
def test_uncorrupted_snapshots_restore_exactly(module: str) -> None:
    chooser = random.Random(seed())
    for cls in machine_types():
        if cls.__module__ != module:
            continue
        for _ in range(10):
            machine = walked(cls, chooser)
            text = json.dumps(machine.snapshot(), allow_nan=False)
            result = cls.restore(
                text, RandomHandlers(chooser), options=MachineOptions(history_limit=None)
            )
            assert normalized(result.snapshot()) == normalized(machine.snapshot())

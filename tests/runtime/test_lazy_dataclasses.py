"""MachineOptions and TransitionRecord are dataclasses, made ones on first use.

Whatever touches the class first (a call, dataclasses' functions, inspect, typing, a subclass,
unpickling), it sees the finished dataclass, identical to what a later caller sees, and the
class keeps no trace of the deferral. Each first use runs in a fresh interpreter: in this one
the classes were made dataclasses long ago.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
import pickle
import subprocess
import sys
import time
import typing
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from statewright import ContextCodec, MachineOptions, Migration, Store, TransitionRecord
from statewright._lazy import ModuleOnFirstUse, dataclass, field

from tests.conftest import REPO


def run_fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter with the runtime on its path; return its stdout."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "runtime"), str(REPO / "generated")])
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


#: In the child: the class is untouched before the first use, and afterwards an ordinary
#: dataclass with nothing of the deferral left (the metaclass hooks and __setstate__ are gone).
CHECK_FIRST_USE = """
import sys
import statewright
cls = getattr(statewright, {name!r})
assert "dataclasses" not in sys.modules and "__dataclass_fields__" not in vars(cls)
{first_use}
import dataclasses, inspect, typing
assert "__dataclass_fields__" in vars(cls) and dataclasses.is_dataclass(cls)
assert type(cls).__call__ is type.__call__ and type(cls).__getattribute__ is type.__getattribute__
assert not {{"__call__", "__getattr__"}} & set(vars(type(cls))), vars(type(cls))
assert "__setstate__" not in vars(cls)
print(repr(str(inspect.signature(cls))))
print(repr([(f.name, f.type, f.default is dataclasses.MISSING) for f in dataclasses.fields(cls)]))
print(repr(sorted(typing.get_type_hints(cls))))
"""

FIRST_USES = {
    "call": "cls() if cls is statewright.MachineOptions else cls(1, 2, 3, 0.0, 1, {})",
    "fields": "import dataclasses; dataclasses.fields(cls)",
    "is_dataclass": "import dataclasses; assert dataclasses.is_dataclass(cls)",
    "signature": "import inspect; inspect.signature(cls)",
    "get_type_hints": "import typing; typing.get_type_hints(cls)",
    "match_args": "assert cls.__match_args__[0] in ('history_limit', 'source')",
    "missing_attribute": "assert not hasattr(cls, 'no_such_attribute')",
    "dataclass_subclass": (
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Sub(cls):\n"
        "    extra: int = 0\n"
        "assert [f.name for f in dataclasses.fields(Sub)][-1] == 'extra'"
    ),
    "plain_subclass": (
        "class Sub(cls):\n"
        "    pass\n"
        "sub = Sub() if cls is statewright.MachineOptions else Sub(1, 2, 3, 0.0, 1, {})\n"
        "assert isinstance(sub, cls) and repr(sub).startswith('Sub(')"
    ),
}


def expected_introspection(cls: type) -> list[str]:
    return [
        repr(str(inspect.signature(cls))),
        repr([(f.name, f.type, f.default is dataclasses.MISSING) for f in dataclasses.fields(cls)]),
        repr(sorted(typing.get_type_hints(cls))),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["MachineOptions", "TransitionRecord"])
@pytest.mark.parametrize("first_use", sorted(FIRST_USES))
def test_every_first_use_finishes_the_dataclass(name: str, first_use: str) -> None:
    code = CHECK_FIRST_USE.format(name=name, first_use=FIRST_USES[first_use])
    cls = getattr(sys.modules["statewright"], name)
    assert run_fresh(code).splitlines() == expected_introspection(cls)


@pytest.mark.slow
def test_unpickling_first_finishes_the_dataclass() -> None:
    record = TransitionRecord("a", "B", "c", 1.5, 2, {"k": 1})
    values = [MachineOptions(history_limit=9), record]
    code = (
        "import pickle, sys\n"
        f"values = pickle.loads({pickle.dumps(values)!r})\n"
        "import dataclasses\n"
        "print(values)\n"
        "print(dataclasses.asdict(values[1]), values[0] == type(values[0])(history_limit=9))\n"
    )
    assert run_fresh(code).splitlines() == [
        repr(values),
        f"{dataclasses.asdict(record)} True",
    ]


@pytest.mark.slow
def test_threads_racing_to_the_first_use_all_see_the_dataclass() -> None:
    code = """
import dataclasses, sys, threading
from statewright import MachineOptions
sys.setswitchinterval(1e-6)
barrier = threading.Barrier(16)
results, errors = [], []
def build(index):
    barrier.wait()
    try:
        if index % 2:
            results.append(len(dataclasses.fields(MachineOptions)))
        else:
            results.append(MachineOptions(history_limit=index).history_limit)
    except BaseException as error:
        errors.append(repr(error))
threads = [threading.Thread(target=build, args=(i,)) for i in range(16)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(errors, sorted(results))
"""
    fields = len(dataclasses.fields(MachineOptions))
    expected = sorted([fields] * 8 + list(range(0, 16, 2)))
    assert run_fresh(code).strip() == f"[] {expected}"


# ----------------------------------------------------------------- in this interpreter


def test_options_are_a_frozen_dataclass() -> None:
    options = MachineOptions(history_limit=5)
    assert dataclasses.is_dataclass(options)
    assert [f.name for f in dataclasses.fields(MachineOptions)] == [
        "history_limit",
        "record_history",
        "store",
        "instance_id",
        "clock",
        "logger",
        "thread_safe",
        "log_transitions",
        "codec",
        "context_type",
        "migrations",
    ]
    assert dataclasses.replace(options, record_history=False).record_history is False
    assert dataclasses.asdict(options)["history_limit"] == 5
    assert options == MachineOptions(history_limit=5) != MachineOptions()
    assert MachineOptions().migrations == {}
    assert MachineOptions().migrations is not MachineOptions().migrations
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.history_limit = 1  # type: ignore[misc]  # frozen
    with pytest.raises(ValueError, match="history_limit must be >= 0"):
        MachineOptions(history_limit=-1)
    assert pickle.loads(pickle.dumps(options)) == options
    logger = logging.getLogger("x")
    assert MachineOptions(logger=logger, migrations={1: dict}).logger is logger


def test_options_type_hints_resolve_the_real_types() -> None:
    hints = typing.get_type_hints(MachineOptions)
    assert hints == {
        "history_limit": int | None,
        "record_history": bool,
        "store": Store | None,
        "instance_id": str | None,
        "clock": Callable[[], float],
        "logger": logging.Logger | None,
        "thread_safe": bool,
        "log_transitions": bool,
        "codec": ContextCodec | None,
        "context_type": type[Any] | None,
        "migrations": Mapping[int, Migration],
    }
    assert inspect.signature(MachineOptions).parameters["clock"].default is time.time


def test_transition_records_are_a_frozen_dataclass() -> None:
    record = TransitionRecord("a", "B", "c", 0.0, 1, {"k": 1})
    assert dataclasses.fields(record)[-1].name == "error"
    assert dataclasses.replace(record, error="x").error == "x"
    assert dataclasses.asdict(record)["payload"] == {"k": 1}
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.event = "C"  # type: ignore[misc]  # frozen
    assert typing.get_type_hints(TransitionRecord)["payload"] == Mapping[str, Any]


def test_what_first_use_cannot_offer_is_refused() -> None:
    with pytest.raises(ValueError, match="slots"):
        dataclass(frozen=True, slots=True)

    class UsesSuper:
        def method(self) -> str:
            return super().__repr__()

    with pytest.raises(TypeError, match="super"):
        dataclass(frozen=True)(UsesSuper)

    class SetsState:
        def __setstate__(self, state: object) -> None: ...

    with pytest.raises(TypeError, match="__setstate__"):
        dataclass()(SetsState)


def test_a_class_made_on_first_use_is_the_same_object_afterwards() -> None:
    class Point:
        x: int
        y: list[int] = field(default_factory=list)

    deferred = dataclass(frozen=True)(Point)
    assert "__init__" not in vars(deferred) and "__dataclass_fields__" not in vars(deferred)
    point = deferred(1)  # type: ignore[call-arg]  # mypy sees the undecorated class
    assert type(point) is deferred and "__init__" in vars(deferred)
    assert deferred.__qualname__ == Point.__qualname__ and not hasattr(deferred, "y")
    assert repr(point).endswith(".Point(x=1, y=[])")
    assert point == deferred(1, [])  # type: ignore[call-arg]


def test_a_module_on_first_use_imports_it_when_read() -> None:
    stand_in = ModuleOnFirstUse("logging")
    assert stand_in.Logger is logging.Logger
    assert "imported on first use" in repr(stand_in)

"""The values generated modules build at import behave like the frozen dataclasses they were.

``MachineSpec``, ``Alternative`` and ``ErrorRoute`` (and the compiled ``CompiledAlt`` and
``Table``) are slotted classes with hand-written constructors, so that importing a generated
module needs no dataclasses: same parameters and defaults, immutable, value equality and hashing,
a repr naming every field, pattern matching, copying and pickling.
"""

from __future__ import annotations

import copy
import inspect
import pickle
import typing
from typing import Any

import pegasus_task
import pytest
import remem
import statewright
from remem import ReMemEvent, ReMemState
from statewright import (
    PREVIOUS,
    Alternative,
    Assign,
    Cancel,
    ChartNode,
    ChartTransition,
    DataModel,
    ErrorRoute,
    Foreach,
    If,
    Log,
    MachineSpec,
    Send,
)
from statewright._frozen import FrozenValue
from statewright._table import CompiledAlt, Table

from tests.runtime.machines import TaskState, plain_spec

St = TaskState


def _guard(handlers: Any, context: Any, payload: Any) -> bool:
    return True


def parameters(cls: type) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]


def test_constructors_keep_the_dataclass_parameters_and_defaults() -> None:
    empty = inspect.Parameter.empty
    assert parameters(Alternative) == [
        ("target", empty),
        ("guard", None),
        ("actions", ()),
        ("checkpoint", False),
    ]
    assert parameters(ErrorRoute) == [("target", empty), ("actions", ())]
    assert parameters(MachineSpec) == [
        *((name, empty) for name in MachineSpec.__match_args__[:-7]),
        ("handler_names", frozenset()),
        ("payloads", None),
        ("event_descriptions", None),
        ("chart", None),
        ("internal_events", frozenset()),
        ("data", None),
        ("source_sha256", None),
    ]
    assert MachineSpec.__match_args__ == (
        "name",
        "version",
        "spec_hash",
        "state_type",
        "event_type",
        "initial",
        "final_states",
        "transitions",
        "entry_actions",
        "exit_actions",
        "error_routes",
        "tags",
        "handler_names",
        "payloads",
        "event_descriptions",
        "chart",
        "internal_events",
        "data",
        "source_sha256",
    )


def _expr(data: Any, event: Any, system: Any, active: Any) -> int:
    return 1


class _Data:
    __slots__ = ("count",)


#: The data model's contract (statewright._data_spec, and the chart values' data-model fields),
#: as a generated module builds it.
DATA_VALUES: list[FrozenValue] = [
    DataModel(_Data, (("count", ("int",), True),), binding="late"),
    Assign("items[0]", _expr, container=_expr, key=_expr),
    If(((_expr, (Assign("count", _expr, field="count"),)),), ("handler",)),
    Foreach(_expr, "item", "index", (Log("label", "", expr=_expr),)),
    Send(None, "", delay_expr=_expr, event_expr=_expr, id_location="sendid", data=_expr),
    Cancel("", id_expr=_expr),
    ChartNode("done", "final", data_steps=(Assign("count", _expr, field="count"),), donedata=_expr),
    ChartTransition(0, cond=_expr, steps=(Send(St.PLANNING, "", target="#_internal"),)),
]

VALUES: list[FrozenValue] = [
    Alternative(St.PLANNING, guard=_guard, actions=("a",), checkpoint=True),
    Alternative(PREVIOUS),
    ErrorRoute(St.FAILED, ("record_failure",)),
    plain_spec(),
    CompiledAlt(St.PLANNING, None, (), False),
    remem.ReMemMachine._table(),
    *DATA_VALUES,
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_values_are_immutable_and_slotted(value: FrozenValue) -> None:
    name = value.__match_args__[0]
    before = getattr(value, name)
    with pytest.raises(AttributeError, match=f"cannot assign to field '{name}'"):
        setattr(value, name, None)
    with pytest.raises(AttributeError, match=f"cannot delete field '{name}'"):
        delattr(value, name)
    with pytest.raises(AttributeError):
        value.no_such_field = 1  # type: ignore[attr-defined]  # no such field
    assert getattr(value, name) is before
    assert not hasattr(value, "__dict__")


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_values_repr_every_field_and_copy(value: FrozenValue) -> None:
    shown = ", ".join(f"{name}={getattr(value, name)!r}" for name in value.__match_args__)
    assert repr(value) == f"{type(value).__qualname__}({shown})"
    assert copy.copy(value) == value
    assert copy.deepcopy(value) == value


def test_equality_and_hashing_are_by_value() -> None:
    alt = Alternative(St.PLANNING, actions=("a",))
    assert alt == Alternative(target=St.PLANNING, guard=None, actions=("a",), checkpoint=False)
    assert hash(alt) == hash(Alternative(St.PLANNING, None, ("a",)))
    assert alt != Alternative(St.PLANNING) and alt != CompiledAlt(St.PLANNING, None, ("a",), False)
    assert len({alt, Alternative(St.PLANNING, actions=("a",)), ErrorRoute(St.PLANNING)}) == 2
    assert ErrorRoute(St.FAILED) == ErrorRoute(St.FAILED, ()) != ErrorRoute(St.DONE)
    assert plain_spec() == plain_spec() != plain_spec(version=2)
    with pytest.raises(TypeError, match="unhashable"):  # as the dataclass: it holds dicts
        hash(plain_spec())
    assert (Alternative(PREVIOUS) == "x") is False


def test_pickling_round_trips_the_generated_spec() -> None:
    import door

    spec = door.SPEC
    loaded = pickle.loads(pickle.dumps(spec))
    assert loaded == spec and loaded is not spec
    unlock = loaded.transitions[door.DoorState.LOCKED][door.DoorEvent.UNLOCK]
    assert unlock[0].guard is door._guard_0
    assert pickle.loads(pickle.dumps(Alternative(PREVIOUS))).target is PREVIOUS


def test_pickling_round_trips_a_chart_spec() -> None:
    # remem's conditions are data-model expressions (cond), pegasus_task's handler guards.
    for module, kind in ((remem, "cond"), (pegasus_task, "guard")):
        spec = module.SPEC
        loaded = pickle.loads(pickle.dumps(spec))
        assert loaded == spec and loaded is not spec and loaded.chart == spec.chart
        tests = [getattr(t, kind) for t in loaded.chart.transitions]
        tests = [test for test in tests if test is not None]
        assert tests and all(test is getattr(module, test.__name__) for test in tests)


def test_pickling_round_trips_a_data_model_spec() -> None:
    from tests.runtime.test_data_task import data_task

    spec = data_task.SPEC
    loaded = pickle.loads(pickle.dumps(spec))
    assert loaded == spec and loaded.data == spec.data and loaded.chart == spec.chart
    assert loaded.data.factory is data_task.DataTaskData
    conditions = [t.cond for t in loaded.chart.transitions if t.cond is not None]
    assert conditions and all(cond is getattr(data_task, cond.__name__) for cond in conditions)


@pytest.mark.parametrize("value", DATA_VALUES, ids=lambda v: type(v).__name__)
def test_data_values_pickle_and_take_their_fields_in_match_order(value: FrozenValue) -> None:
    # generated modules pass the leading fields by position: the constructor's order is the
    # order pattern matching and repr use
    assert pickle.loads(pickle.dumps(value)) == value
    fields = [getattr(value, name) for name in value.__match_args__]
    assert type(value)(*fields) == value
    assert [p.name for p in inspect.signature(type(value)).parameters.values()] == list(
        value.__match_args__
    )


def test_pattern_matching_uses_the_fields_in_order() -> None:
    match Alternative(St.PLANNING, None, ("a",)):
        case Alternative(target, None, actions):
            assert (target, actions) == (St.PLANNING, ("a",))
        case _:  # pragma: no cover
            pytest.fail("no match")


def test_type_hints_resolve_for_the_values_and_the_generated_machine() -> None:
    assert typing.get_type_hints(Alternative)["actions"] == tuple[str, ...]
    assert typing.get_type_hints(Table)["spec"] == MachineSpec[Any, Any]
    hints = typing.get_type_hints(remem.ReMemMachine)
    assert hints["spec"] == typing.ClassVar[MachineSpec[ReMemState, ReMemEvent]]
    # The generated module and the runtime import MachineOptions, TransitionRecord and Listener
    # for type checkers only (importing them costs dataclasses), so, as for any such import, the
    # names are handed in to resolve the methods' hints at run time.
    names = {name: getattr(statewright, name) for name in statewright.__all__}
    for name in ("__init__", "send", "add_listener", "snapshot", "restore"):
        typing.get_type_hints(getattr(remem.ReMemMachine, name), localns=names)
    for name in ("history", "last_transition", "options"):
        typing.get_type_hints(getattr(remem.ReMemMachine, name).fget, localns=names)
    init = typing.get_type_hints(remem.ReMemMachine.__init__, localns=names)
    assert init["options"] == statewright.MachineOptions | None

"""The data model's steps as the chart engine runs them: the data object and its initializers
(early and late binding), assign, if, foreach, log, cancel, transition conditions and done data;
what an error does (``error.execution`` or a failed event, the block stopped), the bounds on
stored values, and atomicity: a discarded macrostep leaves the data as it was."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from statewright import (
    ERROR_ROUTE,
    ActionFailed,
    Assign,
    Cancel,
    ChartNode,
    ChartTransition,
    Foreach,
    GuardFailed,
    If,
    InvalidTransition,
    Log,
    Machine,
    MemoryStore,
    Send,
    StoreError,
)
from statewright._data_values import MAX_ITEMS, MAX_NESTING, MAX_SIZE

from tests.runtime.data_charts import Data, E, S, build, field, options, value

N, T = ChartNode, ChartTransition


def append(text: Any) -> Assign:
    """``seen = seen + [text]`` (``text`` a constant, or a function of the data and event)."""
    compute = text if callable(text) else (lambda data, event: text)
    return Assign(
        "seen", lambda data, event, system, active: [*data.seen, compute(data, event)], "seen"
    )


def count(number: Any) -> Assign:
    return Assign("count", value(number), "count")


def two_states(*transitions: ChartTransition, **more: Any) -> Any:
    """idle and busy, the given transitions, and busy --error.execution--> end."""
    nodes = (
        N("idle", "atomic", member=S.IDLE),
        N("busy", "atomic", member=S.BUSY),
        N("end", "atomic", member=S.END),
    )
    error = T(1, frozenset({E.ERROR}), targets=(2,))
    return build(nodes, (*transitions, error), **more)


# -- the data object and its initializers ---------------------------------------------------------
def test_the_data_comes_from_the_factory_and_the_machine_s_initializers_run_first() -> None:
    entry = append(lambda data, event: data.count)
    label = Assign("label", lambda data, *_: f"initial {data.count}", "label")
    machine_class = build(
        (N("idle", "atomic", member=S.IDLE, entry=(entry,)),),
        (),
        data_steps=(count(5),),
        initial_steps=(label,),
    )
    machine = machine_class(None, options=options())
    assert isinstance(machine.data, Data)
    assert (machine.data.count, machine.data.label, machine.data.seen) == (5, "initial 5", [5])
    other = machine_class(None, options=options())
    assert other.data is not machine.data and other.data.seen is not machine.data.seen


def test_a_machine_without_a_data_model_has_no_data() -> None:
    machine_class = build((N("idle", "atomic", member=S.IDLE),), (), with_data=False)
    assert machine_class(None, options=options()).data is None


def test_every_machine_has_data_none_without_a_data_model_flat_ones_too() -> None:
    from tests.runtime.machines import plain_spec

    flat = type("FlatMachine", (Machine,), {"spec": plain_spec()})
    assert flat(None).data is None


def test_reading_a_field_that_is_not_set_is_error_execution() -> None:
    # a computed or late-bound field before its initializer ran: the slot is empty
    def unset(data: Any, *_: Any) -> Any:
        del data.label
        return 0

    read = Assign("count", lambda data, *_: len(data.label), "count")
    go = T(0, frozenset({E.GO}), targets=(1,), steps=(Assign("count", unset, "count"), read))
    machine = two_states(go)(None, options=options())
    machine.send(E.GO)
    assert machine.state is S.END and machine.data.count == 0


def _bound_states(binding: str) -> Any:
    nodes = (
        N("idle", "atomic", member=S.IDLE, data_steps=(append("idle"),)),
        N(
            "busy",
            "atomic",
            member=S.BUSY,
            data_steps=(append("busy"),),
            entry=(Assign("label", lambda data, *_: ",".join(data.seen), "label"),),
        ),
        N("one", "atomic", member=S.ONE, data_steps=(append("one"),)),
    )
    go = T(0, frozenset({E.GO}), targets=(1,))
    back = T(1, frozenset({E.BACK}), targets=(0,))
    return build(nodes, (go, back), binding=binding, data_steps=(append("machine"),))


def test_early_binding_initializes_every_state_s_data_at_start_in_document_order() -> None:
    machine = _bound_states("early")(None, options=options())
    assert machine.data.seen == ["machine", "idle", "busy", "one"]
    machine.send(E.GO)
    machine.send(E.BACK)
    machine.send(E.GO)
    assert machine.data.seen == ["machine", "idle", "busy", "one"]
    assert "initialized" not in machine.snapshot()["chart"]


def test_late_binding_initializes_a_state_s_data_when_first_entered_before_its_entry() -> None:
    machine = _bound_states("late")(None, options=options())
    assert machine.data.seen == ["machine", "idle"]  # the initial state is entered at start
    assert machine.snapshot()["chart"]["initialized"] == ["idle"]
    machine.send(E.GO)
    assert machine.data.seen == ["machine", "idle", "busy"]
    assert machine.data.label == "machine,idle,busy"  # busy's entry saw its own data
    machine.send(E.BACK)
    machine.send(E.GO)  # once per machine life
    assert machine.data.seen == ["machine", "idle", "busy"]
    assert machine.snapshot()["chart"]["initialized"] == ["idle", "busy"]


def test_a_failing_initializer_raises_error_execution_and_the_others_still_run() -> None:
    broken = Assign("count", lambda *_: 1 // 0, "count")
    nodes = (N("idle", "atomic", member=S.IDLE), N("end", "atomic", member=S.END))
    machine = build(
        nodes,
        (T(0, frozenset({E.ERROR}), targets=(1,)),),
        data_steps=(broken, Assign("label", value("after"), "label")),
    )(None, options=options())
    assert machine.state is S.END and machine.data.label == "after"


# -- assign ----------------------------------------------------------------------------------------
def test_assign_stores_in_a_field_or_an_item_of_one() -> None:
    steps = (
        count(7),
        Assign("items[1]", value(20), container=field("items"), key=value(1)),
        Assign("items[-1]", value(30), container=field("items"), key=value(-1)),
        Assign("table['b']", value(2), container=field("table"), key=value("b")),
    )
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=steps))(
        None, options=options()
    )
    machine.send(E.GO)
    assert (machine.state, machine.data.count) == (S.BUSY, 7)
    assert (machine.data.items, machine.data.table) == ([1, 20, 30], {"a": 1, "b": 2})


def test_assigned_lists_are_copies_two_fields_never_share_one() -> None:
    shared = Assign("seen", field("items"), "seen")
    change = Assign("items[0]", value(9), container=field("items"), key=value(0))
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=(shared, change)))(
        None, options=options()
    )
    machine.send(E.GO)
    assert (machine.data.seen, machine.data.items) == ([1, 2, 3], [9, 2, 3])


INVALID_LOCATIONS = {
    "index out of range": Assign("items[7]", value(0), container=field("items"), key=value(7)),
    "a string index": Assign("items['x']", value(0), container=field("items"), key=value("x")),
    "a bool index": Assign("items[True]", value(0), container=field("items"), key=value(True)),
    "a number key": Assign("table[1]", value(0), container=field("table"), key=value(1)),
    "no container": Assign("count[0]", value(0), container=field("count"), key=value(0)),
    "a missing key on the way": Assign(
        "table['x'][0]", value(0), container=lambda data, *_: data.table["x"], key=value(0)
    ),
    "a failing value": Assign("count", lambda *_: 1 // 0, "count"),
}


@pytest.mark.parametrize("step", INVALID_LOCATIONS.values(), ids=INVALID_LOCATIONS)
def test_a_failing_assignment_stops_its_block_and_raises_error_execution(step: Assign) -> None:
    steps = (count(1), step, count(2))
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=steps))(
        None, options=options()
    )
    machine.send(E.GO)
    assert (machine.state, machine.data.count) == (S.END, 1)  # stopped; error.execution taken
    assert machine.data.items == [1, 2, 3] and machine.data.table == {"a": 1}


@pytest.mark.parametrize("step", INVALID_LOCATIONS.values(), ids=INVALID_LOCATIONS)
def test_with_on_error_raise_a_failing_assignment_fails_the_event_and_nothing_is_applied(
    step: Assign,
) -> None:
    steps = (count(1), Assign("items[0]", value(5), container=field("items"), key=value(0)), step)
    transition = T(0, frozenset({E.GO, E.PING}), targets=(1,), steps=steps)
    machine = two_states(transition, on_error="raise")(None, options=options())
    with pytest.raises(ActionFailed) as failed:
        machine.send(E.GO)
    assert failed.value.action == f"assign {step.location}"
    assert (machine.state, machine.data.count, machine.data.items) == (S.IDLE, 0, [1, 2, 3])
    assert machine.total_transitions == 0


def test_before_the_first_event_there_is_no_event_to_read() -> None:
    read = Assign("label", lambda data, event, *_: event.name, "label")
    machine = two_states(data_steps=(read,), initial_steps=(count(1),))(None, options=options())
    assert (machine.data.count, machine.data.label) == (1, "")


def test_before_the_first_event_the_event_is_unbound_false_with_empty_data() -> None:
    # W3C test319: `if _event` is false before the first event; the compiler types every
    # slot's `_event.data` as a mapping, so an unbound event's is an empty one
    seen = Assign("event", lambda data, event, *_: [bool(event), dict(event.data)], "event")
    machine = two_states(data_steps=(seen,))(None, options=options())
    assert machine.data.event == [False, {}]


# -- bounds ----------------------------------------------------------------------------------------
def _nested(depth: int) -> Any:
    nested: Any = 0
    for _ in range(depth):
        nested = [nested]
    return nested


OUT_OF_BOUNDS = {
    "a long integer": 2**20_000,
    "a long string": "x" * (MAX_SIZE + 1),
    "a long list": list(range(MAX_ITEMS + 1)),
    "many characters": ["x" * 1000] * (MAX_SIZE // 1000 + 1),
    "deep nesting": _nested(MAX_NESTING + 1),
    "infinity": float("inf"),
    "not a number": float("nan"),
    "a tuple": (1, 2),
    "a set": {1, 2},
    "an object": object(),
    "a number key": {1: 2},
}


@pytest.mark.parametrize("stored", OUT_OF_BOUNDS.values(), ids=OUT_OF_BOUNDS)
def test_a_value_out_of_bounds_is_not_stored(stored: Any) -> None:
    steps = (Assign("event", value(stored), "event"), count(1))
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=steps))(
        None, options=options()
    )
    machine.send(E.GO)
    assert (machine.state, machine.data.event, machine.data.count) == (S.END, None, 0)


def test_values_within_bounds_are_stored() -> None:
    within = [_nested(MAX_NESTING - 1), 2**12_999, "x" * 1000, {"k": [1.5, None, True]}]
    steps = tuple(Assign("seen", value(within), "seen") for _ in range(2))
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=steps))(
        None, options=options()
    )
    machine.send(E.GO)
    assert machine.state is S.BUSY and machine.data.seen == within


def test_a_loop_cannot_grow_the_data_without_bound() -> None:
    double = Assign("label", lambda data, *_: data.label * 2 or "x", "label")
    machine = two_states(T(0, frozenset({E.PING}), steps=(double,)))(None, options=options())
    for _ in range(25):
        machine.send(E.PING)
    assert len(machine.data.label) == 2**19  # the 21st doubling went over; error.execution
    assert machine.state is S.IDLE


def test_an_item_assignment_cannot_grow_a_dict_past_its_bound() -> None:
    full = {f"k{i}": i for i in range(MAX_ITEMS)}
    steps = (
        Assign("table", value(full), "table"),
        Assign("table['k0']", value(-1), container=field("table"), key=value("k0")),
        Assign("table['new']", value(0), container=field("table"), key=value("new")),
    )
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=steps))(
        None, options=options()
    )
    machine.send(E.GO)
    assert machine.state is S.END and len(machine.data.table) == MAX_ITEMS
    assert machine.data.table["k0"] == -1 and "new" not in machine.data.table


# -- if, foreach, log, cancel ----------------------------------------------------------------------
def test_if_runs_the_first_branch_whose_condition_holds_else_otherwise() -> None:
    choice = If(
        (
            (lambda data, *_: data.count > 10, (Assign("label", value("big"), "label"),)),
            (lambda data, *_: data.count > 1, (Assign("label", value("some"), "label"),)),
        ),
        (Assign("label", value("none"), "label"),),
    )
    machine_class = two_states(T(0, frozenset({E.GO}), steps=(choice,)))
    for number, label in ((0, "none"), (5, "some"), (50, "big")):
        machine = machine_class(None, options=options())
        machine.data.count = number
        machine.send(E.GO)
        assert machine.data.label == label


def test_an_if_condition_that_raises_is_false_and_raises_error_execution() -> None:
    choice = If(
        (
            (lambda *_: 1 // 0, (append("first"),)),
            (value(True), (append("second"),)),
        )
    )
    nodes = (N("idle", "atomic", member=S.IDLE),)
    on_error = T(0, frozenset({E.ERROR}), steps=(append("error"),))
    machine = build(nodes, (T(0, frozenset({E.GO}), steps=(choice,)), on_error))(
        None, options=options()
    )
    machine.send(E.GO)
    assert machine.data.seen == ["second", "error"]
    raising = build(nodes, (T(0, frozenset({E.GO}), steps=(choice,)),), on_error="raise")
    strict = raising(None, options=options())
    with pytest.raises(ActionFailed, match="action 'if' raised ZeroDivisionError"):
        strict.send(E.GO)
    assert strict.data.seen == []


def test_foreach_goes_over_a_shallow_copy_of_a_list_with_item_and_index() -> None:
    body = (
        append(lambda data, event: [data.index, data.item]),
        Assign("items", lambda data, *_: [*data.items, 99], "items"),
    )
    machine = two_states(
        T(0, frozenset({E.GO}), steps=(Foreach(field("items"), "item", "index", body),))
    )(None, options=options())
    machine.send(E.GO)
    assert machine.data.seen == [[0, 1], [1, 2], [2, 3]]
    assert machine.data.items == [1, 2, 3, 99, 99, 99]
    assert (machine.data.item, machine.data.index) == (3, 2)


def test_foreach_over_a_dict_goes_over_its_keys() -> None:
    loop = Foreach(lambda *_: {"x": 1, "y": 2}, "event", None, (append(lambda d, e: d.event),))
    machine = two_states(T(0, frozenset({E.GO}), steps=(loop,)))(None, options=options())
    machine.send(E.GO)
    assert machine.data.seen == ["x", "y"] and machine.data.index is None


#: ``count = 6 // (2 - item)``: 6 for the first item, a division by zero for the second.
FAILS_AT_TWO = Assign("count", lambda data, *_: 6 // (2 - data.item), "count")


@pytest.mark.parametrize(
    "loop",
    [
        Foreach(field("count"), "item", None, (count(5),)),
        Foreach(value("abc"), "item", None, (count(5),)),
        Foreach(lambda *_: 1 // 0, "item", None, (count(5),)),
        Foreach(value([{1, 2}]), "event", None, (count(5),)),
        Foreach(field("items"), "item", None, (FAILS_AT_TWO,)),
    ],
    ids=["a number", "a string", "a failing array", "an item out of bounds", "a failing body"],
)  # fmt: skip
def test_a_failing_foreach_stops_itself_and_its_block(loop: Foreach) -> None:
    steps = (loop, Assign("label", value("after"), "label"))
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=steps))(
        None, options=options()
    )
    machine.send(E.GO)
    assert machine.state is S.END and machine.data.label == ""
    assert machine.data.count in (0, 6)  # the failing body ran for the first item only


def test_log_with_an_expression_logs_what_it_computes(caplog: pytest.LogCaptureFixture) -> None:
    steps = (
        count(3),
        Log("total", "", lambda data, *_: data.count * 2),
        Log("plain", "text"),
        Log("broken", "", lambda data, *_: data.table["x"]),
        Log("after", "", value("never")),
    )
    machine = two_states(T(0, frozenset({E.GO}), targets=(1,), steps=steps))(
        None, options=options()
    )
    with caplog.at_level(logging.INFO, logger="statewright"):
        machine.send(E.GO)
    logged = [record.getMessage() for record in caplog.records]
    assert any(line.endswith("total: 6") for line in logged)
    assert any(line.endswith("plain: text") for line in logged)
    assert not any("never" in line for line in logged)
    assert machine.state is S.END


def test_cancel_with_an_id_expression() -> None:
    timer = Send(E.PING, "t1", delay=5.0)
    cancel = Cancel("", lambda *_: "t1")
    machine = two_states(
        T(0, frozenset({E.GO}), steps=(timer,)),
        T(0, frozenset({E.PING}), steps=(cancel,)),
        T(0, frozenset({E.BACK}), targets=(1,), steps=(Cancel("", value(5)), count(1))),
    )(None, options=options())
    machine.send(E.GO)
    assert list(machine.pending_timers) == ["t1"]
    machine.send(E.PING)
    assert machine.pending_timers == {}
    machine.send(E.BACK)  # a send id that is no string: error.execution
    assert (machine.state, machine.data.count) == (S.END, 0)


# -- conditions ------------------------------------------------------------------------------------
class Guards:
    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked = 0

    def allowed(self, context: Any, payload: Any) -> bool:
        self.asked += 1
        return self.answer

    def explode(self, context: Any, payload: Any) -> None:
        raise RuntimeError("boom")

    def interrupt(self, context: Any, payload: Any) -> None:
        raise KeyboardInterrupt


def _guard(handlers: Any, context: Any, payload: Any, active: Any) -> bool:
    return bool(handlers.allowed(context, payload))


def test_a_condition_is_tested_before_the_guard_and_both_must_hold() -> None:
    transition = T(0, frozenset({E.GO}), _guard, (1,), cond=lambda data, *_: data.count > 0)
    machine_class = two_states(transition, handlers=frozenset({"allowed"}))
    guards = Guards()
    machine = machine_class(None, guards, options=options())
    with pytest.raises(InvalidTransition):
        machine.send(E.GO)
    assert guards.asked == 0  # the condition failed first
    machine.data.count = 1
    guards.answer = False
    with pytest.raises(InvalidTransition):
        machine.send(E.GO)
    assert guards.asked == 1
    guards.answer = True
    assert machine.can_send(E.GO)
    machine.send(E.GO)
    assert machine.state is S.BUSY


def test_a_condition_that_raises_is_false_with_error_execution_or_a_guard_failure() -> None:
    transition = T(0, frozenset({E.GO}), targets=(1,), cond=lambda *_: [][0])
    on_error = T(0, frozenset({E.ERROR}), steps=(append("error"),))
    machine = two_states(transition, on_error)(None, options=options())
    machine.send(E.GO)  # processed: its condition raised
    assert (machine.state, machine.data.seen) == (S.IDLE, ["error"])
    strict = two_states(transition, on_error, on_error="raise")(None, options=options())
    with pytest.raises(GuardFailed, match="IndexError"):
        strict.send(E.GO)
    assert strict.data.seen == [] and strict.total_transitions == 0


def test_in_and_the_system_variables_reach_expressions() -> None:
    read = Assign(
        "seen",
        lambda data, event, system, active: [
            0 in active,
            2 in active,
            system.sessionid,
            system.name,
            system.ioprocessors["scxml"]["location"],
        ],
        "seen",
    )
    machine = two_states(T(0, frozenset({E.GO}), steps=(read,)))(None, options=options())
    machine.send(E.GO)
    assert machine.data.seen == [True, False, "session-1", "DataChart", "#_scxml_session-1"]


# -- done data -------------------------------------------------------------------------------------
def _with_done_data(donedata: Any) -> Any:
    nodes = (
        N("outer", "compound", initial=(1,), done=E.DONE_OUTER),
        N("one", "atomic", parent=0, member=S.ONE),
        N("end", "final", parent=0, member=S.END, donedata=donedata),
        N("two", "atomic", member=S.TWO),
    )
    done = T(
        0,
        frozenset({E.DONE_OUTER}),
        targets=(3,),
        steps=(
            Assign("event", lambda data, event, *_: event.data, "event"),
            append(lambda data, event: [event.name, event.type]),
        ),
    )
    error = T(
        0, frozenset({E.ERROR}), steps=(append(lambda data, event: [event.name, event.type]),)
    )
    return build(nodes, (T(1, frozenset({E.GO}), targets=(2,)), done, error))


def test_a_final_state_s_done_data_is_its_parent_s_done_event_s_data() -> None:
    machine = _with_done_data(lambda data, *_: {"count": data.count, "items": data.items})(
        None, options=options()
    )
    machine.send(E.GO)
    assert machine.state is S.TWO
    assert machine.data.event == {"count": 0, "items": [1, 2, 3]}
    assert machine.data.seen == [["done.state.outer", "platform"]]


def test_done_data_that_fails_raises_error_execution_first_and_the_done_event_has_empty_data() -> (
    None
):
    # W3C test528: error.execution, then the done event with empty data
    machine = _with_done_data(lambda *_: 1 // 0)(None, options=options())
    machine.send(E.GO)
    assert machine.state is S.TWO and machine.data.event == {}
    assert machine.data.seen == [
        ["error.execution", "platform"],
        ["done.state.outer", "platform"],
    ]


# -- atomicity -------------------------------------------------------------------------------------
def _assign_then(action: str, **more: Any) -> Any:
    steps = (count(1), Assign("items[0]", value(7), container=field("items"), key=value(0)))
    follow = T(1, frozenset(), targets=(2,), steps=(count(2), action))  # eventless
    return two_states(
        T(0, frozenset({E.GO}), targets=(1,), steps=steps),
        follow,
        handlers=frozenset({action}),
        **more,
    )


def test_a_failed_action_leaves_the_data_as_it_was() -> None:
    machine = _assign_then("explode", on_error="raise")(None, Guards(), options=options())
    with pytest.raises(ActionFailed, match="explode"):
        machine.send(E.GO)
    assert (machine.state, machine.data.count, machine.data.items) == (S.IDLE, 0, [1, 2, 3])


def test_an_interrupted_macrostep_leaves_the_data_as_it_was() -> None:
    machine = _assign_then("interrupt")(None, Guards(), options=options())
    with pytest.raises(KeyboardInterrupt):
        machine.send(E.GO)
    assert (machine.state, machine.data.count, machine.data.items) == (S.IDLE, 0, [1, 2, 3])


def test_a_failed_checkpoint_save_leaves_the_data_as_it_was() -> None:
    class Failing(MemoryStore):
        def save(self, instance_id: str, snapshot: Any, expected_revision: int) -> int:
            raise StoreError("disk full")

    steps = (count(1), Assign("table['b']", value(2), container=field("table"), key=value("b")))
    go = T(0, frozenset({E.GO}), targets=(1,), steps=steps, checkpoint=True)
    machine_class = two_states(go)
    machine = machine_class(None, options=options(store=Failing()))
    with pytest.raises(StoreError):
        machine.send(E.GO)
    assert (machine.state, machine.data.count, machine.data.table) == (S.IDLE, 0, {"a": 1})
    store = MemoryStore()
    saved = machine_class(None, options=options(store=store))
    saved.send(E.GO)
    snapshot = store.load("session-1")
    assert snapshot is not None and snapshot["data"]["count"] == 1
    assert snapshot["data"]["table"] == {"a": 1, "b": 2}


def test_an_error_route_runs_from_the_data_before_the_failed_attempt() -> None:
    route = T(0, frozenset({ERROR_ROUTE}), targets=(2,), steps=(
        Assign("label", lambda data, *_: f"routed at {data.count}", "label"),
    ))  # fmt: skip
    machine = _assign_then("explode", on_error="raise")
    nodes = machine.spec.chart.nodes
    transitions = (*machine.spec.chart.transitions, route)
    routed = build(nodes, transitions, on_error="raise", handlers=frozenset({"explode"}))(
        None, Guards(), options=options()
    )
    routed.send(E.GO)
    assert (routed.state, routed.data.label) == (S.END, "routed at 0")
    assert (routed.data.count, routed.data.items) == (0, [1, 2, 3])

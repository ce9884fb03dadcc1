"""A data model's ``send`` (SCXML 6.2) and ``_event`` (SCXML 5.10.1): events named by an
expression, delays computed, ids made up and stored, event data, targets and types with the
errors SCXML gives them, and every field of ``_event`` for external, internal, platform and
self-sent events, in the sync and the asyncio machine."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from statewright import (
    ActionFailed,
    Assign,
    AsyncMachine,
    Cancel,
    ChartNode,
    ChartTransition,
    Raise,
    Send,
)
from statewright._event_info import SCXML_PROCESSOR

from tests.runtime.data_charts import CLOCK_START, Clock, E, S, build, field, options, value

N, T = ChartNode, ChartTransition


def remember(data: Any, event: Any, system: Any, active: Any) -> list[Any]:
    """Every field of ``_event``, appended to ``seen``."""
    fields = ("name", "type", "sendid", "origin", "origintype", "invokeid", "data")
    return [*data.seen, {name: getattr(event, name) for name in fields}]


REMEMBER = Assign("seen", remember, "seen")


def chart(*steps: Any, **more: Any) -> Any:
    """idle --GO--> (steps); PING, PONG and the errors are remembered with their ``_event``."""
    nodes = (N("idle", "atomic", member=S.IDLE),)
    transitions = (
        T(0, frozenset({E.GO}), steps=steps),
        T(0, frozenset({E.PING, E.PONG, E.ERROR, E.COMMUNICATION}), steps=(REMEMBER,)),
    )
    return build(nodes, transitions, **more)


def seen_names(machine: Any) -> list[str]:
    return [event["name"] for event in machine.data.seen]


# -- the event, the delay, the data ----------------------------------------------------------------
def test_an_event_expression_names_the_event_sent() -> None:
    send = Send(None, "s", delay=0.0, event_expr=lambda data, *_: data.label)
    machine = chart(send)(None, options=options())
    machine.data.label = "PING"
    machine.send(E.GO)
    assert machine.pending_timers == {"s": CLOCK_START}
    assert machine.fire_due() == 1 and seen_names(machine) == ["PING"]


@pytest.mark.parametrize("name", ["NOPE", "ping", "", 7, None])
def test_an_event_expression_that_names_no_event_is_error_execution(name: Any) -> None:
    send = Send(None, "s", delay=0.0, event_expr=value(name))
    machine = chart(send, Assign("count", value(1), "count"))(None, options=options())
    machine.send(E.GO)
    assert machine.pending_timers == {} and machine.data.count == 0
    assert seen_names(machine) == ["error.execution"]


@pytest.mark.parametrize(
    ("delay", "seconds"),
    [(0, 0.0), (2, 2.0), (1.5, 1.5), ("1s", 1.0), (".5s", 0.5), ("200ms", 0.2), ("1h30m", 5400.0)],
)
def test_a_delay_expression_gives_seconds_or_a_duration(delay: Any, seconds: float) -> None:
    send = Send(E.PING, "s", delay_expr=value(delay))
    machine = chart(send)(None, options=options())
    machine.send(E.GO)
    assert machine.pending_timers == {"s": CLOCK_START + seconds}


@pytest.mark.parametrize(
    "delay", ["1", "soon", "1s1s", "-1s", -1, 1e12, float("nan"), True, None, [1], "1 s"]
)
def test_a_delay_that_is_no_duration_is_error_execution(delay: Any) -> None:
    send = Send(E.PING, "s", delay_expr=value(delay))
    machine = chart(send)(None, options=options())
    machine.send(E.GO)
    assert machine.pending_timers == {} and seen_names(machine) == ["error.execution"]


def test_a_send_s_data_is_the_event_s_data_and_a_dict_is_the_handlers_payload() -> None:
    received: list[Any] = []

    class Handlers:
        def record(self, context: Any, payload: Any) -> None:
            received.append(payload)

    nodes = (N("idle", "atomic", member=S.IDLE),)
    transitions = (
        T(0, frozenset({E.GO}), steps=(
            Send(E.PING, "a", delay=0.0, data=lambda data, *_: {"count": data.count}),
            Send(E.PONG, "b", delay=0.0, data=value("text")),
        )),
        T(0, frozenset({E.PING, E.PONG}), steps=(REMEMBER, "record")),
    )  # fmt: skip
    machine = build(nodes, transitions, handlers=frozenset({"record"}))(
        None, Handlers(), options=options()
    )
    machine.data.count = 4
    machine.send(E.GO)
    machine.data.count = 5  # the data was computed when sent
    machine.fire_due()
    assert [event["data"] for event in machine.data.seen] == [{"count": 4}, "text"]
    assert received == [{"count": 4}, {}]


PING_PAYLOAD = {E.PING: (("n", ("int",), True), ("note", ("union", (("str",), ("none",))), False))}


@pytest.mark.parametrize(
    "data",
    [{"n": "two"}, {"m": 1}, {}, None, [1], "text"],
    ids=["a wrong type", "an unknown field", "a missing field", "no data", "a list", "a string"],
)
@pytest.mark.parametrize("named", [True, False], ids=["event", "event_expr"])
def test_sent_data_its_event_s_payload_does_not_admit_is_error_execution(
    data: Any, named: bool
) -> None:
    # the compiler checks a named event's data against its payload; data an expression
    # computes, or an event it names, is checked when sent
    event: dict[str, Any] = (
        {"event": E.PING} if named else {"event": None, "event_expr": value("PING")}
    )
    send = Send(id="s", delay=0.0, data=value(data), **event)
    machine = chart(send, payloads=PING_PAYLOAD)(None, options=options())
    machine.send(E.GO)
    assert machine.pending_timers == {} and seen_names(machine) == ["error.execution"]


def test_sent_data_its_event_s_payload_admits_is_sent_with_its_optional_fields() -> None:
    send = Send(None, "s", delay=0.0, event_expr=value("PING"), data=value({"n": 2}))
    machine = chart(send, payloads=PING_PAYLOAD)(None, options=options())
    machine.send(E.GO)
    assert machine.fire_due() == 1
    assert [event["data"] for event in machine.data.seen] == [{"n": 2, "note": None}]


def test_a_send_whose_data_fails_is_not_dispatched() -> None:
    send = Send(E.PING, "s", delay=0.0, data=lambda data, *_: data.table["missing"])
    machine = chart(send)(None, options=options())
    machine.send(E.GO)
    assert machine.pending_timers == {} and seen_names(machine) == ["error.execution"]


# -- ids -------------------------------------------------------------------------------------------
def test_an_id_location_receives_a_made_up_id_the_event_and_cancel_know() -> None:
    located = Send(E.PING, "", delay=1.0, id_location="sendid")
    machine = chart(located)(None, options=options(clock := Clock()))
    machine.send(E.GO)
    made_up = machine.data.sendid
    assert isinstance(made_up, str) and made_up.startswith("send-")
    assert list(machine.pending_timers) == [made_up]
    machine.send(E.GO)  # another send, another id
    assert machine.data.sendid != made_up and len(machine.pending_timers) == 2
    clock.now += 1
    machine.fire_due()
    assert [event["sendid"] for event in machine.data.seen] == [made_up, machine.data.sendid]


def test_cancel_by_an_id_expression_cancels_the_located_send() -> None:
    located = Send(E.PING, "", delay=1.0, id_location="sendid")
    machine = chart(located, Cancel("", field("sendid")))(None, options=options())
    machine.send(E.GO)
    assert machine.pending_timers == {} and machine.data.sendid is not None


def test_a_send_without_an_id_leaves_the_sendid_blank() -> None:
    machine = chart(Send(E.PING, "", delay=0.0), Send(E.PONG, "named", delay=0.0))(
        None, options=options()
    )
    machine.send(E.GO)
    (anonymous,) = [name for name in machine.pending_timers if name != "named"]
    assert anonymous.startswith("anon-")
    machine.fire_due()
    assert [event["sendid"] for event in machine.data.seen] == [None, "named"]


def test_an_id_location_is_stored_even_when_the_send_then_fails() -> None:
    send = Send(E.PING, "", id_location="sendid", target="baz")
    machine = chart(send)(None, options=options())
    machine.send(E.GO)
    (error,) = machine.data.seen
    assert error["name"] == "error.execution" and error["sendid"] == machine.data.sendid
    assert error["type"] == "platform" and machine.pending_timers == {}


# -- targets and types -----------------------------------------------------------------------------
@pytest.mark.parametrize("target", [None, "#_scxml_session-1"])
def test_a_send_to_the_machine_itself_waits_on_the_external_queue(target: str | None) -> None:
    machine = chart(Send(E.PING, "s", target=target), Raise(E.PONG))(None, options=options())
    machine.send(E.GO)
    assert seen_names(machine) == ["PONG"]  # the raised event went first: it is internal
    assert machine.fire_due() == 1 and seen_names(machine) == ["PONG", "PING"]


def test_a_send_to_internal_joins_the_internal_queue_in_order() -> None:
    steps = (Send(E.PING, "s", target="#_internal"), Raise(E.PONG))
    machine = chart(*steps)(None, options=options())
    machine.send(E.GO)
    assert seen_names(machine) == ["PING", "PONG"] and machine.pending_timers == {}
    assert [event["type"] for event in machine.data.seen] == ["internal", "internal"]
    assert machine.data.seen[0]["sendid"] == "s"


def test_a_delayed_send_to_internal_is_error_execution() -> None:
    machine = chart(Send(E.PING, "s", delay=1.0, target="#_internal"))(None, options=options())
    machine.send(E.GO)
    assert seen_names(machine) == ["error.execution"]


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("#_parent", "error.communication"),
        ("#_child", "error.communication"),
        ("#_scxml_another-session", "error.communication"),
        ("baz", "error.execution"),
        ("http://example.com/", "error.execution"),
        ("", "error.execution"),
        (7, "error.execution"),
    ],
)
def test_a_target_the_machine_cannot_deliver_to_is_an_error(target: Any, error: str) -> None:
    send = Send(E.PING, "s", target_expr=value(target))
    machine = chart(send, Assign("count", value(1), "count"))(None, options=options())
    machine.send(E.GO)
    (raised,) = machine.data.seen
    assert (raised["name"], raised["sendid"], raised["type"]) == (error, "s", "platform")
    assert machine.pending_timers == {} and machine.data.count == 0


@pytest.mark.parametrize("kind", [None, SCXML_PROCESSOR, "scxml"])
def test_the_scxml_event_processor_is_the_one_type(kind: str | None) -> None:
    machine = chart(Send(E.PING, "s", type=kind), Send(E.PONG, "t", type_expr=value(kind)))(
        None, options=options()
    )
    machine.send(E.GO)
    assert machine.fire_due() == 2 and seen_names(machine) == ["PING", "PONG"]


@pytest.mark.parametrize("kind", ["27", "http://www.w3.org/TR/scxml/#BasicHTTPEventProcessor", 1])
def test_another_type_is_error_execution(kind: Any) -> None:
    machine = chart(Send(E.PING, "s", type_expr=value(kind)))(None, options=options())
    machine.send(E.GO)
    assert seen_names(machine) == ["error.execution"] and machine.pending_timers == {}


def test_with_on_error_raise_a_send_error_fails_the_event() -> None:
    steps = (Assign("count", value(1), "count"), Send(E.PING, "s", target="#_parent"))
    machine = chart(*steps, on_error="raise")(None, options=options())
    with pytest.raises(ActionFailed, match="action 'send PING' raised Unreachable"):
        machine.send(E.GO)
    assert machine.data.count == 0


# -- _event ----------------------------------------------------------------------------------------
def test_an_event_sent_from_outside_is_external_with_its_payload_as_data() -> None:
    machine = chart()(None, options=options())
    machine.send(E.PING, a=1)
    machine.send(E.PONG)
    assert machine.data.seen == [
        {"name": "PING", "type": "external", "sendid": None, "origin": None,
         "origintype": None, "invokeid": None, "data": {"a": 1}},
        {"name": "PONG", "type": "external", "sendid": None, "origin": None,
         "origintype": None, "invokeid": None, "data": {}},
    ]  # fmt: skip


def test_an_event_the_machine_sent_itself_knows_its_origin() -> None:
    machine = chart(Send(E.PING, "s", data=value([1])))(None, options=options())
    machine.send(E.GO)
    machine.fire_due()
    assert machine.data.seen == [
        {"name": "PING", "type": "external", "sendid": "s", "origin": "#_scxml_session-1",
         "origintype": SCXML_PROCESSOR, "invokeid": None, "data": [1]},
    ]  # fmt: skip


def test_the_origin_is_where_a_reply_goes() -> None:
    reply = Send(
        E.PONG,
        "reply",
        target_expr=lambda data, event, *_: event.origin,
        type_expr=lambda data, event, *_: event.origintype,
    )
    nodes = (N("idle", "atomic", member=S.IDLE),)
    transitions = (
        T(0, frozenset({E.GO}), steps=(Send(E.PING, "s"),)),
        T(0, frozenset({E.PING}), steps=(reply,)),
        T(0, frozenset({E.PONG, E.ERROR, E.COMMUNICATION}), steps=(REMEMBER,)),
    )
    machine = build(nodes, transitions)(None, options=options())
    machine.send(E.GO)
    assert machine.fire_due() == 2 and seen_names(machine) == ["PONG"]


def test_raised_events_are_internal_and_done_and_error_events_are_platform() -> None:
    nodes = (N("idle", "atomic", member=S.IDLE),)
    transitions = (
        T(0, frozenset({E.GO}), steps=(Raise(E.PING), Assign("count", lambda *_: 1 // 0, "count"))),
        T(0, frozenset({E.PING, E.ERROR}), steps=(REMEMBER,)),
    )  # fmt: skip
    machine = build(nodes, transitions)(None, options=options())
    machine.send(E.GO)
    # no data: an empty mapping, what the compiler types a payload-less event's data as
    blank: dict[str, Any] = dict.fromkeys(("sendid", "origin", "origintype", "invokeid"))
    blank["data"] = {}
    assert machine.data.seen == [
        {"name": "PING", "type": "internal", **blank},
        {"name": "error.execution", "type": "platform", **blank},
    ]


def test_eventless_transitions_see_the_last_event() -> None:
    nodes = (N("idle", "atomic", member=S.IDLE), N("busy", "atomic", member=S.BUSY))
    transitions = (
        T(0, frozenset({E.GO}), targets=(1,)),
        T(1, frozenset(), targets=(0,), steps=(REMEMBER,)),
    )
    machine = build(nodes, transitions)(None, options=options())
    machine.send(E.GO, n=2)
    assert machine.data.seen[0]["name"] == "GO" and machine.data.seen[0]["data"] == {"n": 2}


def test_can_send_tests_conditions_with_the_event_it_would_send() -> None:
    cond = T(0, frozenset({E.GO}), targets=(), cond=lambda data, event, *_: event.data["n"] > 1)
    machine = build((N("idle", "atomic", member=S.IDLE),), (cond,))(None, options=options())
    assert machine.can_send(E.GO, n=2) and not machine.can_send(E.GO, n=1)


# -- the asyncio machine ---------------------------------------------------------------------------
def test_the_asyncio_machine_runs_the_same_data_model() -> None:
    steps = (
        Assign("count", lambda data, *_: data.count + 1, "count"),
        Send(E.PING, "", id_location="sendid", delay_expr=value("1s"), data=field("count")),
    )
    machine_class = chart(*steps, flavour=AsyncMachine)
    clock = Clock()

    async def main() -> Any:
        machine = machine_class(None, options=options(clock))
        await machine.send(E.GO)
        clock.now += 1
        assert await machine.fire_due() == 1
        return machine

    machine = asyncio.run(main())
    assert machine.data.count == 1
    (event,) = machine.data.seen
    assert (event["name"], event["data"], event["sendid"]) == ("PING", 1, machine.data.sendid)
    assert event["origin"] == "#_scxml_session-1"


def test_the_asyncio_machine_undoes_a_failed_event_s_assignments() -> None:
    steps = (Assign("count", value(1), "count"), Send(E.PING, "s", target="baz"))
    machine_class = chart(*steps, flavour=AsyncMachine, on_error="raise")

    async def main() -> Any:
        machine = machine_class(None, options=options())
        with pytest.raises(ActionFailed):
            await machine.send(E.GO)
        return machine

    assert asyncio.run(main()).data.count == 0

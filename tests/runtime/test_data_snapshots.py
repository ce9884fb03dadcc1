"""Snapshots of a machine with a data model: the data (one JSON value per field), what late
binding initialized, and pending timers' data and made-up ids round-trip exactly; restoring
checks each against the spec (the field's type, the data's bounds, the sends that could have
started a timer) and names the first malformed value."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from statewright import (
    Assign,
    ChartNode,
    ChartTransition,
    MachineOptions,
    Send,
    Snapshot,
    SnapshotError,
)

from tests.runtime.data_charts import Clock, E, S, build, field, options, value

N, T = ChartNode, ChartTransition


def remember(data: Any, event: Any, system: Any, active: Any) -> list[Any]:
    return [*data.seen, [event.name, event.sendid, event.origin, event.data]]


def machine_class(binding: str = "late", **more: Any) -> Any:
    """idle, busy (own data: label), one; GO sends PING with data under a made-up id stored in
    sendid, and PONG without an id; PING and PONG are remembered."""
    nodes = (
        N("idle", "atomic", member=S.IDLE),
        N("busy", "atomic", member=S.BUSY, data_steps=(Assign("label", value("bound"), "label"),)),
        N("one", "atomic", member=S.ONE),
    )
    go = T(
        0,
        frozenset({E.GO}),
        targets=(1,),
        steps=(
            Assign("count", lambda data, *_: data.count + 1, "count"),
            Assign("table['b']", field("count"), container=field("table"), key=value("b")),
            Send(E.PING, "", id_location="sendid", delay=5.0, data=lambda d, *_: {"n": d.count}),
            Send(E.PONG, "", delay_expr=value("10s")),
            Send(None, "named", event_expr=field("event"), delay_expr=value(1)),
        ),
    )
    heard = T(1, frozenset({E.PING, E.PONG, E.BACK}), steps=(Assign("seen", remember, "seen"),))
    return build(nodes, (go, heard), binding=binding, **more)


def walked(clock: Clock | None = None) -> Any:
    machine = machine_class()(None, options=options(clock or Clock()))
    machine.data.event = "BACK"  # what the named send's event expression computes
    machine.send(E.GO)
    return machine


def test_a_snapshot_holds_the_data_and_what_late_binding_initialized() -> None:
    snapshot = walked().snapshot()
    assert snapshot["data"] == {
        "count": 1,
        "items": [1, 2, 3],
        "table": {"a": 1, "b": 1},
        "item": None,
        "index": None,
        "sendid": snapshot["chart"]["timers"][0]["id"],
        "label": "bound",
        "seen": [],
        "event": "BACK",
    }
    assert snapshot["chart"]["initialized"] == ["busy"]
    timers = snapshot["chart"]["timers"]
    assert [timer["event"] for timer in timers] == ["PING", "PONG", "BACK"]
    assert timers[0]["data"] == {"n": 1} and "data" not in timers[1]
    assert timers[0]["id"].startswith("send-") and timers[1]["id"].startswith("anon-")


def test_a_snapshot_round_trips_exactly_and_the_machine_goes_on_the_same() -> None:
    clock = Clock()
    machine = walked(clock)
    snapshot = machine.snapshot()
    text = json.dumps(snapshot)
    restored = type(machine).restore(text, options=options(clock))
    assert restored.snapshot() == snapshot
    assert restored.data is not machine.data and restored.data.table == {"a": 1, "b": 1}
    clock.now += 10
    assert machine.fire_due() == restored.fire_due() == 3
    assert restored.data.seen == machine.data.seen
    ping = restored.data.seen[1]
    assert ping == ["PING", restored.data.sendid, "#_scxml_session-1", {"n": 1}]
    assert restored.data.seen[2][1] is None  # the anonymous send's sendid stays blank


def test_a_restored_machine_is_in_its_own_session() -> None:
    clock = Clock()
    machine = walked(clock)
    restored = type(machine).restore(
        machine.snapshot(), options=MachineOptions(clock=clock, instance_id="session-2")
    )
    restored.fire_due(clock.now + 10)
    assert restored.data.seen[1][2] == "#_scxml_session-2"


def test_a_discarded_event_leaves_the_snapshot_as_it_was() -> None:
    machine = machine_class(on_error="raise")(None, options=options())
    before = machine.snapshot()
    machine.data.event = "nothing of the machine"
    with pytest.raises(Exception, match="not an event"):
        machine.send(E.GO)
    machine.data.event = None
    assert machine.snapshot() == before


def mutate(snapshot: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    changed = copy.deepcopy(snapshot)
    target: Any = changed
    for key in path[:-1]:
        target = target[key]
    if new is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return changed


DELETE = object()
#: Nested deeper than the data's bound.
DEEP: list[Any] = []
for _ in range(33):
    DEEP = [DEEP]
MALFORMED: list[tuple[tuple[Any, ...], Any, str]] = [
    (("data",), DELETE, "data"),
    (("data",), [], "data"),
    (("data", "count"), DELETE, "data.count"),
    (("data", "nope"), 1, "data.nope"),
    (("data", "count"), "1", "data.count"),
    (("data", "count"), True, "data.count"),
    (("data", "count"), 1.5, "data.count"),
    (("data", "count"), 2**20_000, "data.count"),
    (("data", "items", 1), "x", "data.items[1]"),
    (("data", "table", "a"), None, "data.table.a"),
    (("data", "item"), [], "data.item"),
    (("data", "seen"), DEEP, "data.seen"),
    (("data", "label"), "x" * 1_000_001, "data.label"),
    (("chart", "initialized"), DELETE, "chart.initialized"),
    (("chart", "initialized"), ["idle"], "chart.initialized[0]"),
    (("chart", "initialized"), [], "chart.initialized"),
    (("chart", "initialized"), ["busy", "busy"], "chart.initialized[1]"),
    (("chart", "timers", 1, "data"), {"n": 1}, "chart.timers[1].data"),
    (("chart", "timers", 0, "data"), DEEP, "chart.timers[0].data"),
    (("chart", "timers", 0, "id"), "anon-" + "0" * 16, "chart.timers[0].event"),
    (("chart", "timers", 1, "id"), "anon-" + "0" * 15, "chart.timers[1].id"),
    (("chart", "timers", 1, "id"), "", "chart.timers[1].id"),
    (("chart", "timers", 0, "event"), "PONG", "chart.timers[0].event"),
    (("chart", "timers", 0, "delay"), 6, "chart.timers[0].delay"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "new", "field"), MALFORMED, ids=[m[2] for m in MALFORMED])
def test_a_malformed_part_is_a_snapshot_error_naming_it(
    path: tuple[Any, ...], new: Any, field: str
) -> None:
    machine = walked()
    with pytest.raises(SnapshotError) as refused:
        type(machine).restore(Snapshot(mutate(machine.snapshot(), path, new)))
    assert refused.value.field == field


def test_an_expression_s_event_and_delay_are_any_the_machine_has() -> None:
    machine = walked()
    snapshot = machine.snapshot()
    named = snapshot["chart"]["timers"][2]
    assert named["id"] == "named"
    for event, delay in (("GO", 1), ("PONG", 300.5)):
        named.update(event=event, delay=delay)
        restored = type(machine).restore(Snapshot(snapshot))
        assert restored.pending_timers["named"] == named["due"]


def test_an_early_binding_chart_has_no_initialized_and_a_chart_without_data_no_data() -> None:
    early = machine_class("early")(None, options=options())
    snapshot = early.snapshot()
    assert "initialized" not in snapshot["chart"]
    with pytest.raises(SnapshotError) as refused:
        type(early).restore(
            Snapshot({**snapshot, "chart": {**snapshot["chart"], "initialized": []}})
        )
    assert refused.value.field == "chart.initialized"
    nodes = (N("idle", "atomic", member=S.IDLE),)
    plain = build(nodes, (T(0, frozenset({E.GO}), cond=value(True)),), with_data=False)
    machine = plain(None, options=options())
    assert "data" not in machine.snapshot()
    with pytest.raises(SnapshotError) as refused:
        plain.restore(Snapshot({**machine.snapshot(), "data": {}}))
    assert refused.value.field == "data"

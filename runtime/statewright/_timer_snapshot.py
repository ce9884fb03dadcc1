"""A statechart snapshot's pending timers (the ``timers`` of its ``chart`` field), written and
checked: the rules :mod:`statewright._chart_snapshot` describes, and each timer's restore policy
applied when a machine is restored.

Each pending timer is one the spec starts under that id: an ``after`` timer only while its state
is active and with the spec's delay (unless a delay handler computes it) and event; a send
step's timer with the event and delay of a send step of that id (any event or delay where an
expression computes it); every delay from 0 to ten years
(:data:`~statewright._chart_spec.MAX_DELAY`), due times epochs. In a chart with a data model a
timer may carry the ``data`` its send computed (only a send with data gives one, within the
data's bounds), and its id may be one the machine made up (``send-`` or ``anon-`` and 16 hex
digits) for a send without an id.

A message between machines of a tree (:class:`~statewright._chart_state.Message`) is a timer
with more keys: an outgoing one its ``target`` (``#_parent``, ``#_<invokeid>``), its event by
name, and the id of the send that sent it (or a made-up ``msg-`` id: an event forwarded to a
child); a received one its ``origin``, and the ``invokeid`` of the child that sent it and its
full ``name`` when it has them, a made-up ``msg-`` id and an event of this machine. Either may
have its ``sendid``. Whether the machine may hold it (a child's message, a parent's) is the
tree's check (:mod:`statewright._tree_snapshot`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Final

from statewright._chart_send import LOCATED, MESSAGE, made_up_kind
from statewright._chart_spec import MAX_DELAY, Send
from statewright._chart_state import Message, Pending
from statewright._chart_tables import ROOT, ChartTables
from statewright._clock import is_epoch
from statewright._data_values import stored
from statewright._errors import SnapshotError

if TYPE_CHECKING:
    from statewright._table import Table

__all__ = [
    "DATA_TIMER_KEYS",
    "POLICIES",
    "TIMER_KEYS",
    "decode_timers",
    "event_member",
    "restart_timers",
    "timer_json",
]

TIMER_KEYS: Final = frozenset({"id", "event", "due", "delay", "on_restore"})
#: A timer with data has ``data`` too.
DATA_TIMER_KEYS: Final = TIMER_KEYS | {"data"}
#: What a message has besides (see the module docstring).
MESSAGE_KEYS: Final = frozenset({"target", "origin", "invokeid", "name", "sendid"})
POLICIES: Final = frozenset({"fire", "resume", "restart"})


def timer_json(timer_id: str, pending: Pending) -> dict[str, Any]:
    """A pending timer as a snapshot writes it (``data`` only when it has some)."""
    timer = {
        "id": timer_id,
        "event": str(pending.event),
        "due": pending.due,
        "delay": pending.delay,
        "on_restore": pending.on_restore,
    }
    if pending.data is not None:
        from statewright._jsondata import json_data

        timer["data"] = json_data(pending.data)
    if type(pending) is Message:
        parts = ("sendid", pending.sendid), ("target", pending.target), ("origin", pending.origin)
        for key, value in (*parts, ("invokeid", pending.invokeid), ("name", pending.name)):
            if value is not None:
                timer[key] = value
    return timer


def restart_timers(timers: dict[str, Pending], saved_at: float, now: float) -> None:
    """Apply each timer's restore policy at ``now`` (the snapshot was taken at ``saved_at``)."""
    for pending in timers.values():
        if pending.on_restore == "resume":
            pending.due = now + min(pending.delay, max(0.0, pending.due - saved_at))
        elif pending.on_restore == "restart":
            pending.due = now + pending.delay


def decode_timers(
    engine: ChartTables, table: Table, value: Any, active: Collection[int], own: bool = False
) -> dict[str, Pending]:
    """The checked ``chart.timers`` of a snapshot whose active states are ``active`` (``own``:
    the runtime's own snapshot under this spec: a timer is converted, not checked against the
    spec again; a message between machines always is)."""
    if type(value) is not list:
        raise SnapshotError("expected an array", field="chart.timers")
    timers: dict[str, Pending] = {}
    for i, item in enumerate(value):
        if own and MESSAGE_KEYS.isdisjoint(item):
            timers[item["id"]] = _own_timer(engine, table, item)
            continue
        field = f"chart.timers[{i}]"
        extra = item.keys() & MESSAGE_KEYS if type(item) is dict else set()
        if type(item) is not dict or (item.keys() - extra) not in (TIMER_KEYS, DATA_TIMER_KEYS):
            raise SnapshotError(f"expected the keys {', '.join(sorted(TIMER_KEYS))}", field=field)
        timer_id, due, delay, policy = item["id"], item["due"], item["delay"], item["on_restore"]
        if type(timer_id) is not str or timer_id in timers:
            raise SnapshotError("expected a timer id not used before", field=f"{field}.id")
        if not is_epoch(due):
            raise SnapshotError("expected seconds since the epoch", field=f"{field}.due")
        if type(delay) not in (int, float) or not 0 <= delay <= MAX_DELAY:
            raise SnapshotError(
                f"expected seconds from 0 to ten years ({MAX_DELAY:.0f})", field=f"{field}.delay"
            )
        if type(policy) is not str or policy not in POLICIES:
            raise SnapshotError("expected fire, resume or restart", field=f"{field}.on_restore")
        if extra:
            timers[timer_id] = _message(engine, table, item, active, field)
            continue
        sends = _started(engine, table, timer_id, active, field)
        event = event_member(table, item["event"], f"{field}.event")
        matching = _check_timer(timer_id, sends, event, delay, field)
        data = _timer_data(matching, item, field)
        sendid = None
        if engine.expressive and made_up_kind(timer_id) in (None, LOCATED):
            sendid = timer_id
        timers[timer_id] = Pending(event, due, delay, policy, data, sendid)
    return timers


def _own_timer(engine: ChartTables, table: Table, item: dict[str, Any]) -> Pending:
    """A pending timer of the runtime's own snapshot, converted (what does not convert raises,
    and the snapshot goes to the strict decoder: statewright._snapshot_own)."""
    timer_id = item["id"]
    sendid = None
    if engine.expressive and made_up_kind(timer_id) in (None, LOCATED):
        sendid = timer_id
    data = stored(item["data"]) if "data" in item else None
    event = table.events_by_value[item["event"]]
    return Pending(event, item["due"], item["delay"], item["on_restore"], data, sendid)


def _message(
    engine: ChartTables, table: Table, item: dict[str, Any], active: Collection[int], field: str
) -> Message:
    """A message between machines of a tree, checked (see the module docstring)."""
    for key in MESSAGE_KEYS & item.keys():
        if type(item[key]) is not str or not item[key]:
            raise SnapshotError("expected a string", field=f"{field}.{key}")
    timer_id, event, target = item["id"], item["event"], item.get("target")
    data = _data(item, field) if "data" in item else None
    values = (item["due"], item["delay"], item["on_restore"], data, item.get("sendid"))
    if target is None:  # received: this machine's event, fired as sent
        if made_up_kind(timer_id) != MESSAGE or values[2] != "fire":
            reason = "a received message has an id the machine made up (msg-) and fires"
            raise SnapshotError(reason, field=f"{field}.id")
        if "origin" not in item:
            raise SnapshotError("is missing", field=f"{field}.origin")
        member = event_member(table, event, f"{field}.event")
        name = item.get("name")
        if name is not None and not name.startswith(f"{member}."):
            raise SnapshotError(f"{name!r:.60} is not an event {member} stands for", field=field)
        origin, invokeid = item["origin"], item.get("invokeid")
        return Message(member, *values, origin=origin, invokeid=invokeid, name=name)
    if not target.startswith("#_") or target == "#_internal" or target.startswith("#_scxml_"):
        raise SnapshotError(f"{target!r:.60} is no machine of a tree", field=f"{field}.target")
    if "invokeid" in item or "name" in item or type(event) is not str or not event:
        raise SnapshotError("an outgoing message has an event name and a target", field=field)
    if made_up_kind(timer_id) != MESSAGE:  # a send's: its event and delay
        sends = _started(engine, table, timer_id, active, field)
        same = [send for send in sends if send.event_expr is not None or str(send.event) == event]
        if not same:
            raise SnapshotError(f"no send {timer_id} sends {event!r:.60}", field=f"{field}.event")
        _check_timer(timer_id, tuple(same), same[0].event, values[1], field)
    return Message(event, *values, target=target, origin=item.get("origin"))


def _data(item: dict[str, Any], field: str) -> Any:
    try:
        return stored(item["data"])
    except (ValueError, TypeError) as error:
        raise SnapshotError(str(error), field=f"{field}.data") from None


def _timer_data(sends: list[Send], item: dict[str, Any], field: str) -> Any:
    """A timer's data: only a send that computes data gives one, within the data's bounds."""
    if "data" not in item:
        return None
    if not any(send.data is not None for send in sends):
        raise SnapshotError("no send of this timer carries data", field=f"{field}.data")
    return _data(item, field)


def _started(
    engine: ChartTables, table: Table, timer_id: str, active: Collection[int], field: str
) -> tuple[Send, ...]:
    """The spec's sends that start timer ``timer_id``; an ``after`` timer's state is active. An
    id the machine made up comes from a send without an id (and with an ``id_location`` for a
    ``send-`` id)."""
    rule = engine.timer_rules.get(timer_id) if timer_id else None  # "": sends without an id
    kind = made_up_kind(timer_id) if rule is None else None
    if kind is not None and "" in engine.timer_rules:
        located = kind == LOCATED
        sends = tuple(
            send for send in engine.timer_rules[""][1] if (send.id_location is not None) == located
        )
        if sends:
            return sends
    if rule is None:
        raise SnapshotError(
            f"{timer_id!r:.80} is no timer of {table.spec.name} (an after timer's id is "
            "after.<state>.<id or delay>: one the spec no longer has cannot be restored)",
            field=f"{field}.id",
        )
    node, sends = rule
    if node != ROOT and node not in active:
        raise SnapshotError(
            f"is the after timer of {engine.names[node]}, which is not active", field=f"{field}.id"
        )
    return sends


def _check_timer(
    timer_id: str, sends: tuple[Send, ...], event: Any, delay: float, field: str
) -> list[Send]:
    """A pending timer has the event and the delay of one of the sends that start it (any
    event when an expression names it, any delay when a delay handler or an expression
    computes it); returns those sends."""
    same_event = [send for send in sends if send.event is event or send.event_expr is not None]
    if not same_event:
        expected = " or ".join(sorted({str(send.event) for send in sends}))
        raise SnapshotError(
            f"timer {timer_id} sends {expected}, not {event}", field=f"{field}.event"
        )
    found = [
        send
        for send in same_event
        if send.handler is not None or send.delay_expr is not None or (send.delay or 0) == delay
    ]
    if not found:
        expected = " or ".join(sorted({f"{send.delay or 0:g}" for send in same_event}))
        raise SnapshotError(
            f"{delay!r:.40} is not the delay of timer {timer_id} ({expected} seconds)",
            field=f"{field}.delay",
        )
    return found


def event_member(table: Table, value: Any, field: str) -> Any:
    member = table.events_by_value.get(value) if type(value) is str else None
    if member is None:
        raise SnapshotError(f"{value!r:.60} is not an event of {table.spec.name}", field=field)
    return member

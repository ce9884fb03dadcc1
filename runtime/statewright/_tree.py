"""A tree of machines: a parent, the child machines its states invoked, theirs, and the events
between them (SCXML 6.4), for both flavours.

Each machine of a tree keeps its own queues. An event from one machine to another is a
:class:`~statewright._chart_state.Message` on the sender's external queue (its timers: a
macrostep that is discarded sends nothing), *delivered* when it is due: moved to the
receiver's external queue, named by the receiver's own event of that name. An event the
receiver's event enum lacks is matched to the longest declared prefix of its name, as SCXML's
event descriptors match (``done.invoke`` takes ``done.invoke.worker``); with none it is
discarded, as SCXML discards an event no transition takes. A child that reaches a top-level
final state sends its parent ``done.invoke.<id>`` with its done data and ends.

:class:`Delivery` is one call's walk over the tree: it delivers what is due, then hands the
flavour the next event to process (the flavour runs it through that machine's own send path),
earliest first, the parent before its children and children in document order at the same due
time, until nothing is due at its time or it reached its bound. ``send`` processes the events
between machines only (each machine's own timers wait for ``fire_due``, as without children);
``fire_due`` processes every timer of the tree.

The machines of a tree share the root's lock: one event anywhere in the tree at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from statewright._chart import repeating
from statewright._chart_send import MESSAGE, PARENT, made_up_id
from statewright._chart_state import NO_CHILDREN, Message
from statewright._errors import TimerLoop
from statewright._timers import MAX_TIMER_FIRINGS
from statewright._tree_text import changed

if TYPE_CHECKING:
    from collections.abc import Mapping

    from statewright._chart_spec import Invoke
    from statewright._chart_state import Pending
    from statewright._options import MachineOptions

__all__ = [
    "Delivery",
    "adopt",
    "child_class",
    "child_options",
    "child_parts",
    "member_named",
    "quiet",
    "root_of",
    "running",
    "sessions",
    "tree_next_due",
]

#: How many of the last events processed the loop error looks at for the cycle.
_RECENT: Final = 64


def root_of(machine: Any) -> Any:
    """The machine at the top of ``machine``'s tree."""
    while machine._parent is not None:
        machine = machine._parent
    return machine


def running(machine: Any) -> list[tuple[str, Any]]:
    """``machine``'s running children as ``(invoke id, child)``, in document order."""
    chart = machine._chart
    children = NO_CHILDREN if chart is None else chart.children
    if not children:
        return []
    found = sorted((n, i, k, c) for k, (n, i, c) in children.items() if c is not None)
    return [(key, child) for _, _, key, child in found]


def sessions(machine: Any) -> Iterator[Any]:
    """``machine`` and the machines below it, each parent before its children."""
    yield machine
    for _, child in running(machine):
        yield from sessions(child)


def attached(child: Any) -> bool:
    """Whether ``child`` still runs for its parent (a cancelled or finished one does not)."""
    parent = child._parent
    if parent is None:
        return False
    entry = parent._chart.children.get(child._invokeid)
    return entry is not None and entry[2] is child


def member_named(events_by_value: Mapping[str, Any], name: str) -> Any:
    """The event member ``name`` is, or else the one its longest dotted prefix is (SCXML's
    descriptor match); None when there is none."""
    while True:
        member = events_by_value.get(name)
        if member is not None:
            return member
        name, dot, _ = name.rpartition(".")
        if not dot:
            return None


def quiet(machine: Any, before: object) -> bool:
    """Whether the event ``machine`` just processed can have left nothing to deliver: a root
    whose children did not change (``before`` is its mapping before the event) and that holds
    no message. The cheap test ``send`` makes before walking the tree."""
    if machine._parent is not None or machine._unsettled:
        return False
    chart = machine._chart
    if chart.children is not before:
        return False
    return not any(type(timer) is Message for timer in chart.timers.values())


def tree_next_due(machine: Any) -> float | None:
    """When the earliest timer or message of ``machine``'s tree is due (None without one)."""
    dues = [t.due for session in sessions(machine) for t in session._chart.timers.values()]
    return min(dues) if dues else None


# -- starting a child -------------------------------------------------------------------------


def child_class(parent_class: Any, invoke: Invoke) -> Any:
    """The class of the child ``invoke`` starts for a machine of ``parent_class``: its
    ``machine()``, or its ``async_machine()`` for an asyncio parent; a statechart's class (a
    ``TypeError`` otherwise: only a chart finishes, queues and sends events)."""
    asyncio = parent_class._asyncio
    cls = invoke.async_machine() if asyncio else invoke.machine()
    spec = getattr(cls, "spec", None)
    if getattr(cls, "_asyncio", None) is not asyncio:
        kind = "an asyncio" if asyncio else "a"
        raise TypeError(f"the invoked machine {cls!r:.80} is not {kind} statechart's class")
    if getattr(spec, "chart", None) is None:
        raise TypeError(
            f"the invoked machine {cls!r:.80} is a flat machine: a child machine is a statechart "
            "(give its spec `statechart = true` in [machine])"
        )
    cls._in_trees()
    return cls


def child_parts(
    parent: Any, invoke: Invoke, instance_id: str | None = None
) -> tuple[Any, Any, MachineOptions]:
    """What a child of ``parent`` is built with: the parent's context, its handlers (the
    parent's object itself, or what ``invoke.handlers`` makes of it: the guards and actions of a
    child's spec are the tree's, as an agent's tools are) and its options
    (:func:`child_options`)."""
    own = parent._handlers
    handlers = own if invoke.handlers is None else invoke.handlers(own)
    return parent._context, handlers, child_options(parent._options, instance_id)


def child_options(options: MachineOptions, instance_id: str | None = None) -> MachineOptions:
    """A child's options: its parent's, with no store of its own (it is saved in its parent's
    snapshot), no migrations (the parent's are for the parent's spec) and its own instance id
    (``_sessionid``: made up, or its snapshot's)."""
    import dataclasses
    import os

    return dataclasses.replace(
        options,
        store=None,
        migrations={},
        instance_id=os.urandom(16).hex() if instance_id is None else instance_id,
    )


def adopt(parent: Any, child: Any, now: float) -> tuple[Any, list[Message]]:
    """The answer to an ``INVOKE`` request once ``child`` started at ``now``: the child (None
    when it finished at once) and what it sent its parent meanwhile, in order, its
    ``done.invoke`` last (the parent queues them in the macrostep that started it)."""
    sent = _due_out(child, now, PARENT)  # (its messages to its own children wait in it)
    messages = [m for m in (_received(child, parent, m) for m in sent) if m is not None]
    if not child._chart.finished:
        return child, messages
    done = _done(parent, child, now)
    return None, messages if done is None else [*messages, done]


# -- delivering -------------------------------------------------------------------------------


def _due_out(sender: Any, at: float, target: str | None = None) -> list[Message]:
    """Remove and return ``sender``'s outgoing messages due at ``at`` (only those for
    ``target`` when given), earliest first (those due together in the order they were sent)."""
    timers = sender._chart.timers
    due: list[tuple[str, Message]] = []
    for key, timer in timers.items():
        if type(timer) is not Message or timer.target is None or timer.due > at:
            continue
        if target is None or timer.target == target:
            due.append((key, timer))
    due.sort(key=lambda item: item[1].due)
    for key, _ in due:
        del timers[key]
    if due:  # what its parent's last save wrote of it is out of date (statewright._tree_text)
        changed(sender)
    return [message for _, message in due]


def _received(sender: Any, receiver: Any, message: Message) -> Message | None:
    """``message`` as ``receiver`` queues it: its own event of that name (None when it has
    none), its data checked against that event's payload (None when it does not fit), from
    ``sender``; a child's with its invoke id."""
    name = str(message.event)
    member = member_named(receiver._spec_table.events_by_value, name)
    if member is None:
        _discarded(receiver, name, "no event of that name")
        return None
    data = message.data
    engine = receiver._engine
    if member in engine.payloads:
        try:
            data = engine.sent_payload(member, data)
        except (TypeError, ValueError) as error:  # InvalidPayload is a ValueError
            _discarded(receiver, name, f"its data does not fit: {error}")
            return None
    invokeid = sender._invokeid if receiver is sender._parent else None
    return Message(
        member,
        message.due,
        message.delay,
        "fire",
        data,
        message.sendid,
        origin=message.origin or f"#_scxml_{sender._instance_id}",
        invokeid=invokeid,
        name=None if name == str(member) else name,
    )


def _done(parent: Any, child: Any, at: float) -> Message | None:
    """The ``done.invoke.<id>`` of ``child``, which finished at ``at`` (None when ``parent``
    has no event for it)."""
    name = f"done.invoke.{child._invokeid}"
    member = member_named(parent._spec_table.events_by_value, name)
    if member is None:
        return None
    return Message(
        member,
        at,
        0.0,
        "fire",
        getattr(child._chart, "result", None),
        origin=f"#_scxml_{child._instance_id}",
        invokeid=child._invokeid,
        name=None if name == str(member) else name,
    )


def _discarded(receiver: Any, name: str, reason: str) -> None:
    receiver._logger.debug(
        "%s %s: discarded the event %s from another machine: %s",
        receiver._spec_table.spec.name,
        receiver._instance_id,
        name,
        reason,
    )


class Delivery:
    """One ``send`` or ``fire_due`` call's walk over the tree of ``root`` at ``at``: each
    :meth:`next` delivers what is due and returns the next event to process, with the machine
    that processes it (``own``: the machines' own timers too, else events between machines
    only). At most ``MAX_TIMER_FIRINGS`` events per call: then :class:`TimerLoop` names the
    cycle, leaving the next event queued."""

    __slots__ = ("at", "count", "own", "recent", "root", "time")

    def __init__(self, root: Any, at: float, own: bool) -> None:
        self.root = root
        self.at = at
        self.own = own
        self.count = 0
        self.recent: list[str] = []
        #: The time of the event processed last (when a child that finished then finished).
        self.time = at

    def next(self) -> tuple[Any, Pending] | None:
        self._deliver()
        best: tuple[float, Any, str] | None = None
        for session in sessions(self.root):
            for key, timer in session._chart.timers.items():
                if timer.due > self.at or (best is not None and timer.due >= best[0]):
                    continue
                if type(timer) is Message:
                    if timer.target is not None:
                        continue  # outgoing, not due yet (what is due was delivered above)
                elif not self.own:
                    continue
                best = (timer.due, session, key)
        if best is None:
            return None
        _, session, key = best
        chart = session._chart
        timer = chart.timers[key]
        label = f"{session._invokeid or 'root'}:{timer.event if type(timer) is Message else key}"
        if self.count >= MAX_TIMER_FIRINGS:
            raise TimerLoop(self.count, repeating(self.recent[-_RECENT:]))
        self.count += 1
        self.recent.append(label)
        if len(self.recent) > 2 * _RECENT:
            del self.recent[:_RECENT]
        self.time = timer.due
        changed(session)  # its timer is gone, whether or not a transition takes its event
        return session, chart.timers.pop(key)

    def lateness(self, timer: Pending) -> float:
        """How late ``timer`` is processed: the call's time minus its due time, in seconds."""
        return max(0.0, self.at - timer.due)

    def _deliver(self) -> None:
        """Move every message due to its receiver, then end the children that finished."""
        tree = list(sessions(self.root))
        for sender in tree:
            for message in _due_out(sender, self.at):
                receiver = self._receiver(sender, message.target)
                received = None if receiver is None else _received(sender, receiver, message)
                if received is not None:
                    receiver._chart.timers[made_up_id(False, MESSAGE)] = received
                    changed(receiver)
        for child in tree[1:]:
            if child._chart.finished and attached(child):
                self._finish(child)

    @staticmethod
    def _receiver(sender: Any, target: str | None) -> Any:
        """The machine ``target`` names from ``sender`` (None when it no longer runs)."""
        if target == PARENT:
            return sender._parent if attached(sender) else None
        entry = sender._chart.children.get((target or "")[2:])
        return None if entry is None else entry[2]

    def _finish(self, child: Any) -> None:
        """``child`` reached a top-level final state: it ends, and its parent gets its
        ``done.invoke``."""
        parent = child._parent
        chart = parent._chart
        node, index, _ = chart.children[child._invokeid]
        chart.children = {**chart.children, child._invokeid: (node, index, None)}
        changed(parent)
        done = _done(parent, child, self.time)
        if done is not None:
            chart.timers[made_up_id(False, MESSAGE)] = done

"""A save of a tree reuses what it wrote for each child that did not change since
(``statewright._tree_text``): it encodes the children that changed, and writes the bytes it
would write encoding every child afresh. Each kind of change of a child is seen by the next save
(an event it took, one it was sent by its parent, its data, a timer armed, fired, cancelled or
fired for nothing, a message leaving it, a grandchild's change, a child finishing, cancelled or
started, a keyed event, a restore); a random mix of them, on a tree with a grandchild, writes
what the dicts of a snapshot encode after every step."""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statewright import (
    Assign,
    Cancel,
    InvalidTransition,
    Invoke,
    MemoryStore,
    Send,
    StrEnum,
    TimerLoop,
)
from statewright._snapshot_text import own_text
from statewright._stores.codec import canonical

from tests.fuzz import examples
from tests.invoke.support import FLAVOURS, act, new, run
from tests.invoke.trees import (
    ANY,
    ASYNC_WORKER,
    LIST,
    WORKER,
    BossEvent,
    Clock,
    N,
    T,
    WorkerEvent,
    WorkerState,
    _classes,
    _spec,
    boss,
    middle,
    options,
)


class ClerkState(StrEnum):
    DESK = "desk"
    GONE = "gone"
    NAP = "nap"


class ClerkEvent(StrEnum):
    WRITE = "WRITE"
    ARM = "ARM"
    DISARM = "DISARM"
    BEEP = "BEEP"
    DUD = "DUD"
    IGNORED = "IGNORED"
    LATE = "LATE"
    FINISH = "FINISH"
    NAP = "NAP"


def clerk() -> tuple[Any, Any]:
    """A child whose events each change one thing: WRITE its data, ARM a 10 s timer (BEEP,
    which counts), DISARM cancels it, DUD a 1 s timer whose event no transition takes, LATE a
    message to its parent 2 s later; NAP goes to ``nap`` and back; FINISH ends it."""
    fields: dict[str, tuple[tuple[Any, ...], Any]] = {"notes": (LIST, []), "beeps": (ANY, 0)}
    nodes = (
        N("desk", "atomic", member=ClerkState.DESK),
        N("gone", "final", member=ClerkState.GONE),
        N("nap", "atomic", member=ClerkState.NAP),
    )
    note = Assign("notes", lambda d, e, s, a: [*d.notes, len(d.notes)], "notes")
    beep = Assign("beeps", lambda d, e, s, a: d.beeps + 1, "beeps")
    late = Send("PONG", "late", target="#_parent", delay=2.0, data=lambda d, e, s, a: {"n": 1})
    transitions = (
        T(0, frozenset({ClerkEvent.WRITE}), steps=(note,)),
        T(0, frozenset({ClerkEvent.ARM}), steps=(Send(ClerkEvent.BEEP, "beep", delay=10.0),)),
        T(0, frozenset({ClerkEvent.DISARM}), steps=(Cancel("beep"),)),
        T(0, frozenset({ClerkEvent.BEEP}), steps=(beep,)),
        T(0, frozenset({ClerkEvent.DUD}), steps=(Send(ClerkEvent.IGNORED, "dud", delay=1.0),)),
        T(0, frozenset({ClerkEvent.LATE}), steps=(late,)),
        T(0, frozenset({ClerkEvent.FINISH}), targets=(1,)),
        T(0, frozenset({ClerkEvent.NAP}), targets=(2,)),
        T(2, frozenset({ClerkEvent.NAP}), targets=(0,)),
    )
    return _classes(_spec("Clerk", ClerkState, ClerkEvent, nodes, transitions, fields))


CLERK, MIDDLE = clerk(), middle()
#: Idle workers beside the ones that change: a save must not encode them again.
IDLE = tuple(f"idle{i}" for i in range(4))
TREE = boss(
    extra=(T(1, frozenset({BossEvent.NOISE}), steps=(Send("PING", "", target="#_middle"),)),),
    more=(
        Invoke(lambda: CLERK[0], lambda: CLERK[1], "clerk"),
        Invoke(lambda: MIDDLE[0], lambda: MIDDLE[1], "middle"),
        *(Invoke(lambda: WORKER, lambda: ASYNC_WORKER, name) for name in IDLE),
    ),
    name="Office",
)


class ShelfEvent(StrEnum):
    NOTHING = "NOTHING"


#: A child that runs a worker of its own and takes no ``done.invoke``: its worker's end changes
#: only its mapping of children.
SHELF = _classes(
    _spec(
        "Shelf",
        ClerkState,
        ShelfEvent,
        (
            N(
                "desk",
                "atomic",
                member=ClerkState.DESK,
                invokes=(Invoke(lambda: WORKER, lambda: ASYNC_WORKER, "inner"),),
            ),
        ),
        (),
        {"result": (ANY, None)},
    )
)
SHELVES = boss(
    more=(
        Invoke(lambda: SHELF[0], lambda: SHELF[1], "shelf"),
        *(Invoke(lambda: WORKER, lambda: ASYNC_WORKER, name) for name in IDLE),
    ),
    name="Shelves",
)
#: The tree of the random mix: :data:`TREE`'s children and a Shelf (whose worker's end changes
#: only its mapping of children).
MIXED = boss(
    extra=(T(1, frozenset({BossEvent.NOISE}), steps=(Send("PING", "", target="#_middle"),)),),
    more=(
        Invoke(lambda: CLERK[0], lambda: CLERK[1], "clerk"),
        Invoke(lambda: MIDDLE[0], lambda: MIDDLE[1], "middle"),
        Invoke(lambda: SHELF[0], lambda: SHELF[1], "shelf"),
        *(Invoke(lambda: WORKER, lambda: ASYNC_WORKER, name) for name in IDLE[:2]),
    ),
    name="Mixed",
)


def saved_head(machine: Any) -> str:
    """The head a save to a built-in store writes (with revision 7): kept texts reused."""
    text = own_text(machine, machine.total_transitions)
    return f"{text.before}7{text.after}"


def fresh_head(machine: Any) -> str:
    """The same head from the dicts of a snapshot, every child encoded afresh."""
    head = machine._build_snapshot(None)
    head["revision"] = 7
    return canonical(head)


def clerk_of(machine: Any) -> Any:
    return machine.children["clerk"]


async def later(machine: Any, clock: Clock, seconds: float) -> None:
    clock.now += seconds
    await act(machine.fire_due())


Change = Callable[[Any, Clock], Awaitable[Any]]


async def grandchild_noise(machine: Any, clock: Clock) -> None:
    await act(machine.children["middle"].children["inner"].send(WorkerEvent.NOISE))


async def go_again(machine: Any, clock: Clock) -> None:
    await act(machine.send(BossEvent.GO))


#: Per kind of change: what sets it up (before the save that keeps the texts), and the change.
CHANGES: dict[str, tuple[Change | None, Change]] = {
    "an event it took": (None, lambda m, c: act(clerk_of(m).send(ClerkEvent.NAP))),
    "an event its parent sent it": (None, lambda m, c: act(m.send(BossEvent.PING))),
    "its data written": (None, lambda m, c: act(clerk_of(m).send(ClerkEvent.WRITE))),
    "a timer armed": (None, lambda m, c: act(clerk_of(m).send(ClerkEvent.ARM))),
    "a timer cancelled": (
        lambda m, c: act(clerk_of(m).send(ClerkEvent.ARM)),
        lambda m, c: act(clerk_of(m).send(ClerkEvent.DISARM)),
    ),
    "a timer fired": (
        lambda m, c: act(clerk_of(m).send(ClerkEvent.ARM)),
        lambda m, c: later(m, c, 10.0),
    ),
    "a timer fired that no transition takes": (
        lambda m, c: act(clerk_of(m).send(ClerkEvent.DUD)),
        lambda m, c: later(m, c, 1.0),
    ),
    "a message leaving it": (
        lambda m, c: act(clerk_of(m).send(ClerkEvent.LATE)),
        lambda m, c: later(m, c, 2.0),
    ),
    "a grandchild's event": (None, grandchild_noise),
    "its finishing": (None, lambda m, c: act(clerk_of(m).send(ClerkEvent.FINISH))),
    "a keyed event": (None, lambda m, c: act(clerk_of(m).send_once("k-1", ClerkEvent.WRITE))),
    "children cancelled": (None, lambda m, c: act(m.send(BossEvent.CANCEL))),
    "children started": (lambda m, c: act(m.send(BossEvent.CANCEL)), go_again),
}


@FLAVOURS
@pytest.mark.parametrize("kind", CHANGES)
def test_each_change_of_a_child_is_in_the_next_save(flavour: str, kind: str) -> None:
    """After a save kept every child's text, the change shows in the next save, which writes
    what encoding every child afresh writes."""
    setup, change = CHANGES[kind]

    async def scenario() -> None:
        clock = Clock()
        machine = await new(TREE, flavour, clock)
        await act(machine.send(BossEvent.GO))
        if setup is not None:
            await setup(machine, clock)
        before = saved_head(machine)
        assert before == fresh_head(machine)
        assert saved_head(machine) == before  # kept, and still right
        await change(machine, clock)
        after = saved_head(machine)
        assert after == fresh_head(machine)
        assert after != before  # the change is in the snapshot

    run(scenario)


@FLAVOURS
def test_a_restored_tree_saves_what_it_was_saved_as(flavour: str) -> None:
    async def scenario() -> None:
        clock = Clock()
        machine = await new(TREE, flavour, clock)
        await act(machine.send(BossEvent.GO))
        await act(clerk_of(machine).send(ClerkEvent.ARM))
        saved = saved_head(machine)
        cls = type(machine)
        restored = cls.restore(machine.snapshot(), options=options(clock))
        assert saved_head(restored) == saved == fresh_head(restored)
        await act(clerk_of(restored).send(ClerkEvent.WRITE))
        assert saved_head(restored) == fresh_head(restored) != saved

    run(scenario)


def test_a_message_delivered_to_a_child_is_in_the_next_save(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A message moved to a child's queue that the child has not processed yet (the walk
    stopped first: its bound, here 0) is in the next save."""
    machine = TREE[0](None, options=options(Clock()))
    machine.send(BossEvent.GO)
    before = saved_head(machine)
    monkeypatch.setattr("statewright._tree.MAX_TIMER_FIRINGS", 0)
    with pytest.raises(TimerLoop):
        machine.send(BossEvent.PING)  # for the worker: delivered, then the walk stops
    assert any(
        t.event is WorkerEvent.PING for t in machine.children["worker"]._chart.timers.values()
    )
    assert saved_head(machine) == fresh_head(machine) != before


def test_a_grandchild_ending_is_in_the_next_save() -> None:
    """Its parent's entry loses the grandchild's pieces (the time of its chart): the
    field of the root is run together again, and still writes what encoding afresh writes."""
    machine = SHELVES[0](None, options=options(Clock()))
    machine.send(BossEvent.GO)
    assert saved_head(machine) == fresh_head(machine)
    machine.children["shelf"].children["inner"].send(WorkerEvent.STOP)
    assert machine.children["shelf"].children == {}
    assert saved_head(machine) == fresh_head(machine)
    machine.children["idle2"].send(WorkerEvent.NOISE)
    assert saved_head(machine) == fresh_head(machine)


def test_a_grandchild_ending_after_a_save_of_its_last_event_is_in_the_next_save() -> None:
    """A save made between a grandchild's last event and its end (by a listener of it) keeps
    its parent's entry with it running; its end must drop that entry."""
    machine = SHELVES[0](None, options=options(Clock(), store=MemoryStore()))
    machine.send(BossEvent.GO)
    inner = machine.children["shelf"].children["inner"]
    inner.add_listener(lambda record: machine.save() if record.target is WorkerState.DONE else None)
    inner.send(WorkerEvent.STOP)
    assert machine.children["shelf"].children == {}
    assert saved_head(machine) == fresh_head(machine)


def test_a_save_keeps_no_ended_child_alive() -> None:
    """What a parent kept of its last field of children goes once none runs."""
    machine = TREE[0](None, options=options(Clock()))
    machine.send(BossEvent.GO)
    saved_head(machine)
    cancelled = weakref.ref(clerk_of(machine))
    machine.send(BossEvent.CANCEL)
    assert saved_head(machine) == fresh_head(machine)
    gc.collect()
    assert cancelled() is None


def counting(cls: Any, encoded: list[str]) -> Callable[[Any], tuple[str, str, float | None]]:
    """The ``encode_text`` of ``cls``'s engine (what writes a chart's part of a save), noting
    the spec's name in ``encoded`` at each call."""
    engine = cls._classdata()[1]

    def encode_text(chart: Any) -> tuple[str, str, float | None]:
        encoded.append(cls.spec.name)
        result: tuple[str, str, float | None] = type(engine).encode_text(engine, chart)
        return result

    return encode_text


def test_a_save_encodes_only_the_children_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The children that took nothing since the last save are not encoded again: a save's
    cost grows with the children that changed, not with the children."""
    machine = TREE[0](None, options=options(Clock(), store=MemoryStore()))
    machine.send(BossEvent.GO)
    encoded: list[str] = []
    for cls in (WORKER, CLERK[0], MIDDLE[0]):
        monkeypatch.setattr(cls._classdata()[1], "encode_text", counting(cls, encoded))

    def saved() -> list[str]:
        encoded.clear()
        machine.save()
        assert not machine._kept_field.changed  # nothing left to put in at the next save
        return sorted(encoded)

    assert len(saved()) == 8  # worker, clerk, middle and its inner worker, 4 idle workers
    machine.send(BossEvent.TOCK)  # the parent's own event
    assert saved() == []
    clerk_of(machine).send(ClerkEvent.WRITE)
    assert saved() == ["Clerk"]
    machine.children["middle"].children["inner"].send(WorkerEvent.NOISE)
    assert saved() == ["Middle", "Worker"]  # the grandchild, and its parent's own part
    assert saved() == []
    assert saved_head(machine) == fresh_head(machine)


MIXED_TREE_STEPS = st.one_of(
    st.tuples(st.just("parent"), st.sampled_from(list(BossEvent)[:6])),
    st.tuples(st.just("clerk"), st.sampled_from(list(ClerkEvent))),
    st.tuples(st.just("worker"), st.sampled_from(list(WorkerEvent)[:4])),
    st.tuples(st.just("inner"), st.sampled_from(list(WorkerEvent)[:4])),
    st.tuples(st.just("shelved"), st.sampled_from(list(WorkerEvent)[:4])),
    st.tuples(st.just("time"), st.sampled_from([1.0, 2.0, 5.0, 10.0])),
    st.tuples(st.just("restore"), st.none()),
    st.tuples(st.just("save"), st.none()),
)


def target(machine: Any, name: str) -> Any:
    """The machine a step sends to (None when it does not run)."""
    if name == "parent":
        return machine
    if name in ("inner", "shelved"):
        parent = machine.children.get("middle" if name == "inner" else "shelf")
        return None if parent is None else parent.children.get("inner")
    return machine.children.get(name)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(MIXED_TREE_STEPS, max_size=30))
def test_a_random_mix_of_changes_saves_what_encoding_afresh_writes(
    steps: list[tuple[str, Any]],
) -> None:
    clock = Clock()
    store = MemoryStore()
    machine = MIXED[0](None, options=options(clock, store=store))
    machine.send(BossEvent.GO)
    for kind, argument in steps:
        if kind == "time":
            clock.now += argument
            machine.fire_due()
        elif kind == "restore":
            machine = MIXED[0].restore(machine.snapshot(), options=options(clock, store=store))
        elif kind == "save":
            machine.save()
            assert store.load("boss-1") == machine.snapshot()
        else:
            receiver = target(machine, kind)
            if receiver is not None:
                with contextlib.suppress(InvalidTransition):
                    receiver.send(argument)
        assert saved_head(machine) == fresh_head(machine)

"""What child machines cost a parent: an event that does not touch its 10 running children, and
a save of the tree, in one process.

The parent is a parallel chart with a data model: region ``kids`` holds one state whose 10
invokes run 10 small children (a data model of a few fields, one state, no timers); region
``toggle`` flips between ``on`` and ``off`` on FLIP, with an assignment, and is what the events
drive. The same chart without the invokes is the baseline (``no children``); ``invoking, 0
running`` is the invoking chart whose ``kids`` state holds nothing yet (what the invoking chart
itself costs). Each variant is driven through ``send`` by the same FLIP stream, timed several
times, interleaved round by round; the best round is reported.

Saves (``MemoryStore``, history as records, so a save writes the head and the new records):
after one FLIP each (a new record of the parent, the children unchanged), after one PING to one
child, after a PING to every child, with 0 and 10 children, and with 10 children that each took
90 events (their newest ``child_history_limit`` records in the head) against 10 fresh ones.
Each save's head size is printed: a child's snapshot is embedded in its parent's, so the head,
and what a save encodes and writes, grows with the children and their saved records, not with
the parent's history or how many events were processed.

Tree saves: the save alone (the event before it not timed) of the parent with 1, 10 and 100
running children, after a FLIP (no child changed) or a POKE (one child took a PING), on a
MemoryStore and on SQLite (WAL, ``synchronous=NORMAL``): a save encodes the children that
changed since the last one (``statewright._tree_text``), so what grows with the children is
what the store does with the head's bytes (its checksum, and writing it).

    PYTHONPATH=runtime python bench/bench_invoke.py [--events N] [--rounds R] [--saves S]
        [--callgrind] [--callgrind-events N] [--callgrind-saves N]

With ``--callgrind`` (valgrind installed) each event variant is also counted in machine
instructions per event under ``valgrind --tool=callgrind`` (a run of N events minus a run of
none, each in a process of its own), and each tree save in instructions per save (N events each
followed by a save, minus the N events alone): counts a busy host does not move. (Under
valgrind the checksum, SHA-256, took ~29 instructions a byte: it weighs more there than in
wall time, where it is a small part of a save.)

Targets: an event to the parent that does not touch its children costs at most 1.2x the same
event with no children; a save with one child changed costs with 100 children at most 1.5x what
it costs with 10.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT)]

from statewright import (  # noqa: E402
    Assign,
    Chart,
    ChartNode,
    ChartTransition,
    Invoke,
    Machine,
    MachineOptions,
    MachineSpec,
    MemoryStore,
    Send,
    SqliteStore,
    StrEnum,
)
from statewright._data_spec import DataModel  # noqa: E402
from statewright._stores.codec import canonical  # noqa: E402

N, T = ChartNode, ChartTransition
CHILDREN = 10


class ChildState(StrEnum):
    READY = "ready"


class ChildEvent(StrEnum):
    PING = "PING"


class ChildData:
    __slots__ = ("count", "label")

    def __init__(self) -> None:
        self.count = 0
        self.label = "child"


class ParentState(StrEnum):
    HOLD = "hold"
    ON = "on"
    OFF = "off"


class ParentEvent(StrEnum):
    FLIP = "FLIP"
    POKE = "POKE"
    POKE_ALL = "POKE_ALL"


class ParentData:
    __slots__ = ("flips",)

    def __init__(self) -> None:
        self.flips = 0


def child_class() -> type[Machine[Any, Any, Any]]:
    count = Assign("count", lambda d, e, s, a: d.count + 1, "count")
    chart = Chart(
        (N("ready", "atomic", member=ChildState.READY),),
        (T(0, frozenset({ChildEvent.PING}), steps=(count,)),),
        (0,),
        on_error="event",
    )
    spec: MachineSpec[Any, Any] = MachineSpec(
        name="Child",
        version=1,
        spec_hash="0" * 64,
        state_type=ChildState,
        event_type=ChildEvent,
        initial=ChildState.READY,
        final_states=frozenset(),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        chart=chart,
        data=DataModel(ChildData, (("count", ("int",), True), ("label", ("str",), True))),
    )
    return type("ChildMachine", (Machine,), {"spec": spec})


CHILD = child_class()


def parent_class(invoking: bool, children: int = CHILDREN) -> type[Machine[Any, Any, Any]]:
    """The parent (see the module docstring), with its invokes (10, or ``children``) or
    without."""
    invokes = tuple(
        Invoke(lambda: CHILD, lambda: CHILD, f"child{i}") for i in range(children) if invoking
    )
    flips = Assign("flips", lambda d, e, s, a: d.flips + 1, "flips")
    pokes = tuple(Send("PING", "", target=f"#_child{i}") for i in range(children))
    nodes = (
        N("main", "parallel"),
        N("kids", "compound", parent=0, initial=(2,)),
        N("hold", "atomic", parent=1, member=ParentState.HOLD, invokes=invokes),
        N("toggle", "compound", parent=0, initial=(4,)),
        N("on", "atomic", parent=3, member=ParentState.ON),
        N("off", "atomic", parent=3, member=ParentState.OFF),
    )
    transitions = (
        T(4, frozenset({ParentEvent.FLIP}), targets=(5,), steps=(flips,)),
        T(5, frozenset({ParentEvent.FLIP}), targets=(4,), steps=(flips,)),
        T(2, frozenset({ParentEvent.POKE}), steps=pokes[:1] if invoking else ()),
        T(2, frozenset({ParentEvent.POKE_ALL}), steps=pokes if invoking else ()),
    )
    spec: MachineSpec[Any, Any] = MachineSpec(
        name="Parent" if invoking else "Plain",
        version=1,
        spec_hash="0" * 64,
        state_type=ParentState,
        event_type=ParentEvent,
        initial=ParentState.HOLD,
        final_states=frozenset(),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        chart=Chart(nodes, transitions, (0,), on_error="event"),
        data=DataModel(ParentData, (("flips", ("int",), True),)),
    )
    return type(spec.name + "Machine", (Machine,), {"spec": spec})


PARENT, PLAIN = parent_class(True), parent_class(False)


def idle_parent() -> Machine[Any, Any, Any]:
    """The invoking parent with no child running: its ``hold`` state's invokes failed to find
    a machine class (each is then an invoke without a child, as a failed start leaves it)."""
    broken = Invoke(lambda: None, lambda: None, "child0")
    cls = parent_class(True)
    nodes = list(cls.spec.chart.nodes)  # type: ignore[union-attr]  # a statechart's spec
    nodes[2] = N("hold", "atomic", parent=1, member=ParentState.HOLD, invokes=(broken,))
    chart = cls.spec.chart
    assert chart is not None
    spec = cls.spec
    new_spec: MachineSpec[Any, Any] = MachineSpec(
        name="Idle",
        version=1,
        spec_hash="0" * 64,
        state_type=spec.state_type,
        event_type=spec.event_type,
        initial=spec.initial,
        final_states=frozenset(),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        chart=Chart(tuple(nodes), chart.transitions, (0,), on_error="event"),
        data=spec.data,
    )
    idle = type("IdleMachine", (Machine,), {"spec": new_spec})
    machine: Machine[Any, Any, Any] = idle(None, options=MachineOptions(thread_safe=False))
    return machine


def options(**more: Any) -> MachineOptions:
    return MachineOptions(thread_safe=False, **more)


def per_event(machine: Machine[Any, Any, Any], n: int) -> float:
    send = machine.send
    flip = ParentEvent.FLIP
    gc.collect()
    start = time.perf_counter()
    for _ in range(n):
        send(flip)
    return (time.perf_counter() - start) / n


VARIANTS: dict[str, Callable[[], Machine[Any, Any, Any]]] = {
    "no children": lambda: PLAIN(None, options=options()),
    "invoking, 0 running": idle_parent,
    f"invoking, {CHILDREN} running": lambda: PARENT(None, options=options()),
}


def events(arguments: argparse.Namespace) -> None:
    variants = VARIANTS
    machines = {name: make() for name, make in variants.items()}
    assert len(machines[f"invoking, {CHILDREN} running"].children) == CHILDREN
    assert not machines["invoking, 0 running"].children
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(arguments.rounds):
        for name, machine in machines.items():
            best[name] = min(best[name], per_event(machine, arguments.events))
    base = best["no children"]
    print(f"CPython {platform.python_version()}: FLIP to the parent, best of {arguments.rounds}")
    print(f"{'variant':28} {'ns/event':>9} {'x none':>7}")
    for name, seconds in best.items():
        print(f"{name:28} {seconds * 1e9:9.0f} {seconds / base:7.3f}")
    ratio = best[f"invoking, {CHILDREN} running"] / base
    verdict = "meets" if ratio <= 1.2 else "misses"
    print(f"ratio {ratio:.3f}: {verdict} the 1.2x target")


def saves(arguments: argparse.Namespace) -> None:
    print(f"\nsaves to a MemoryStore (history as records), best of {arguments.rounds}")
    print(f"{'tree':44} {'us/save':>9} {'head bytes':>11}")
    cases: list[tuple[str, Callable[[MemoryStore], Machine[Any, Any, Any]], ParentEvent]] = [
        ("no children, after a FLIP", plain, ParentEvent.FLIP),
        (f"{CHILDREN} children, after a FLIP", fresh, ParentEvent.FLIP),
        (f"{CHILDREN} children, after a PING to one", fresh, ParentEvent.POKE),
        (f"{CHILDREN} children, after a PING to each", fresh, ParentEvent.POKE_ALL),
        (f"{CHILDREN} children with 90 records, a FLIP", worked, ParentEvent.FLIP),
    ]
    for name, make, event in cases:
        best = float("inf")
        head = 0
        for _ in range(arguments.rounds):
            machine = make(MemoryStore())
            machine.save()
            gc.collect()
            start = time.perf_counter()
            for _ in range(arguments.saves):
                machine.send(event)
                machine.save()
            best = min(best, (time.perf_counter() - start) / arguments.saves)
            head = len(json.dumps(machine._build_snapshot(None), separators=(",", ":")))
        print(f"{name:44} {best * 1e6:9.1f} {head:11d}")


def plain(store: MemoryStore) -> Machine[Any, Any, Any]:
    return PLAIN(None, options=options(store=store))


def fresh(store: MemoryStore) -> Machine[Any, Any, Any]:
    return PARENT(None, options=options(store=store))


def worked(store: MemoryStore) -> Machine[Any, Any, Any]:
    machine = fresh(store)
    for _ in range(90):
        machine.send(ParentEvent.POKE_ALL)
    return machine


#: The trees of :func:`tree_saves`: how many children, and their parent's class.
TREES = {count: parent_class(True, count) for count in (1, 10, 100)}
#: The event before each save: one that changed no child (the parent's own), or one child.
BEFORE_SAVE = {0: ParentEvent.FLIP, 1: ParentEvent.POKE}
TREE_STORES = ("memory", "sqlite")


def tree_store(name: str, folder: str) -> Any:
    """A MemoryStore, or SQLite in ``folder`` (WAL, ``synchronous=NORMAL``)."""
    if name == "memory":
        return MemoryStore()
    return SqliteStore(Path(folder) / "trees.sqlite", synchronous="NORMAL")


def tree_saves(arguments: argparse.Namespace) -> None:
    """A save alone (the event before it not timed) of a parent with 1, 10 and 100 running
    children after an event that changed none of them (FLIP, the parent's own) or one (POKE:
    a PING to one child), on a MemoryStore and on SQLite."""
    print(f"\ntree saves, the save alone, best of {arguments.rounds}")
    print(f"{'store':7} {'children':>8} {'changed':>8} {'us/save':>9} {'head bytes':>11}")
    best: dict[tuple[str, int, int], float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for store_name in TREE_STORES:
            store = tree_store(store_name, folder)
            for count, cls in TREES.items():
                for changed, event in BEFORE_SAVE.items():
                    seconds, head = float("inf"), 0
                    for _ in range(arguments.rounds):
                        machine = cls(None, options=options(store=store))
                        seconds = min(seconds, timed_saves(machine, event, arguments.saves))
                        head = len(canonical(machine._build_snapshot(None)))
                    best[store_name, count, changed] = seconds
                    print(f"{store_name:7} {count:8d} {changed:8d} {seconds * 1e6:9.1f} {head:11d}")
            if store_name != "memory":
                store.close()
    scaling(best, "us/save")


def scaling(per_save: dict[tuple[str, int, int], float], unit: str) -> None:
    """Each store's save with one child changed, 100 children against 10 (target 1.5x)."""
    for store_name in TREE_STORES:
        ratio = per_save[store_name, 100, 1] / per_save[store_name, 10, 1]
        verdict = "meets" if ratio <= 1.5 else "misses"
        print(f"{store_name}, one child changed, {unit}: 100 children / 10: {ratio:.2f}x")
        print(f"  ({verdict} the 1.5x target)")


def timed_saves(
    machine: Machine[Any, Any, Any], event: ParentEvent, saves: int, save: bool = True
) -> float:
    """The mean time of a save after ``event``, over ``saves`` of them (``save`` False: the
    events alone, what callgrind subtracts)."""
    machine.save()
    spent = 0.0
    gc.collect()
    for _ in range(saves):
        machine.send(event)
        if save:
            start = time.perf_counter()
            machine.save()
            spent += time.perf_counter() - start
    return spent / saves


def run_tree_child(store_name: str, count: int, changed: int, n: int, save: bool) -> None:
    """One tree-save variant in this process (what callgrind counts): ``n`` events, each
    followed by a save when ``save``."""
    with tempfile.TemporaryDirectory() as folder:
        store = tree_store(store_name, folder)
        machine = TREES[count](None, options=options(store=store))
        timed_saves(machine, BEFORE_SAVE[changed], 30)  # warm: the children's records slide
        timed_saves(machine, BEFORE_SAVE[changed], n, save)
        if store_name != "memory":
            store.close()


def callgrind_tree_saves(n: int) -> None:
    print(f"\ninstructions per tree save under callgrind ({n} saves, minus {n} events alone):")
    print("all, in the checksum (libcrypto) and copies (memcpy) of the head, and the others")
    columns = f"{'all':>10} {'checksum+copies':>16} {'others':>9}"
    print(f"{'store':7} {'children':>8} {'changed':>8} {columns}")
    per_save: dict[tuple[str, int, int], float] = {}
    others: dict[tuple[str, int, int], float] = {}
    for store_name in TREE_STORES:
        for count in TREES:
            for changed in BEFORE_SAVE:
                arguments = ["--tree-child", store_name, str(count), str(changed), str(n)]
                saved, alone = (instructions([*arguments, save]) for save in ("1", "0"))
                total, on_bytes = (saved[0] - alone[0]) / n, (saved[1] - alone[1]) / n
                per_save[store_name, count, changed] = total
                others[store_name, count, changed] = total - on_bytes
                print(
                    f"{store_name:7} {count:8d} {changed:8d} {total:10.0f} {on_bytes:16.0f}"
                    f" {total - on_bytes:9.0f}"
                )
    scaling(per_save, "instructions")
    scaling(others, "instructions but the checksum's and copies'")


#: The functions whose instructions are per byte of the head: the checksum and copies.
ON_BYTES = re.compile(r"libcrypto|memcpy|memmove")


def instructions(arguments: list[str]) -> tuple[int, int]:
    """The instructions this script with ``arguments`` runs under callgrind, and of those the
    ones in :data:`ON_BYTES`' functions."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        subprocess.run(
            [*command, sys.executable, __file__, *arguments], check=True, capture_output=True
        )
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), flags=re.M)
        assert found is not None
        annotated = subprocess.run(
            ["callgrind_annotate", str(out)], check=True, capture_output=True, text=True
        ).stdout
        on_bytes = sum(
            int(line.split()[0].replace(",", ""))
            for line in annotated.splitlines()
            if ON_BYTES.search(line) and line.strip()[:1].isdigit()
        )
        return int(found.group(1)), on_bytes


def run_child(variant: str, n: int) -> None:
    """One variant's events in this process (what callgrind counts)."""
    machine = VARIANTS[variant]()
    per_event(machine, 2)  # warm: the compiled send, the first copies
    if n:
        per_event(machine, n)


def callgrind(n: int) -> None:
    print(f"\ninstructions per FLIP under callgrind ({n} events, minus a 0-event run)")
    print(f"{'variant':28} {'instr/event':>12} {'x none':>7}")
    counts = {}
    for variant in VARIANTS:
        totals = [instructions(["--child", variant, str(events_run)])[0] for events_run in (n, 0)]
        counts[variant] = (totals[0] - totals[1]) / n
    base = counts["no children"]
    for variant, count in counts.items():
        print(f"{variant:28} {count:12.0f} {count / base:7.3f}")
    ratio = counts[f"invoking, {CHILDREN} running"] / base
    print(f"ratio {ratio:.3f}: {'meets' if ratio <= 1.2 else 'misses'} the 1.2x target")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--callgrind-events", type=int, default=2_000)
    parser.add_argument("--callgrind-saves", type=int, default=100)
    parser.add_argument("--child", nargs=2, metavar=("VARIANT", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--tree-child", nargs=5, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        run_child(arguments.child[0], int(arguments.child[1]))
        return
    if arguments.tree_child:
        store_name, count, changed, n, save = arguments.tree_child
        run_tree_child(store_name, int(count), int(changed), int(n), save == "1")
        return
    events(arguments)
    saves(arguments)
    tree_saves(arguments)
    if arguments.callgrind:
        callgrind(arguments.callgrind_events)
        callgrind_tree_saves(arguments.callgrind_saves)


if __name__ == "__main__":
    main()

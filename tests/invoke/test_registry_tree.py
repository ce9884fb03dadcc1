"""The registry knows the tree (#20): a registered parent's running children are reached by path
(``<instance id>/<invoke id>/...``) and listed, but they are their parent's, not instances of
their own: they are not counted as active instances, cannot be registered or removed alone, and
go with their parent when it is removed or cleaned up (``tests/invoke/trees.py`` describes the
charts)."""

from __future__ import annotations

from typing import Any

import pytest
from statewright import (
    ChildMachineError,
    Invoke,
    MachineRegistry,
    MemoryStore,
    StatewrightError,
    UnknownInstance,
)

from tests.invoke.support import FLAVOURS, act, new, run
from tests.invoke.trees import BossEvent, BossState, T, boss, middle

BOSS = boss()
MIDDLE = middle()
#: A Boss whose running state invokes a Middle (which invokes a worker, ``inner``) beside its
#: worker: a tree of depth two.
DEEP = boss(more=(Invoke(lambda: MIDDLE[0], lambda: MIDDLE[1], "middle"),))


@FLAVOURS
def test_a_registered_parent_s_running_children_are_reached_by_path(flavour: str) -> None:
    async def scenario() -> None:
        registry: MachineRegistry[Any] = MachineRegistry()
        machine = await new(DEEP, flavour)
        registry.register(machine)
        assert registry.machine_at("boss-1") is machine
        assert registry.children_of("boss-1") == {}
        with pytest.raises(UnknownInstance, match="'boss-1/worker'"):
            registry.machine_at("boss-1/worker")
        await act(machine.send(BossEvent.GO))
        worker = machine.children["worker"]
        middle_child = machine.children["middle"]
        inner = middle_child.children["inner"]
        assert registry.machine_at("boss-1/worker") is worker
        assert registry.machine_at("boss-1/middle/inner") is inner
        # the whole tree below a machine, each parent before its children, in document order
        assert registry.children_of("boss-1") == {
            "boss-1/worker": worker,
            "boss-1/middle": middle_child,
            "boss-1/middle/inner": inner,
        }
        assert list(registry.children_of("boss-1")) == [
            "boss-1/worker",
            "boss-1/middle",
            "boss-1/middle/inner",
        ]
        assert registry.children_of("boss-1/middle") == {"boss-1/middle/inner": inner}
        assert registry.children_of("boss-1/worker") == {}
        for missing in ("boss-1/nobody", "boss-1/worker/inner", "boss-2/worker", "boss-1/"):
            with pytest.raises(UnknownInstance, match=repr(missing)):
                registry.machine_at(missing)
            with pytest.raises(UnknownInstance):
                registry.children_of(missing)
        # leaving the invoking state cancels the children: their paths lead nowhere
        await act(machine.send(BossEvent.CANCEL))
        assert registry.children_of("boss-1") == {}
        with pytest.raises(UnknownInstance, match="'boss-1/worker'"):
            registry.machine_at("boss-1/worker")

    run(scenario)


@FLAVOURS
def test_children_are_not_counted_as_active_instances(flavour: str) -> None:
    async def scenario() -> None:
        registry: MachineRegistry[Any] = MachineRegistry(max_active=1)
        machine = await new(DEEP, flavour)
        registry.register(machine)
        await act(machine.send(BossEvent.GO))
        assert len(registry.children_of("boss-1")) == 3
        assert registry.list_all() == [machine]
        assert registry.list_active() == [machine]
        assert registry.active_count() == 1
        assert len(registry) == 1
        # get, `in` and len are about registered instances; a path is not one
        assert "boss-1/worker" not in registry
        assert registry.get_or_none("boss-1/worker") is None
        with pytest.raises(UnknownInstance, match="machine_at"):
            registry.get("boss-1/worker")

    run(scenario)


@FLAVOURS
def test_a_child_machine_is_not_registered_or_removed_on_its_own(flavour: str) -> None:
    async def scenario() -> None:
        registry: MachineRegistry[Any] = MachineRegistry()
        machine = await new(DEEP, flavour)
        registry.register(machine)
        await act(machine.send(BossEvent.GO))
        worker = machine.children["worker"]
        inner = machine.children["middle"].children["inner"]
        for child, path in ((worker, "boss-1/worker"), (inner, "boss-1/middle/inner")):
            with pytest.raises(ChildMachineError, match=f"child machine {path!r}") as info:
                registry.register(child)
            assert isinstance(info.value, StatewrightError) and isinstance(info.value, ValueError)
            assert "saved in its parent's snapshot" in str(info.value)
            with pytest.raises(ChildMachineError, match=f"child machine {path!r}"):
                registry.remove(path)
        assert len(registry) == 1 and registry.machine_at("boss-1/worker") is worker
        # a child its parent cancelled is still no machine of its own (its snapshot would lack
        # the context, which is its parent's)
        await act(machine.send(BossEvent.CANCEL))
        with pytest.raises(ChildMachineError, match="a child machine"):
            registry.register(worker)
        assert registry.list_all() == [machine]

    run(scenario)


@FLAVOURS
def test_removing_or_cleaning_up_a_parent_takes_its_children(flavour: str) -> None:
    to_end = T(1, frozenset({BossEvent.NOISE}), targets=(3,))  # running -> end (final)

    async def scenario() -> None:
        store = MemoryStore()
        registry: MachineRegistry[Any] = MachineRegistry(store=store)
        machine = await new(DEEP, flavour)
        other = await new(boss(extra=(to_end,)), flavour, instance_id="boss-2")
        registry.register(machine)
        registry.register(other)
        await act(machine.send(BossEvent.GO))
        await act(other.send(BossEvent.GO))
        assert set(registry.children_of("boss-2")) == {"boss-2/worker"}
        for each in (machine, other):
            await act(each.save(store))
        assert store.list_ids() == ["boss-1", "boss-2"]  # the children are in their rows
        # a parent that reaches a final state has left its invoking state: cleaned up with it
        assert await act(other.send(BossEvent.NOISE)) is BossState.END
        assert registry.cleanup_terminal(delete_stored=True) == ["boss-2"]
        with pytest.raises(UnknownInstance, match="'boss-2/worker'"):
            registry.machine_at("boss-2/worker")
        # removing a running parent takes its running children out of the registry's view,
        # and deleting its row deletes them
        assert registry.remove("boss-1", delete_stored=True) is machine
        for path in ("boss-1/worker", "boss-1/middle/inner"):
            with pytest.raises(UnknownInstance, match=repr(path)):
                registry.machine_at(path)
        assert store.list_ids() == []

    run(scenario)


@FLAVOURS
def test_a_child_is_not_saved_on_its_own(flavour: str) -> None:
    """A child's row would be a snapshot without its context that no parent knows of."""

    async def scenario() -> None:
        store = MemoryStore()
        machine = await new(DEEP, flavour, store=store)
        await act(machine.send(BossEvent.GO))
        worker = machine.children["worker"]
        for target in (None, store):
            with pytest.raises(ChildMachineError, match="save its parent"):
                await act(worker.save(target))
        assert store.list_ids() == []
        await act(machine.save())
        assert store.list_ids() == [machine.instance_id]

    run(scenario)

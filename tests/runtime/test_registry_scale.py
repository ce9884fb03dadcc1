"""MachineRegistry.register costs O(1) amortized, counted by the work it does (is_final reads).

Registering used to count every active machine on each call: 20,000 registrations took 16 s.
Here no wall time is asserted: a machine class counts its ``is_final`` reads, and the reads per
registration must stay bounded whatever the number of machines (bench/bench_registry.py times
it). The ``max_active`` warning still comes: when the active machines first exceed the limit,
again when they double, and soon after they exceed it again following a cleanup.
"""

from __future__ import annotations

import itertools
import logging
from typing import ClassVar

import pytest
from statewright import MachineOptions, MachineRegistry

from tests.runtime.machines import PlainTaskMachine, TaskEvent


class CountingMachine(PlainTaskMachine):
    """Counts how often anything asks whether an instance is final."""

    reads: ClassVar[int] = 0

    @property
    def is_final(self) -> bool:
        CountingMachine.reads += 1
        return super().is_final


def _machines(count: int, start: int = 0) -> list[CountingMachine]:
    return [
        CountingMachine(None, options=MachineOptions(instance_id=f"m{index}", history_limit=0))
        for index in range(start, start + count)
    ]


def _reads_per_registration(
    registry: MachineRegistry[CountingMachine], machines: list[CountingMachine]
) -> float:
    CountingMachine.reads = 0
    for machine in machines:
        registry.register(machine)
    return CountingMachine.reads / len(machines)


@pytest.mark.parametrize("max_active", [None, 0, 1, 100, 5_000])
def test_registering_reads_a_bounded_number_of_machines(max_active: int | None) -> None:
    small = _reads_per_registration(MachineRegistry(max_active=max_active), _machines(1_000))
    large = _reads_per_registration(MachineRegistry(max_active=max_active), _machines(10_000))
    assert small <= 4 and large <= 4, (small, large)
    if max_active is None:
        assert large == 0


def test_machines_finishing_while_others_register_stay_linear() -> None:
    """A steady state just under the limit: each new machine finishes an old one."""
    registry: MachineRegistry[CountingMachine] = MachineRegistry(max_active=1_000)
    machines = _machines(10_000)
    CountingMachine.reads = 0
    for index, machine in enumerate(machines):
        registry.register(machine)
        if index >= 999:
            machines[index - 999].send(TaskEvent.CANCEL)
    assert CountingMachine.reads / len(machines) <= 4


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if "max_active" in record.message]


def test_the_warning_comes_when_the_limit_is_exceeded_and_when_it_doubles(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry: MachineRegistry[CountingMachine] = MachineRegistry(max_active=10)
    with caplog.at_level(logging.WARNING, logger="statewright"):
        for machine in _machines(10):
            registry.register(machine)
        assert _warnings(caplog) == []
        registry.register(_machines(1, start=10)[0])
        assert _warnings(caplog) == [
            "registry holds 11 active machines, more than max_active=10 "
            "(finished instances not cleaned up?)"
        ]
        for machine in _machines(1_000, start=11):
            registry.register(machine)
    counts = [int(message.split()[2]) for message in _warnings(caplog)]
    assert counts == sorted(counts) and len(counts) <= 10
    assert all(later >= 2 * earlier for earlier, later in itertools.pairwise(counts))


def test_finished_machines_do_not_count_and_a_cleanup_rearms_the_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry: MachineRegistry[CountingMachine] = MachineRegistry(max_active=10)
    machines = _machines(100)
    with caplog.at_level(logging.WARNING, logger="statewright"):
        for machine in machines:
            machine.send(TaskEvent.CANCEL)  # final: not active
            registry.register(machine)
        assert _warnings(caplog) == []
        assert len(registry.cleanup_terminal()) == 100
        for machine in _machines(11, start=100):
            registry.register(machine)
    assert _warnings(caplog) == [
        "registry holds 11 active machines, more than max_active=10 "
        "(finished instances not cleaned up?)"
    ]


def test_a_limit_set_later_counts_the_machines_registered_before(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry: MachineRegistry[CountingMachine] = MachineRegistry()
    for machine in _machines(20):
        registry.register(machine)
    registry.max_active = 10
    with caplog.at_level(logging.WARNING, logger="statewright"):
        registry.register(_machines(1, start=20)[0])
    assert _warnings(caplog) == [
        "registry holds 21 active machines, more than max_active=10 "
        "(finished instances not cleaned up?)"
    ]

"""What ``compatible`` promises, held against the runtime: for every change of the table whose
changes are all compatible, an instance the old module saved (in its initial state: the chart's
with its ``after`` timer pending and its data) restores under the new module, once the old
spec's fingerprint is declared compatible (``MachineOptions.compatible_fingerprints``); without
that, one that kept the version is refused (another spec at the same version).

Compatible kinds not yet so at run time are expected to fail here (strict xfails) until they
are (then they move out of :data:`NOT_YET`). None is left: a raised version alone needs no
migration from a compatible fingerprint, and a data field added with an initial value is given
it."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from statewright import MachineOptions, SnapshotError
from statewright_compiler.pipeline import module_source

from tests.deploy.bases import compile_text, edited
from tests.deploy.test_change_kinds import CASES, Case

NOT_YET: dict[str, str] = {}
COMPATIBLE = [case for case in CASES if {c for c, _, _ in case.expected} == {"compatible"}]


class AnyHandlers:
    """Handlers whose every guard holds and every action does nothing."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *arguments, **keywords: True


def _machine_class(text: str, name: str) -> Any:
    machine = compile_text(text)
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses and typing resolve names through sys.modules
    try:
        exec(compile(module_source(machine), f"<{name}>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return getattr(module, f"{machine.name}Machine")


def _saved(case: Case) -> tuple[Any, dict[str, Any]]:
    """The new module's class, and what the old module saved."""
    old = _machine_class(case.base, "deploy_old")
    new = _machine_class(edited(case.base, case.edits), "deploy_new")
    return new, old(None, AnyHandlers()).snapshot()


def _restore(case: Case) -> None:
    new, snapshot = _saved(case)
    options = MachineOptions(compatible_fingerprints={snapshot["spec_hash"]})
    new.restore(snapshot, AnyHandlers(), options=options)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case,
            marks=[pytest.mark.xfail(raises=SnapshotError, strict=True, reason=NOT_YET[case.name])]
            if case.name in NOT_YET
            else [],
        )
        for case in COMPATIBLE
    ],
    ids=[case.name for case in COMPATIBLE],
)
def test_a_compatible_change_restores_what_the_old_module_saved(case: Case) -> None:
    _restore(case)


#: Kinds that change documentation only: not part of the fingerprint, nothing to declare.
DOCUMENTATION = {"description-changed", "label-changed", "metadata-changed"}


def _documentation_only(case: Case) -> bool:
    return {kind for _, kind, _ in case.expected} <= DOCUMENTATION


@pytest.mark.parametrize(
    "case", [case for case in COMPATIBLE if _documentation_only(case)], ids=lambda case: case.name
)
def test_a_documentation_change_restores_with_nothing_declared(case: Case) -> None:
    new, snapshot = _saved(case)
    new.restore(snapshot, AnyHandlers())


@pytest.mark.parametrize(
    "case",
    [c for c in COMPATIBLE if "version raised" not in c.name and not _documentation_only(c)],
    ids=lambda case: case.name,
)
def test_a_compatible_change_that_kept_the_version_is_refused_unless_declared(case: Case) -> None:
    new, snapshot = _saved(case)
    with pytest.raises(SnapshotError) as info:
        new.restore(snapshot, AnyHandlers())
    assert info.value.field == "spec_hash"
    assert "compatible_fingerprints" in str(info.value)


def test_the_table_has_compatible_changes_of_both_machines() -> None:
    """Control: the check above sees flat and chart changes, the not-yet ones among them."""
    assert len(COMPATIBLE) >= 25
    assert set(NOT_YET) <= {case.name for case in COMPATIBLE}
    assert {"version raised", "data field added with a default"} <= {c.name for c in COMPATIBLE}
    assert sum(map(_documentation_only, COMPATIBLE)) >= 2

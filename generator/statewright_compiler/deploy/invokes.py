"""A state's child machines compared (``invoke``): what a stored parent in that state would
notice.

A stored parent embeds each running child's snapshot under its invoke id, with the invoke's
position in its state (``children``); restoring rebuilds each child with its invoke's machine
class and refuses a tree that class's spec cannot hold (an invoking state without its child, a
child of an invoke that is gone). So an invoke added to, removed from or moved within a state,
one whose id or child machine changed, strands the stored parents in that state: a migration
must start, drop or move their children. What applies only when a child starts or hears from its
parent (``params``, ``id_location``, ``autoforward``, ``finalize``) leaves running children as
they are. A change *inside* the child's spec is the child's own diff: its snapshots, embedded in
the parent's, restore under the child's class with the same fingerprint and version rules.
"""

from __future__ import annotations

from statewright_compiler.deploy.changes import Change, change
from statewright_compiler.deploy.plain import plain
from statewright_compiler.model import Invoke, State

__all__ = ["compare_invokes"]


def compare_invokes(old: State, new: State) -> list[Change]:
    """The changes of ``old``'s invokes in ``new`` (the same state, both specs), by position."""
    path, name = f"states.{old.name}.invoke", old.name
    found: list[Change] = []
    for index, (before, after) in enumerate(zip(old.invokes, new.invokes, strict=False)):
        where = f"{path}[{index}]"
        if (before.id, before.machine) != (after.id, after.machine):
            found.append(
                change(
                    "invoke-child-changed",
                    where,
                    f"{name}'s child {_shown(before)} is now {_shown(after)}: stored parents in "
                    f"{name} hold the old one",
                )
            )
        elif _start_and_hearing(before) != _start_and_hearing(after):
            found.append(
                change(
                    "invoke-changed",
                    where,
                    f"how {name} starts or hears {_shown(after)} changed (params, id_location, "
                    "autoforward or finalize): running children go on as they are",
                )
            )
    for index in range(len(new.invokes), len(old.invokes)):
        message = f"{name} no longer runs {_shown(old.invokes[index])}: stored parents hold it"
        found.append(change("invoke-removed", f"{path}[{index}]", message))
    for index in range(len(old.invokes), len(new.invokes)):
        message = f"{name} now runs {_shown(new.invokes[index])}: stored parents in it do not"
        found.append(change("invoke-added", f"{path}[{index}]", message))
    return found


def _shown(invoke: Invoke) -> str:
    return f"{invoke.machine.text}" + (f" ({invoke.id})" if invoke.id else "")


def _start_and_hearing(invoke: Invoke) -> object:
    return plain((invoke.id_location, invoke.params, invoke.autoforward, invoke.finalize))

"""``statewright diff OLD NEW --stub``: the skeleton of the migration from the old spec version to
the new one, typed on both sides, computed here and printed by ``templates/migration.py.jinja``.

The skeleton is three functions for :func:`statewright.migrate_snapshot` and the migration that
calls it. ``state`` and ``spec_timer`` take the old spec's states and pending-timer ids (a
``Literal`` of each) and return the new spec's, with one ``match`` arm per state or timer that
is gone, renamed or means something else now, then one arm for all the others (kept), then
``assert_never``: an arm deleted by mistake, or a state the old spec has that no arm names, is a
mypy error. ``data`` takes the old data (a ``TypedDict`` of the old fields' types) and returns
the new (one of the new types), field by field. What the author must decide is written ``...``
with a comment saying why, which mypy reports until it is replaced (``return ...`` is no state;
``...`` is no ``list[str]``); a likely rename (``state-renamed?``) is filled in, for the author
to confirm. Everything the template prints is computed here, as Python literals (``repr``).
"""

from __future__ import annotations

import shlex
import textwrap
from dataclasses import dataclass
from typing import Final

from statewright_compiler.codegen.formatter import WIDTH, format_source
from statewright_compiler.codegen.jinja_env import template_environment
from statewright_compiler.deploy.changes import Change
from statewright_compiler.deploy.diff import SpecDiff
from statewright_compiler.deploy.states import StateMatch, compare_states
from statewright_compiler.deploy.timers import after_timers, delayed_sends
from statewright_compiler.model import DataField, Machine
from statewright_compiler.spec.literals import comment_text, string_literal, value_literal

__all__ = ["migration_stub"]


@dataclass(frozen=True)
class Arm:
    """One ``case``: the old names it matches (as literals), what it returns, and the
    comment lines above it (wrapped)."""

    pattern: str
    body: str
    comments: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "comments", _wrapped(self.comments))


@dataclass(frozen=True)
class Item:
    """One entry of the new data: its key (a literal), its value, the comment lines above it
    (wrapped)."""

    key: str
    value: str
    comments: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "comments", _wrapped(self.comments))


def _literal(names: list[str]) -> str:
    return f"Literal[{', '.join(map(string_literal, names))}]"


def _pattern(names: list[str]) -> str:
    return " | ".join(map(string_literal, names))


#: The width of a comment line in a ``match`` (the formatter leaves comments as they are).
_COMMENT_WIDTH: Final = WIDTH - len("        # ")


def _wrapped(lines: tuple[str, ...]) -> tuple[str, ...]:
    """Comment lines of at most :data:`_COMMENT_WIDTH` characters, on one line each."""
    return tuple(
        part
        for line in lines
        for part in textwrap.wrap(
            comment_text(" ".join(line.split())), _COMMENT_WIDTH, break_long_words=False
        )
    )


def _why(changes: dict[str, list[Change]], path: str) -> tuple[str, ...]:
    return tuple(f"{change.kind}: {change.message}" for change in changes.get(path, []))


def _state_arms(diff: SpecDiff, match: StateMatch, changes: dict[str, list[Change]]) -> list[Arm]:
    arms: list[Arm] = []
    kept: list[str] = []
    for state in diff.old.states:
        name, path = state.name, f"states.{state.name}"
        if name in match.renamed:
            renamed = string_literal(match.renamed[name])
            arms.append(Arm(string_literal(name), f"return {renamed}", _why(changes, path)))
        elif name in match.gone:
            why = (*_why(changes, path), f"the state an instance stored in {name} is in now")
            arms.append(Arm(string_literal(name), "return ...", why))
        else:
            kept.append(name)
    if kept:
        arms.append(Arm(_pattern(kept), "return old", ("the same in both",)))
    return arms


def _timer_ids(machine: Machine) -> list[str]:
    """What a pending timer of ``machine`` is stored under: each ``after`` timer's id, each
    delayed send's id (sends without one get ids the machine makes up)."""
    return sorted({*after_timers(machine), *delayed_sends(machine)})


def _timer_arms(diff: SpecDiff, match: StateMatch, changes: dict[str, list[Change]]) -> list[Arm]:
    new_ids = set(_timer_ids(diff.new))
    arms: list[Arm] = []
    kept: list[str] = []
    owners = {timer_id: state for timer_id, (state, _) in after_timers(diff.old).items()}
    for timer_id in _timer_ids(diff.old):
        owner = owners.get(timer_id, "")
        why = _why(changes, timer_id) + _why(changes, f"send.{timer_id}")
        if owner in match.renamed:
            moved = f"after.{match.renamed[owner]}.{timer_id.rpartition('.')[2]}"
            if moved in new_ids:
                comment = f"its state {owner} looks renamed to {match.renamed[owner]}"
                body = f"return {string_literal(moved)}"
                arms.append(Arm(string_literal(timer_id), body, (comment,)))
                continue
        if owner in match.gone:
            why = (*why, f"its state {owner} is gone")
        if why or timer_id not in new_ids:
            decide = "keep it (return old), move it (return another id) or drop it (None)"
            arms.append(Arm(string_literal(timer_id), "return ...", (*why, decide)))
        else:
            kept.append(timer_id)
    if kept:
        arms.append(Arm(_pattern(kept), "return old", ("the same in both",)))
    return arms


def _annotation(field: DataField) -> str:
    """The field's type in a ``TypedDict`` of the stored data (JSON: a type of ``[imports]``
    is stored in a form of its own, typed ``Any``)."""
    return "Any" if field.imported_names else field.annotation


def _data_items(diff: SpecDiff, changes: dict[str, list[Change]]) -> tuple[list[Item], list[str]]:
    """The new data's entries, and a comment line per field that is gone."""
    before = {field.name: field for field in diff.old.data}
    items: list[Item] = []
    for field in diff.new.data:
        old = before.get(field.name)
        path = f"states.{field.state}.data.{field.name}" if field.state else f"data.{field.name}"
        why = _why(changes, path)
        kinds = {change.kind for change in changes.get(path, [])}
        key = string_literal(field.name)
        if old is not None and "data-field-retyped" not in kinds:
            items.append(Item(key, f"old[{key}]", why))
        elif old is None and field.expr is None:
            items.append(Item(key, value_literal(field.initial), (*why, "its initial value")))
        else:
            items.append(Item(key, "...", why or ("its value now",)))
    after = {field.name for field in diff.new.data}
    gone = [f"{name} ({before[name].annotation}) is gone" for name in before if name not in after]
    return items, list(_wrapped(tuple(gone)))


def _typing_names(diff: SpecDiff, timers: bool) -> list[str]:
    names = {"Any", "Final", "Literal"}
    if timers:
        names |= {"cast", "get_args"}
    if diff.old.data or diff.new.data:
        names.add("TypedDict")
    for field in (*diff.old.data, *diff.new.data):
        if not field.imported_names:
            names.update(field.typing_names)
    return sorted(names, key=lambda name: (not name[0].isupper(), name))


def _command(old: str, new: str) -> str:
    """The command that wrote the stub, for a comment: one line, each side quoted."""
    sides = (shlex.quote(side.replace("\n", " ").replace("\r", " ")) for side in (old, new))
    return f"statewright diff {' '.join(sides)} --stub"


def migration_stub(diff: SpecDiff, old_source: str, new_source: str) -> str:
    """The migration skeleton for ``diff`` (module text), as the module docstring says."""
    _, match = compare_states(diff.old, diff.new)
    changes: dict[str, list[Change]] = {}
    for change in diff.changes:
        changes.setdefault(change.path, []).append(change)
    timers = bool(_timer_ids(diff.old))
    data = bool(diff.old.data or diff.new.data)
    items, gone = _data_items(diff, changes) if data else ([], [])
    text = (
        template_environment()
        .get_template("migration.py.jinja")
        .render(
            machine=diff.new.name,
            old_version=diff.old.version,
            new_version=diff.new.version,
            command=_command(old_source, new_source),
            typing_names=_typing_names(diff, timers),
            old_states=_literal([state.name for state in diff.old.states]),
            new_states=_literal([state.name for state in diff.new.states]),
            state_arms=_state_arms(diff, match, changes),
            timers=timers,
            old_timers=_literal(_timer_ids(diff.old)) if timers else "",
            new_timers=_literal(_timer_ids(diff.new)) if _timer_ids(diff.new) else "",
            timer_arms=_timer_arms(diff, match, changes) if timers else [],
            data=data,
            old_fields=[(field.name, _annotation(field)) for field in diff.old.data],
            new_fields=[(field.name, _annotation(field)) for field in diff.new.data],
            data_items=items,
            data_gone=gone,
        )
    )
    return format_source(text)

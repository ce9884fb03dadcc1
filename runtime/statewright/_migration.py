"""Typed migrations: a snapshot of one spec version carried to the next by three functions,
typed on both sides (``statewright diff OLD NEW --stub`` writes them): the state a stored
instance in each old state is in now, the id each pending timer has now (or none: dropped),
and the data as the new spec types it. :func:`migrate_snapshot` applies them wherever a snapshot
names what they map, so a migration is those three functions and one call::

    def migrate(snapshot: dict[str, Any]) -> dict[str, Any]:
        return migrate_snapshot(snapshot, state=state, timer=timer, data=data)

    options = MachineOptions(migrations={1: migrate})

Where a snapshot names states: ``state`` and ``previous``, each count's and each history
record's source and target, a statechart's active states, what its history states remember
(and the history states themselves), the states late binding initialized, the state each
running child machine was started by (and a made-up invoke id, which begins with it); an
``after`` timer's
id and event name its state (``after.<state>.<key>``), so a renamed state renames them too in
counts and history, and in pending timers unless ``timer`` maps them: it sees each pending
timer's id as the old spec named it and gives the new one. ``data`` sees the old data (a field
unset when saved is absent). The result is checked on restore like any
snapshot (:mod:`statewright._snapshot_decode`): a migration that leaves something the new spec
does not have is a :class:`SnapshotError`, and the stored row is untouched (restoring never
writes; the instance is saved migrated by its next save).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["migrate_snapshot"]


def migrate_snapshot(
    snapshot: Mapping[str, Any],
    *,
    state: Callable[[Any], str] | None = None,
    timer: Callable[[Any], str | None] | None = None,
    data: Callable[[Any], Mapping[str, object]] | None = None,
) -> dict[str, Any]:
    """A copy of ``snapshot`` with every state mapped by ``state``, every pending timer by
    ``timer`` (None drops it) and the data by ``data`` (see the module); each one not given
    leaves its part as it is. A function that returns no string (a stub's unfilled ``...``)
    is a :class:`TypeError` naming what it was given."""
    migrated: dict[str, Any] = copy.deepcopy(dict(snapshot))
    chart = migrated.get("chart")
    if timer is not None and type(chart) is dict:
        chart["timers"] = _timers(chart.get("timers", []), timer)
    if state is not None:  # pending timers mapped by ``timer`` have their new ids already
        _rename_states(migrated, _checked(state, "state"), timers=timer is None)
    if data is not None and type(migrated.get("data")) is dict:
        migrated["data"] = dict(data(migrated["data"]))
    return migrated


def _checked(function: Callable[[Any], Any], what: str) -> Callable[[Any], str]:
    """``function``, memoized, whose answers must be strings."""
    answers: dict[str, str] = {}

    def mapped(old: str) -> str:
        if old not in answers:
            new = function(old)
            if type(new) is not str:
                raise TypeError(f"{what}({old!r}) returned {new!r:.40}, not a name")
            answers[old] = new
        return answers[old]

    return mapped


def _timers(timers: Any, timer: Callable[[Any], str | None]) -> Any:
    """The pending timers under their new ids (an ``after`` timer's event is its id)."""
    if type(timers) is not list:
        return timers
    kept = []
    for pending in timers:
        old = pending.get("id") if type(pending) is dict else None
        if type(old) is not str:
            kept.append(pending)
            continue
        new = timer(old)
        if new is None:
            continue
        if type(new) is not str:
            raise TypeError(f"timer({old!r}) returned {new!r:.40}, not an id or None")
        event = new if pending.get("event") == old else pending.get("event")
        kept.append(dict(pending, id=new, event=event))
    return kept


def _rename_states(snapshot: dict[str, Any], name: Callable[[str], str], *, timers: bool) -> None:
    def state(value: Any) -> Any:
        return name(value) if type(value) is str else value

    def event(value: Any) -> Any:  # after.<state>.<key>: the timer of a renamed state
        if type(value) is not str or not value.startswith("after."):
            return value
        owner, dot, key = value[len("after.") :].rpartition(".")
        return f"after.{name(owner)}.{key}" if dot and owner else value

    snapshot["state"], snapshot["previous"] = (
        state(snapshot.get("state")),
        state(snapshot.get("previous")),
    )
    for count in snapshot.get("counts") or []:
        if type(count) is list and len(count) == 4:
            count[0], count[1], count[2] = state(count[0]), event(count[1]), state(count[2])
    for record in snapshot.get("history") or []:
        if type(record) is dict:
            for key, rename in (("from", state), ("event", event), ("to", state)):
                if key in record:
                    record[key] = rename(record[key])
    chart = snapshot.get("chart")
    if type(chart) is not dict:
        return
    for key in ("active", "initialized"):
        if type(chart.get(key)) is list:
            chart[key] = [state(item) for item in chart[key]]
    if type(chart.get("memory")) is dict:
        chart["memory"] = {
            state(history): [state(item) for item in held] if type(held) is list else held
            for history, held in chart["memory"].items()
        }
    for pending in chart.get("timers") or [] if timers else []:
        if type(pending) is dict:
            pending["id"], pending["event"] = event(pending.get("id")), event(pending.get("event"))
    _rename_children(snapshot, chart, state)


def _rename_children(
    snapshot: dict[str, Any], chart: dict[str, Any], state: Callable[[Any], Any]
) -> None:
    """A parent's running children: each one's invoking state, and a made-up invoke id
    (``<state>.<16 hex digits>``, the ``done.invoke.<state>`` its parent hears) with it, in the
    ``children`` field and in the messages they sent that wait in the parent's timers."""

    def invokeid(value: Any) -> Any:
        if type(value) is not str:
            return value
        owner, dot, tail = value.rpartition(".")
        made_up = dot and len(tail) == 16 and all(c in "0123456789abcdef" for c in tail)
        return f"{state(owner)}.{tail}" if made_up and owner else value

    children = snapshot.get("children")
    if type(children) is dict:
        renamed = {}
        for key, entry in children.items():
            if type(entry) is dict:
                entry["state"] = state(entry.get("state"))
            renamed[invokeid(key)] = entry
        snapshot["children"] = renamed
    for pending in chart.get("timers") or []:
        if type(pending) is dict and "invokeid" in pending:
            pending["invokeid"] = invokeid(pending["invokeid"])

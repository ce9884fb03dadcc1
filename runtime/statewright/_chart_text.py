"""A chart's part of a save's canonical text, written from its running state.

What a save hands a built-in store is canonical JSON text (statewright._snapshot_text); a
chart's part is most of a head, and changes at every event. Building the dict
:func:`~statewright._chart_snapshot.encode_chart` builds and encoding it writes each state's
name twice over; here the text is written from the running state directly, byte for byte what
the dict encodes to (``tests/runtime/test_save_text.py`` and the chart fuzz tests hold them side
by side), with the timers' earliest due time for the stores' due-timer index. It is written in
two parts, cut where the save's time goes as the chart's ``saved_at``: a tree's children each
keep theirs from save to save, and a save joins them with its time (statewright._tree_text).
Imported by a chart's first save.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii as _string
from typing import TYPE_CHECKING

from statewright._chart_snapshot import late_fields
from statewright._stores.codec import canonical
from statewright._timer_snapshot import timer_json

if TYPE_CHECKING:
    from statewright._chart_state import ChartState
    from statewright._chart_tables import ChartTables

__all__ = ["chart_text"]


def chart_text(engine: ChartTables, state: ChartState) -> tuple[str, str, float | None]:
    """The canonical text of :func:`~statewright._chart_snapshot.encode_chart`'s dict (what a
    save writes: statewright._snapshot_text), written from its parts, before and after the value
    of its ``saved_at``; and when its earliest ``fire`` timer is due (what
    ``statewright._stores.codec.earliest_due`` finds in it)."""
    names = engine.names
    active = ",".join([_string(names[node]) for node in sorted(state.active)])
    late = ""
    if engine.late_nodes:  # "given" and "initialized" sort between "finished" and "memory"
        late = "".join(
            f',"{key}":{canonical(value)}'
            for key, value in sorted(late_fields(engine, state).items())
        )
    memory = state.memory
    queue = state.queue
    timers = state.timers
    finished = state.finished
    before = (
        '{"active":[',
        active,
        '],"finished":',
        "true" if finished is True else "false" if finished is False else canonical(finished),
        late,
        ',"memory":',
        canonical(
            {
                names[history]: [names[node] for node in remembered]
                for history, remembered in memory.items()
            }
        )
        if memory
        else "{}",
        ',"queue":',
        canonical([[str(event), dict(payload)] for event, payload, _ in queue]) if queue else "[]",
        ',"saved_at":',
    )
    if not timers:
        return "".join(before), ',"timers":[]}', None
    written = canonical([timer_json(timer_id, pending) for timer_id, pending in timers.items()])
    after = f',"timers":{written}}}'
    due = [
        pending.due
        for pending in timers.values()
        if pending.on_restore == "fire" and type(pending.due) in (int, float)
    ]
    return "".join(before), after, float(min(due)) if due else None

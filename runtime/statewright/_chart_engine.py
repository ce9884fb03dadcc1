"""The statechart engine: what a machine asks of its engine (:class:`~statewright._engine.Engine`,
the same questions :class:`~statewright._flat.FlatEngine` answers), answered by SCXML's algorithm
(:class:`~statewright._chart.ChartAlgorithm`).

One external event is one macrostep on a copy of the chart's running state
(:class:`~statewright._chart_state.ChartState`), which the machine keeps only when the whole
macrostep succeeded; a discarded copy undoes what it assigned to the machine's data. An action
that fails while a state with an error handler is active runs the error handler's macrostep
instead (``ERROR_ROUTE``) from the state before. The machine reports the first active leaf in
document order as its ``state``; snapshots carry the whole running state
(:mod:`statewright._chart_snapshot`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any

from statewright._chart_plans import ChartPlans
from statewright._chart_spec import ERROR_ROUTE, Chart
from statewright._chart_state import ChartState, Pending
from statewright._engine import Outcome, Request
from statewright._errors import ActionFailed
from statewright._first_call import on_first_call

if TYPE_CHECKING:
    from statewright._data_spec import DataModel
    from statewright._snapshot_decode import Decoded
    from statewright._table import Table

__all__ = ["ChartEngine"]


class ChartEngine(ChartPlans):
    """A statechart's engine, built once per machine class (with its table's ``counters``: see
    :mod:`statewright._chart_plans`)."""

    def __init__(
        self,
        chart: Chart,
        events_by_value: Mapping[str, Any],
        allowed_by_leaf: Mapping[Any, frozenset[Any]],
        data: DataModel | None = None,
        name: str = "",
        payloads: Mapping[Any, tuple[tuple[str, tuple[Any, ...], bool], ...]] | None = None,
        counters: Mapping[tuple[Any, Any, Any], int] | None = None,
    ) -> None:
        super().__init__(chart, events_by_value, data, payloads, counters)
        #: The machine's name (``_name``).
        self.name = name
        #: Each leaf state's events: its transitions' and its ancestors' (the machine's table).
        self.allowed_by_leaf = allowed_by_leaf

    def initial(
        self, clock: Callable[[], float], session: str = "", given: Mapping[str, Any] | None = None
    ) -> ChartState:
        """The chart's state before the initial configuration is entered: with data-model
        content, a fresh data object (the data model's ``factory``) holding copies of the
        ``given`` initial data (checked: :func:`~statewright._data_values.initial_data`),
        whose initializers will not run, and the system variables of ``session`` (the instance
        id)."""
        if not self.expressive:
            return ChartState(clock=clock)
        from statewright._chart_state import InvokingChartState, ModelChartState
        from statewright._data_state import DataState
        from statewright._event_info import System

        kind = InvokingChartState if self.invoking else ModelChartState
        model = self.data_model
        data = None if model is None else model.factory()
        if not given:
            return kind(DataState(data, System(session, self.name)), clock=clock)
        from statewright._data_values import stored

        for name, value in given.items():
            setattr(data, name, stored(value))  # each start its own copy
        system = System(session, self.name)
        return kind(DataState(data, system, given=frozenset(given)), clock=clock)

    def step(
        self,
        state: Any,
        previous: Any,
        chart: ChartState,
        member: Any,
        payload: Mapping[str, Any],
        clock: Callable[[], float] | None,
        now: float | None = None,
        sent: Pending | None = None,
    ) -> Generator[Request, Any, Outcome | str]:
        """One external event as a macrostep on a copy of ``chart``: its outcome, or the reason
        no transition took it. An action that fails while a state with an error handler is
        active runs the error handler's macrostep instead (``ERROR_ROUTE``; when that fails too, the
        event fails naming itself and its state, as a flat machine's does); ``clock`` (None when
        nothing keeps the time) asks for the macrostep's time, which is ``now`` when given (a
        timer's due time: :mod:`statewright._timers`) and else the clock's first reading.
        ``sent`` is the timer that fired it, if one did (its data and send id). A copy that is
        discarded, whatever ends it, undoes its assignments to the data. The event's plan
        from here is worked out first, if it has none yet (:mod:`statewright._chart_plans`)."""
        if self.planned:
            self.learn(chart, member)
        working = chart.copy(now)
        error: str | None = None
        try:
            taken = yield from self.handle(working, member, payload, sent)
        except ActionFailed as failure:  # an error route, or the failure as it is
            working.rollback()
            failed = working.selected
            where = self.describe(chart)  # where the event found the machine, which stays there
            working = chart.copy(now)
            if working.model is not None:  # the route sees the event that failed
                working.model.current = self.external_info(working, member, payload, sent)
            try:
                taken = yield from self.handle(working, ERROR_ROUTE, payload)
            except ActionFailed as second:  # the handler failed too: the event fails as sent
                working.rollback()
                raise ActionFailed(where, failure.event, second.action, second.error) from (
                    failure.error
                )
            except BaseException:
                working.rollback()
                raise
            if taken is None:
                working.rollback()
                raise ActionFailed(where, failure.event, failure.action, failure.error) from (
                    failure.error
                )
            error = f"{failure.action}: {type(failure.error).__name__}: {failure.error}"
            taken.insert(0, (member, failed[0] if failed else ()))
        except BaseException:  # a guard, a loop, the clock, the driver closing the step
            working.rollback()
            raise
        if taken is None:
            working.rollback()
            if member in self.allowed(state, chart):
                return "no guard passed"
            return "the state is final" if chart.finished else ""
        checkpointed = self.checkpointed
        checkpoint = bool(checkpointed) and any(
            index in checkpointed for _, indexes in taken for index in indexes
        )
        stamp = None if clock is None else working.time()
        leaves = self.leaves(working)  # the first active leaf is what the machine reports
        target = self.members[leaves[0]] if leaves else state
        return target, working, error, checkpoint, stamp

    def can_take(
        self,
        state: Any,
        previous: Any,
        chart: ChartState,
        member: Any,
        payload: Mapping[str, Any],
    ) -> Generator[Request, Any, bool]:
        """Whether some transition would take ``member`` now; evaluates guards (and
        conditions) only."""
        working = chart.copy()
        if working.model is not None:
            working.model.current = self.external_info(working, member, payload, None)
        return bool((yield from self.select(working, member, payload)))

    def reported(self, chart: ChartState, default: Any) -> Any:
        """The state a machine reports: the first active leaf in document order."""
        leaves = self.leaves(chart)
        return self.members[leaves[0]] if leaves else default

    def active(self, state: Any, chart: ChartState) -> frozenset[Any]:
        """Every active leaf state (several while parallel regions are active)."""
        return frozenset(self.members[node] for node in self.leaves(chart))

    def allowed(self, state: Any, chart: ChartState) -> frozenset[Any]:
        """Events some transition of an active state (or an ancestor) takes."""
        allowed = self.allowed_by_leaf
        return frozenset().union(*(allowed[leaf] for leaf in self.active(state, chart) or {state}))

    def finished(self, state: Any, chart: ChartState) -> bool:
        return chart.finished

    def encode(self, chart: ChartState, saved_at: float) -> dict[str, Any]:
        """The ``chart`` field of a snapshot (statewright._chart_snapshot)."""
        return _encode_chart(self, chart, saved_at)

    def encode_text(self, chart: ChartState) -> tuple[str, str, float | None]:
        """:meth:`encode`'s dict as canonical text, before and after its ``saved_at`` value, and
        when its earliest ``fire`` timer is due (statewright._chart_text: a save writes it)."""
        return _chart_text(self, chart)

    def decode(self, data: dict[str, Any], table: Table) -> Decoded:
        """A snapshot checked against the chart too (its ``chart`` field), positional timer
        names renamed first when the spec is the one it was saved with (the runtime's own is
        converted instead: statewright._snapshot_own)."""
        from statewright._snapshot_decode import decode
        from statewright._snapshot_versions import stable_timer_ids

        return decode(stable_timer_ids(data, self, table), table, self)

    def restored(
        self, saved: tuple[ChartState, float], clock: Callable[[], float], session: str = ""
    ) -> ChartState:
        """A decoded chart state on this machine's clock and in its ``session`` (the system
        variables), its timers moved by their restore policy (the snapshot was taken at the
        saved time)."""
        chart, saved_at = saved
        chart.clock = clock
        if chart.model is not None:
            from statewright._event_info import System

            chart.model.system = System(session, self.name)
        _restart_timers(chart.timers, saved_at, clock())
        return chart


#: What writes and restores a chart's part of a snapshot (statewright._chart_snapshot,
#: statewright._timer_snapshot; statewright._chart_text, whose canonical text imports json, for
#: a save to a built-in store), imported by the first call of each (statewright._first_call):
#: every save and load of a chart runs them.
_encode_chart: Callable[..., dict[str, Any]] = on_first_call(
    globals(), "_encode_chart", "statewright._chart_snapshot", "encode_chart"
)
_restart_timers: Callable[..., None] = on_first_call(
    globals(), "_restart_timers", "statewright._timer_snapshot", "restart_timers"
)
_chart_text: Callable[..., tuple[str, str, float | None]] = on_first_call(
    globals(), "_chart_text", "statewright._chart_text", "chart_text"
)

"""Plans: what a statechart's event does, worked out once per configuration.

Most events of most charts run no user code and no executable content: they move the chart from
one configuration (its active states and history memory) to another and nothing else. Such an
event's macrostep depends on the configuration alone, so the engine works it out once, by
running SCXML's algorithm itself on a scratch state, and keeps the outcome in the
configuration's fast row (a :class:`~statewright._chart_state.Configuration`, interned per
machine class). From then on the machine commits the event inline, as a flat machine commits a
trivial transition (:mod:`statewright._trivial`): no generator, no working copy, no selection;
its chart state takes the next configuration's sets, which nothing changes (a macrostep changes
only its own copy: :mod:`statewright._chart_state`).

An event is planned from a configuration only when that is provably all it does:

- the chart has no data-model content (conditions read the data, and every event it processes
  becomes its ``_event``) and no child machines;
- selecting its transitions asks no guard (user code, which may answer differently each time);
- the transitions taken have no actions (``actions``, ``then``) and no checkpoint;
- no state exited or entered has entry or exit content or timers, no state entered by default
  has initial content, no history default taken has content, and no final state is entered
  (its done event would go on the internal queue);
- no eventless transition leaves a state of the configuration reached.

Every other event runs the algorithm, as every event did before. A configuration's row fills as
its events happen: an event's first occurrence there runs the algorithm and works out the plan,
which joins the row once the class has counted its transition. A class interns at most
:data:`MAX_CONFIGURATIONS` configurations; events in the others run the algorithm.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

from statewright._chart import ChartAlgorithm
from statewright._chart_spec import FINAL
from statewright._chart_state import ChartState, Configuration, PlannedEntry
from statewright._table import UNPLANNED

if TYPE_CHECKING:
    from statewright._chart_spec import Chart
    from statewright._data_spec import DataModel
    from statewright._engine import Request

__all__ = ["MAX_CONFIGURATIONS", "ChartPlans"]

T = TypeVar("T")

#: Configurations a machine class interns (each holds its sets, its row and its plans).
MAX_CONFIGURATIONS: Final = 1_024


class ChartPlans(ChartAlgorithm):
    """The configurations of a chart and the plans of its events (see the module docstring)."""

    def __init__(
        self,
        chart: Chart,
        events_by_value: Mapping[str, Any],
        data: DataModel | None = None,
        payloads: Mapping[Any, tuple[tuple[str, tuple[Any, ...], bool], ...]] | None = None,
        counters: Mapping[tuple[Any, Any, Any], int] | None = None,
    ) -> None:
        super().__init__(chart, events_by_value, data, payloads)
        #: The transitions that ask for a durable save (most charts have none).
        self.checkpointed = frozenset(
            index for index, transition in enumerate(chart.transitions) if transition.checkpoint
        )
        #: The class table's counter of each ``(source, event, target)`` met so far (None: no
        #: table, no plans), and whether the chart's events may be planned at all (some
        #: transition runs no content and asks no guard).
        self.counters = counters
        self.planned = (
            counters is not None
            and not self.expressive
            and not self.invoking
            and any(not (t.guard or t.steps or t.then or t.checkpoint) for t in chart.transitions)
        )
        self.configurations: dict[tuple[frozenset[int], frozenset[Any]], Configuration] = {}
        #: The row of a machine none of whose events is planned where it is.
        self.unplanned: dict[Any, PlannedEntry] = dict.fromkeys(events_by_value.values(), UNPLANNED)

    def row(self, state: Any, chart: ChartState) -> dict[Any, PlannedEntry]:
        """The fast row of a machine reporting ``state`` whose running state is ``chart`` (kept,
        between macrosteps): its configuration's, or one that sends every event to the
        algorithm."""
        if not self.planned or chart.queue or chart.finished:
            return self.unplanned
        config = chart.config or self.configuration(chart)
        if config is None or config.reported is not state:
            return self.unplanned
        return config.row

    def configuration(self, chart: ChartState) -> Configuration | None:
        """``chart``'s configuration, interned (None when the class has too many)."""
        active = frozenset(chart.active)
        key = (active, frozenset(chart.memory.items()))
        config = self.configurations.get(key)
        if config is None:
            if len(self.configurations) >= MAX_CONFIGURATIONS:
                return None
            leaves = sorted(node for node in active if self.atomic[node])
            reported = self.members[leaves[0]] if leaves else None
            fresh = Configuration(set(active), dict(chart.memory), reported)
            config = self.configurations.setdefault(key, fresh)
        chart.config = config
        return config

    def learn(self, chart: ChartState, member: Any) -> None:
        """Work out ``member``'s plan from ``chart``'s configuration the first time it is met
        there, and put it in the configuration's row once the class counts its transition
        (a chart's counters are learnt as their transitions are first taken)."""
        if chart.queue or chart.finished:
            return
        config = chart.config or self.configuration(chart)
        if config is None or member in config.row:
            return
        plans = config.plans
        if member not in plans:
            plans[member] = self._plan(config, member)
        plan = plans[member]
        assert self.counters is not None  # planned
        if plan is None:
            config.row[member] = UNPLANNED
            return
        target, following = plan
        index = self.counters.get((config.reported, member, target))
        if index is not None:
            moves = target is not config.reported
            config.row[member] = (member, target, following.row, index, moves, following)

    def _plan(self, config: Configuration, member: Any) -> tuple[Any, Configuration] | None:
        """``(target, next configuration)`` when ``member``'s macrostep from ``config`` only
        moves the chart (see the module docstring), else None: worked out by the algorithm
        itself on a scratch state in ``config``, every block of content it would run checked
        empty first."""
        scratch = ChartState(config.active, config.memory)
        asked, enabled = _alone(self.select(scratch, member, {}))
        if asked or not enabled:
            return None
        transitions, nodes, kinds = self.chart.transitions, self.nodes, self.kinds
        if any(
            transitions[index].steps or transitions[index].then or index in self.checkpointed
            for index in enabled
        ):
            return None
        if any(nodes[node].exit or nodes[node].timers for node in self.exit_set(scratch, enabled)):
            return None
        to_enter, default_entry, history_content = self.entry_set(scratch, enabled)
        if any(
            nodes[node].entry or nodes[node].timers or kinds[node] == FINAL for node in to_enter
        ):
            return None
        if any(nodes[node].initial_steps for node in default_entry) or any(
            history_content.values()
        ):
            return None
        asked, _ = _alone(self.microstep(scratch, enabled, {}, member))
        if asked or scratch.queue or scratch.finished:  # cannot be: no block above has steps
            return None
        if self.has_eventless and any(
            not transitions[index].events
            for node in scratch.active
            for index in self.by_source[node]
        ):
            return None
        following = self.configuration(scratch)
        return None if following is None else (following.reported, following)


def _alone(steps: Generator[Request, Any, T]) -> tuple[bool, T | None]:
    """Run ``steps`` to its end: ``(False, what it returned)``, or ``(True, None)`` as soon as
    it asks for anything (a guard: user code)."""
    try:
        steps.send(None)
    except StopIteration as stop:
        return False, stop.value
    steps.close()
    return True, None

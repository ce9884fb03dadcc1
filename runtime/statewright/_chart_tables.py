"""A statechart's tables, built once per machine class, and the queries SCXML's algorithm
asks of them: ancestry, the active leaves, a transition's domain and exit set, and what entering
a state enters (its initial or remembered descendants, its ancestors, the other regions of a
parallel ancestor: ``computeEntrySet`` in W3C SCXML 1.0, Appendix D).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

from statewright._chart_spec import (
    COMPOUND,
    DEEP_HISTORY,
    FINAL,
    PARALLEL,
    SHALLOW_HISTORY,
    Cancel,
    Chart,
    ChartNode,
    ChartTransition,
    Log,
    Send,
    Step,
)
from statewright._chart_state import ChartState
from statewright._data_spec import Assign, Foreach, If
from statewright._frozen import FrozenValue

if TYPE_CHECKING:
    from statewright._data_spec import DataModel

__all__ = ["ROOT", "Bind", "ChartTables", "Invoking", "blocks", "walk"]

#: The parent of top-level states (the root is not a node).
ROOT: Final = -1
_HISTORY: Final = (SHALLOW_HISTORY, DEEP_HISTORY)


class Bind(FrozenValue):
    """Late binding's step, first in the entry of a state with data of its own: initialize
    that data when the state is first entered (the runtime puts it there, no spec has it)."""

    __match_args__ = ("node",)
    __slots__ = __match_args__

    node: int

    def __init__(self, node: int) -> None:
        object.__setattr__(self, "node", node)


class Invoking(FrozenValue):
    """The runtime's steps in a state that invokes child machines (no spec has them): first in
    its entry (``exit`` None), its invokes are to start at the end of the macrostep; its whole
    exit, its exit content (``exit``) as a block of its own, then its children are cancelled
    (:mod:`statewright._chart_invoke`)."""

    __match_args__ = ("node", "exit")
    __slots__ = __match_args__

    node: int
    exit: tuple[Step, ...] | None

    def __init__(self, node: int, exit: tuple[Step, ...] | None = None) -> None:
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "exit", exit)


def blocks(chart: Chart) -> Iterator[tuple[Step, ...]]:
    """Every block of executable content of ``chart``, invokes' ``finalize`` included (the
    blocks inside ``if`` and ``foreach`` steps: :func:`walk`; ``after`` timers are no block)."""
    yield chart.initial_steps
    yield chart.data_steps
    for transition in chart.transitions:
        yield transition.steps
        yield transition.then
    for node in chart.nodes:
        yield from (node.initial_steps, node.entry, node.exit, node.default_steps)
        yield node.data_steps
        yield from (invoke.finalize for invoke in node.invokes)


def walk(steps: Iterable[Step]) -> Iterator[Step]:
    """``steps`` and the steps inside their ``if`` branches and ``foreach`` bodies."""
    for step in steps:
        yield step
        if isinstance(step, If):
            for _, branch in step.branches:
                yield from walk(branch)
            yield from walk(step.otherwise)
        elif isinstance(step, Foreach):
            yield from walk(step.steps)


def _reads_data(step: Step) -> bool:
    """Whether ``step`` is data-model content: it runs an expression, stores data, or sends
    somewhere or with something only a data model's send has."""
    if isinstance(step, Assign | If | Foreach):
        return True
    if isinstance(step, Send):
        return step.id == "" or any(
            value is not None
            for value in (
                step.event_expr,
                step.delay_expr,
                step.id_location,
                step.data,
                step.target,
                step.target_expr,
                step.type,
                step.type_expr,
            )
        )
    if isinstance(step, Log):
        return step.expr is not None
    if isinstance(step, Cancel):
        return step.id_expr is not None
    return False


def has_data_content(chart: Chart, data: DataModel | None) -> bool:
    """Whether the chart has a data model or anything that needs one at run time (child
    machines do: their events carry an ``_event.invokeid``): then every event it processes gets
    an ``_event``; else the engine skips all of it."""
    return (
        data is not None
        or any(node.invokes for node in chart.nodes)
        or any(transition.cond is not None for transition in chart.transitions)
        or any(node.donedata is not None for node in chart.nodes)
        or any(_reads_data(step) for block in blocks(chart) for step in walk(block))
    )


def _with_runtime_steps(node: ChartNode, index: int, late: bool) -> ChartNode:
    """``node`` as the engine runs it: with :class:`Bind` first in its entry when its data is
    bound ``late``, and :class:`Invoking` in its entry and around its exit when it invokes."""
    fields: dict[str, Any] = {name: getattr(node, name) for name in ChartNode.__match_args__}
    entry: tuple[Any, ...] = node.entry  # a spec's steps and the runtime's
    exit: tuple[Any, ...] = node.exit
    if node.invokes:
        entry, exit = (Invoking(index), *entry), (Invoking(index, exit),)
    if late:
        entry = (Bind(index), *entry)
    return ChartNode(**{**fields, "entry": entry, "exit": exit})


class ChartTables:
    """A chart's nodes as tuples indexed by node, and the queries over them."""

    def __init__(
        self,
        chart: Chart,
        events_by_value: Mapping[str, Any],
        data: DataModel | None = None,
        payloads: Mapping[Any, tuple[tuple[str, tuple[Any, ...], bool], ...]] | None = None,
    ) -> None:
        nodes = chart.nodes
        self.chart = chart
        self.events_by_value = events_by_value
        #: Each event's payload fields (``MachineSpec.payloads``), what a sent event's data is
        #: checked against.
        self.payloads = {} if payloads is None else payloads
        #: The data model (None without one), and whether the chart has data-model content.
        self.data_model = data
        self.expressive = has_data_content(chart, data)
        #: The states whose own data is initialized when first entered (late binding), and the
        #: nodes as the engine enters them: theirs with :class:`Bind` first in their entry.
        self.late_nodes = frozenset(
            index
            for index, node in enumerate(nodes)
            if node.data_steps and data is not None and data.binding == "late"
        )
        #: Each of those states' own data fields (what its initializers assign).
        self.late_fields = {
            index: frozenset(
                step.field
                for step in nodes[index].data_steps
                if isinstance(step, Assign) and step.field is not None
            )
            for index in sorted(self.late_nodes)
        }
        self.nodes = tuple(
            _with_runtime_steps(node, index, index in self.late_nodes)
            if node.invokes or index in self.late_nodes
            else node
            for index, node in enumerate(nodes)
        )
        self.names = tuple(node.name for node in nodes)
        self.kinds = tuple(node.kind for node in nodes)
        self.parents = tuple(node.parent for node in nodes)
        self.members = tuple(node.member for node in nodes)
        self.children: tuple[tuple[int, ...], ...] = tuple(
            tuple(i for i, node in enumerate(nodes) if node.parent == index)
            for index in range(len(nodes))
        )
        self.child_states = tuple(
            tuple(child for child in children if self.kinds[child] not in _HISTORY)
            for children in self.children
        )
        self.histories = tuple(
            tuple(child for child in children if self.kinds[child] in _HISTORY)
            for children in self.children
        )
        ancestors: list[tuple[int, ...]] = []
        for node in nodes:
            chain: list[int] = []
            parent = node.parent
            while parent != ROOT:
                chain.append(parent)
                parent = nodes[parent].parent
            ancestors.append(tuple(chain))
        #: Proper ancestors, nearest first (the root is not a node), and each node followed by
        #: its ancestors (where a transition for it is looked for).
        self.ancestors = tuple(ancestors)
        self.lineage = tuple((index, *chain) for index, chain in enumerate(ancestors))
        self.transitions = chart.transitions
        self.ancestor_sets = tuple(frozenset(chain) for chain in ancestors)
        self.atomic = tuple(not self.children[i] for i in range(len(nodes)))
        self.by_source: tuple[tuple[int, ...], ...] = tuple(
            tuple(t for t, transition in enumerate(chart.transitions) if transition.source == i)
            for i in range(len(nodes))
        )
        self.done_events = tuple(node.done for node in nodes)
        #: The states that invoke child machines, whether there are any, and whether one of
        #: their invokes forwards the parent's events (``autoforward``).
        self.invokers = frozenset(index for index, node in enumerate(nodes) if node.invokes)
        self.invoking = bool(self.invokers)
        self.autoforwarding = any(i.autoforward for node in nodes for i in node.invokes)
        #: Whether any transition is eventless: if none is, a microstep needs no eventless check.
        self.has_eventless = any(not transition.events for transition in chart.transitions)
        #: Each transition's domain where it does not depend on history memory (None where it
        #: does): computed once instead of per microstep.
        self.static_domains = tuple(
            None
            if any(self.kinds[target] in _HISTORY for target in transition.targets)
            else self._domain_of(transition, transition.targets)
            for transition in chart.transitions
        )
        self.error_event = events_by_value.get("error.execution")
        self.communication_event = events_by_value.get("error.communication")
        self.node_by_name = {node.name: index for index, node in enumerate(nodes)}

    @cached_property
    def timer_rules(self) -> dict[str, tuple[int, tuple[Send, ...]]]:
        """What may be pending under each timer id the chart starts: an ``after`` timer's
        state and its one :class:`Send`; a send step's id (state :data:`ROOT`: any) and every
        send step with that id. Built when a snapshot is first checked."""
        chart = self.chart
        sends: dict[str, list[Send]] = {}
        for block in blocks(chart):
            for step in walk(block):
                if isinstance(step, Send):
                    sends.setdefault(step.id, []).append(step)
        rules = {name: (ROOT, tuple(found)) for name, found in sends.items()}
        for index, node in enumerate(chart.nodes):
            rules.update((timer.id, (index, (timer,))) for timer in node.timers)
        return rules

    # -- queries ---------------------------------------------------------------------------------
    def is_descendant(self, node: int, ancestor: int) -> bool:
        return ancestor == ROOT or ancestor in self.ancestor_sets[node]

    def leaves(self, state: ChartState) -> list[int]:
        """The active atomic states, in document order."""
        return sorted(node for node in state.active if self.atomic[node])

    def describe(self, state: ChartState) -> str:
        return ", ".join(self.names[node] for node in self.leaves(state)) or "nothing"

    def in_final(self, state: ChartState, node: int) -> bool:
        kind = self.kinds[node]
        if kind == COMPOUND:
            return any(
                self.kinds[child] == FINAL and child in state.active
                for child in self.child_states[node]
            )
        if kind == PARALLEL:
            return all(self.in_final(state, child) for child in self.child_states[node])
        return False

    def exit_set(self, state: ChartState, enabled: Iterable[int]) -> set[int]:
        exits: set[int] = set()
        for index in enabled:
            if self.chart.transitions[index].targets:
                domain = self.domain(state, index)
                exits |= {node for node in state.active if self.is_descendant(node, domain)}
        return exits

    def domain(self, state: ChartState, index: int) -> int:
        static = self.static_domains[index]
        if static is not None:
            return static
        transition = self.chart.transitions[index]
        return self._domain_of(transition, self.effective_targets(state, transition.targets))

    def _domain_of(self, transition: ChartTransition, targets: Sequence[int]) -> int:
        source = transition.source
        if (
            transition.internal
            and self.kinds[source] == COMPOUND
            and all(self.is_descendant(target, source) for target in targets)
        ):
            return source
        return self._lcca([source, *targets])

    def _lcca(self, nodes: list[int]) -> int:
        """The least common compound ancestor (the root counts as one)."""
        for ancestor in (*self.ancestors[nodes[0]], ROOT):
            if (ancestor == ROOT or self.kinds[ancestor] == COMPOUND) and all(
                self.is_descendant(node, ancestor) for node in nodes[1:]
            ):
                return ancestor
        return ROOT

    def effective_targets(self, state: ChartState, targets: Iterable[int]) -> list[int]:
        found: dict[int, None] = {}
        for target in targets:
            if self.kinds[target] in _HISTORY:
                remembered = state.memory.get(target)
                inner = remembered if remembered is not None else self.chart.nodes[target].default
                found.update(dict.fromkeys(self.effective_targets(state, inner)))
            else:
                found[target] = None
        return list(found)

    # -- entry sets -------------------------------------------------------------------------------
    def entry_set(
        self, state: ChartState, enabled: Iterable[int]
    ) -> tuple[set[int], set[int], dict[int, tuple[Step, ...]]]:
        """What ``enabled`` enter (``computeEntrySet``): the states, those entered by default
        (their initial content runs), the content of history defaults taken, by parent."""
        to_enter: set[int] = set()
        default: set[int] = set()
        content: dict[int, tuple[Step, ...]] = {}
        for index in enabled:
            transition = self.chart.transitions[index]
            if not transition.targets:
                continue
            for target in transition.targets:
                self._add_descendants(state, target, to_enter, default, content)
            domain = self.domain(state, index)
            for target in self.effective_targets(state, transition.targets):
                self._add_ancestors(state, target, domain, to_enter, default, content)
        return to_enter, default, content

    def _add_descendants(
        self,
        state: ChartState,
        node: int,
        to_enter: set[int],
        default_entry: set[int],
        history_content: dict[int, tuple[Step, ...]],
    ) -> None:
        sets = (to_enter, default_entry, history_content)
        kind = self.kinds[node]
        if kind in _HISTORY:
            remembered = state.memory.get(node)
            if remembered is None:
                history_content[self.parents[node]] = self.chart.nodes[node].default_steps
                remembered = self.chart.nodes[node].default
            for inner in remembered:
                self._add_descendants(state, inner, *sets)
            for inner in remembered:
                self._add_ancestors(state, inner, self.parents[node], *sets)
            return
        to_enter.add(node)
        if kind == COMPOUND:
            default_entry.add(node)
            initial = self.chart.nodes[node].initial
            for inner in initial:
                self._add_descendants(state, inner, *sets)
            for inner in initial:
                self._add_ancestors(state, inner, node, *sets)
        elif kind == PARALLEL:
            for child in self.child_states[node]:
                if not any(self.is_descendant(entered, child) for entered in to_enter):
                    self._add_descendants(state, child, *sets)

    def _add_ancestors(
        self,
        state: ChartState,
        node: int,
        ancestor: int,
        to_enter: set[int],
        default_entry: set[int],
        history_content: dict[int, tuple[Step, ...]],
    ) -> None:
        for parent in self.ancestors[node]:
            if parent == ancestor:
                return
            to_enter.add(parent)
            if self.kinds[parent] == PARALLEL:
                for child in self.child_states[parent]:
                    if not any(self.is_descendant(entered, child) for entered in to_enter):
                        self._add_descendants(
                            state, child, to_enter, default_entry, history_content
                        )

"""The parts of the generated module only a statechart has: the ``CHART`` literal the runtime's
engine reads (states in document order, every reference an index), the ``IN_<NAME>`` leaf sets,
the typed configuration of a chart with parallel regions, and the handler methods typed by what
can trigger them. A mixin of the module view (:mod:`render`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from statewright_compiler.codegen.chart_triggers import chart_triggers
from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    Expression,
    ForeachStep,
    IfStep,
    LogStep,
    Machine,
    RaiseStep,
    SendStep,
    State,
    StateKind,
    Step,
    Transition,
)
from statewright_compiler.spec.literals import string_literal, tuple_literal
from statewright_compiler.spec.naming import camel_case, state_set_constant

__all__ = ["ChartView", "Region"]


@dataclass(frozen=True)
class Region:
    """One field of a parallel chart's configuration: a region and the leaves it may hold."""

    field: str
    annotation: str
    """``<alias> | None`` (or ``None`` for a region without leaves)."""
    members: tuple[str, ...]
    """The leaves' member expressions: the ``case`` pattern of the field's function."""
    alias: str = ""
    """``_<Field>Leaves``, the ``Literal`` of the leaves: a short name keeps the field and the
    function's signature on one line."""


class ChartView:
    """Needs the module view's ``machine``, member maps and ``state_set``."""

    machine: Machine
    state_class: str
    state_member: Mapping[str, str]
    event_member: Mapping[str, str]
    guard_functions: Mapping[str, str]

    if TYPE_CHECKING:

        def state_set(self, names: Iterable[str]) -> str: ...

        def function_name(self, expression: Expression) -> str: ...

        def data_steps_literal(self, state: str | None) -> str: ...

        def invokes_literal(self, state: str) -> str: ...

        def child_event(self, step: SendStep) -> str | None: ...

    # -- the tree --------------------------------------------------------------------------------
    def leaf_states(self) -> Sequence[State]:
        """The state enum's members: every state of a flat machine, a chart's leaves."""
        return [state for state in self.machine.states if state.is_leaf]

    def node_index(self) -> dict[str, int]:
        return {state.name: index for index, state in enumerate(self.machine.states)}

    def leaves_below(self, name: str) -> list[str]:
        state = self.machine.state(name)
        if state.is_leaf:
            return [name]
        return [leaf for child in state.children for leaf in self.leaves_below(child)]

    def default_leaf(self, name: str) -> str:
        """The first leaf entering ``name`` enters by default (the chart's initial state)."""
        state = self.machine.state(name)
        if state.is_leaf:
            return name
        if state.kind is StateKind.HISTORY:
            return self.default_leaf(state.default[0])
        if state.kind is StateKind.PARALLEL:
            return self.default_leaf(next(c for c in state.children if self.is_state(c)))
        return self.default_leaf(state.initial[0])

    def is_state(self, name: str) -> bool:
        return self.machine.state(name).kind is not StateKind.HISTORY

    def initial_member(self) -> str:
        """Through the enum class at any size: one ``Enum.X`` reference costs mypy little, and
        ``INITIAL_STATE`` keeps its ``Literal`` type."""
        leaf = self.machine.state(self.default_leaf(self.machine.initial))
        return f"{self.state_class}.{leaf.member}"

    def final_names(self) -> list[str]:
        """Final states that end the machine: a chart's top-level ones."""
        return [s.name for s in self.leaf_states() if s.is_final and s.parent is None]

    def state_sets(self) -> list[tuple[str, str]]:
        """``(IN_<NAME>, frozenset of its leaves)`` per compound or parallel state."""
        return [
            (state_set_constant(state.name), self.state_set(self.leaves_below(state.name)))
            for state in self.machine.states
            if not state.is_leaf and state.kind is not StateKind.HISTORY
        ]

    def tag_leaves(self, names: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(leaf for name in names for leaf in self.leaves_below(name)))

    # -- the configuration of a chart with parallel regions ------------------------------------
    def regions(self) -> list[Region]:
        """``root`` (leaves outside every region) and each region, with its possible leaves."""
        machine = self.machine
        if not any(state.kind is StateKind.PARALLEL for state in machine.states):
            return []
        parents = {state.name: state.parent for state in machine.states}
        kinds = {state.name: state.kind for state in machine.states}
        held: dict[str, list[str]] = {"root": []}
        for state in machine.states:
            parent = state.parent
            if (
                parent is not None
                and kinds[parent] is StateKind.PARALLEL
                and self.is_state(state.name)
            ):
                held[state.name] = []
        for leaf in self.leaf_states():
            node: str | None = leaf.name
            while node is not None and node not in held:
                node = parents[node]
            held[node or "root"].append(leaf.name)
        regions = []
        for field, leaves in held.items():
            if field == "root" and not leaves:
                continue
            # Through the enum class: a Literal needs the members themselves, not _S constants.
            members = tuple(
                f"{self.state_class}.{self.machine.state(leaf).member}" for leaf in leaves
            )
            alias = f"_{camel_case(field)}Leaves" if members else ""
            annotation = f"{alias} | None" if members else "None"
            regions.append(Region(field, annotation, members, alias))
        return regions

    # -- the chart literal -----------------------------------------------------------------------
    def configuration_arguments(self) -> str:
        """The configuration's fields, each from its region's function of the active leaves."""
        return ", ".join(f"_region_{region.field}(leaves)" for region in self.regions())

    def step_literal(self, step: Step) -> str:
        if isinstance(step, RaiseStep):
            return f"Raise({self.event_member[step.event]})"
        if isinstance(step, LogStep):
            expr = f", expr={self.function_name(step.expr)}" if step.expr is not None else ""
            return f"Log({string_literal(step.label)}, {string_literal(step.text)}{expr})"
        if isinstance(step, SendStep):
            return self.send_literal(step)
        if isinstance(step, CancelStep):
            expr = f", id_expr={self.function_name(step.id_expr)}" if step.id_expr else ""
            return f"Cancel({string_literal(step.id)}{expr})"
        if isinstance(step, AssignStep):
            arguments = [string_literal(step.location.text), self.function_name(step.value)]
            if step.field is not None:
                arguments.append(f"field={string_literal(step.field)}")
            if step.container is not None and step.key is not None:
                arguments.append(f"container={self.function_name(step.container)}")
                arguments.append(f"key={self.function_name(step.key)}")
            return f"Assign({', '.join(arguments)})"
        if isinstance(step, IfStep):
            branches = tuple_literal(
                f"({self.function_name(test)}, {self.steps_literal(steps)})"
                for test, steps in step.branches
            )
            otherwise = f", {self.steps_literal(step.otherwise)}" if step.otherwise else ""
            return f"If({branches}{otherwise})"
        if isinstance(step, ForeachStep):
            index = string_literal(step.index) if step.index is not None else "None"
            array = self.function_name(step.array)
            body = self.steps_literal(step.steps)
            return f"Foreach({array}, {string_literal(step.item)}, {index}, {body})"
        return string_literal(step)

    def send_literal(self, step: SendStep) -> str:
        """``Send(event, id, ...)``: only the arguments that differ from their defaults (a send
        to a child sends the child's event member)."""
        event = self.child_event(step) or (self.event_member[step.event] if step.event else "None")
        arguments = [event, string_literal(step.id)]
        function = self.function_name
        optional = [
            ("delay", repr(step.delay) if step.delay is not None else ""),
            ("handler", string_literal(step.delay_handler) if step.delay_handler else ""),
            ("on_restore", string_literal(step.on_restore) if step.on_restore != "fire" else ""),
            ("event_expr", function(step.event_expr) if step.event_expr else ""),
            ("delay_expr", function(step.delay_expr) if step.delay_expr else ""),
            ("id_location", string_literal(step.id_location) if step.id_location else ""),
            ("data", function(step.data) if step.data else ""),
            ("target", string_literal(step.target) if step.target is not None else ""),
            ("target_expr", function(step.target_expr) if step.target_expr else ""),
            ("type", string_literal(step.type) if step.type is not None else ""),
            ("type_expr", function(step.type_expr) if step.type_expr else ""),
        ]
        arguments += [f"{key}={value}" for key, value in optional if value]
        return f"Send({', '.join(arguments)})"

    def steps_literal(self, steps: Sequence[Step]) -> str:
        return tuple_literal(self.step_literal(step) for step in steps)

    def indexes(self, names: Iterable[str]) -> str:
        index = self.node_index()
        return tuple_literal(str(index[name]) for name in names)

    def node_literal(self, state: State) -> str:
        index = self.node_index()
        if state.kind is StateKind.HISTORY:
            kind = state.history
        elif state.kind is StateKind.PARALLEL:
            kind = "parallel"
        elif state.children:
            kind = "compound"
        else:
            kind = "final" if state.is_final else "atomic"
        done = {event.value: event.name for event in self.machine.events}.get(
            f"done.state.{state.value}"
        )
        arguments = [string_literal(state.name), string_literal(kind)]
        steps = self.steps_literal
        optional = [
            ("parent", str(index[state.parent]) if state.parent else ""),
            ("member", self.state_member[state.name] if state.is_leaf else ""),
            ("initial", self.indexes(state.initial) if state.initial else ""),
            ("initial_steps", steps(state.initial_steps) if state.initial_steps else ""),
            ("entry", steps(state.entry) if state.entry else ""),
            ("exit", steps(state.exit) if state.exit else ""),
            ("default", self.indexes(state.default) if state.default else ""),
            ("default_steps", steps(state.default_steps) if state.default_steps else ""),
            ("timers", steps(state.timers) if state.timers else ""),
            ("done", self.event_member[done] if done else ""),
            ("data_steps", self.data_steps_literal(state.name)),
            ("donedata", self.function_name(state.donedata) if state.donedata else ""),
            ("invokes", self.invokes_literal(state.name)),
        ]
        arguments += [f"{key}={value}" for key, value in optional if value]
        return f"ChartNode({', '.join(arguments)})"

    def chart_transitions(self) -> list[list[Transition]]:
        """The transitions grouped back into one entry per (source, rule), in document order."""
        groups: dict[tuple[str, int], list[Transition]] = defaultdict(list)
        for transition in self.machine.transitions:
            groups[(transition.source, transition.rule_index)].append(transition)
        index = self.node_index()
        return [groups[key] for key in sorted(groups, key=lambda key: (index[key[0]], key[1]))]

    def transition_literal(self, group: list[Transition]) -> str:
        first = group[0]
        events = [self.event_member[t.event] for t in group if t.event]
        optional = [
            ("events", f"frozenset({{{', '.join(events)}}})" if events else ""),
            ("guard", self.guard_functions[first.guard_text] if first.guard_text else ""),
            ("cond", self.function_name(first.cond) if first.cond else ""),
            ("targets", self.indexes(first.targets) if first.targets else ""),
            ("internal", "True" if first.internal else ""),
            ("steps", self.steps_literal(first.steps) if first.steps else ""),
            ("then", self.steps_literal(first.then) if first.then else ""),
            ("checkpoint", "True" if first.checkpoint else ""),
        ]
        arguments = [str(self.node_index()[first.source])]
        arguments += [f"{key}={value}" for key, value in optional if value]
        return f"ChartTransition({', '.join(arguments)})"

    def route_literals(self) -> list[str]:
        """Error handlers as transitions taken on ``ERROR_ROUTE``, which the machine sends when
        an action fails (``on_error = "raise"``): the failed macrostep is dropped, the route
        taken from where the machine was."""
        index = self.node_index()
        return [
            f"ChartTransition({index[source]}, events=frozenset({{ERROR_ROUTE}}), "
            f"targets=({index[handler.target]},)"
            + (f", steps={self.steps_literal(handler.actions)}" if handler.actions else "")
            + ")"
            for handler in self.machine.error_handlers
            for source in handler.sources
        ]

    def chart_literal(self) -> str:
        machine = self.machine
        nodes = tuple_literal(self.node_literal(state) for state in machine.states)
        transitions = tuple_literal(
            [
                *(self.transition_literal(g) for g in self.chart_transitions()),
                *self.route_literals(),
            ]
        )
        arguments = [
            f"nodes={nodes}",
            f"transitions={transitions}",
            f"initial={self.indexes(machine.initial_targets)}",
        ]
        if machine.initial_steps:
            arguments.append(f"initial_steps={self.steps_literal(machine.initial_steps)}")
        if machine.on_error != "raise":
            arguments.append(f"on_error={string_literal(machine.on_error)}")
        data_steps = self.data_steps_literal(None)
        if data_steps:
            arguments.append(f"data_steps={data_steps}")
        return f"Chart({', '.join(arguments)})"

    # -- handler typing --------------------------------------------------------------------------
    def chart_triggers(self) -> tuple[dict[str, dict[str, None]], dict[str, list[str]]]:
        """For each handler: the events whose payload it may see, and where it is used."""
        return chart_triggers(self.machine)

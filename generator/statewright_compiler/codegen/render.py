"""Step 4 of the pipeline: turn the model into source text through Jinja templates.

Everything a template prints is computed here: literals through :mod:`literals`, identifiers
from the model (already validated). Templates only loop and print. ``module.py.jinja`` prints
the module top to bottom; the parts only some modules have (``module/flat``, ``module/chart``,
``module/large``) are chosen here, as data (:data:`_PARTS`), not by conditions in the template.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from statewright_compiler import DOCS_URL, __version__
from statewright_compiler.codegen.chart_view import ChartView
from statewright_compiler.codegen.data_view import RUNTIME_API, DataView
from statewright_compiler.codegen.dispatch_view import DispatchView
from statewright_compiler.codegen.flavours import FlavourView
from statewright_compiler.codegen.imports import (
    import_blocks,
    import_statement,
    type_checking_imports,
    used_imports,
)
from statewright_compiler.codegen.invoke_view import InvokeView
from statewright_compiler.codegen.jinja_env import template_environment
from statewright_compiler.codegen.large_view import LargeMachineView, Member
from statewright_compiler.model import (
    PREVIOUS_TARGET,
    And,
    GuardCall,
    GuardExpression,
    InState,
    Machine,
    Not,
    Or,
)
from statewright_compiler.model.fingerprint import fingerprint
from statewright_compiler.spec.literals import (
    comment_text,
    data_literal,
    dict_literal,
    docstring_literal,
    string_literal,
    tuple_literal,
)
from statewright_compiler.spec.naming import tag_constant
from statewright_compiler.spec.payload_types import runtime_shape

__all__ = ["GENERATOR_VERSION", "RUNTIME_API", "render_module"]

GENERATOR_VERSION: Final = __version__
#: Up to this many states and events, dispatch functions are exhaustive ``match`` statements that
#: mypy proves complete. mypy narrows ``match`` cases in time quadratic in the enum's size
#: (measured with mypy 2.4.1: ~118 s cold at 1,000 states x 100 events, ~4 s for the same module
#: reading the table), so larger machines get table-backed functions with the same signatures.
#: Larger machines also get the shape that keeps mypy's time near its floor (docs/performance.md):
#: ``TRANSITIONS`` built at import from tables of member names, ``_S`` constants for the few
#: states other tables name, one ``send`` signature per payload shape rather than per event
#: (:mod:`large_view`).
MATCH_LIMIT: Final = 64


@dataclass(frozen=True)
class ModuleParts:
    """The parts of ``module.py.jinja`` only some modules have (templates in ``module/``)."""

    transitions: str
    dispatch: str


#: By (statechart, ``match`` dispatch): what a module's ``TRANSITIONS`` (or a chart's ``CHART``)
#: and its dispatch functions look like. Above ``MATCH_LIMIT`` dispatch reads tables, and a flat
#: machine's ``TRANSITIONS`` is built at import from tables of member names.
_PARTS: Final = {
    (False, True): ModuleParts("module/flat/transitions.py.jinja", "module/flat/dispatch.py.jinja"),
    (True, True): ModuleParts(
        "module/chart/transitions.py.jinja", "module/chart/dispatch.py.jinja"
    ),
    (False, False): ModuleParts(
        "module/large/transitions.py.jinja", "module/large/dispatch.py.jinja"
    ),
    (True, False): ModuleParts(
        "module/chart/transitions.py.jinja", "module/large/chart_dispatch.py.jinja"
    ),
}
#: The parameters of a guard function; a chart's also see which states are active (``in()``).
_GUARD_PARAMETERS: Final = "handlers: Any, context: Any, payload: Any"


@dataclass(frozen=True)
class PayloadClass:
    name: str
    docstring: str
    fields: tuple[tuple[str, str], ...]


def _python_guard(
    expression: GuardExpression, nodes: dict[str, int] | None = None, parent: int = 0
) -> str:
    """The guard as a Python expression. An ``and`` inside an ``or`` gets parentheses it does not
    need, as ruff's RUF021 asks: ``(a and b) or c`` says what it means. In a chart, ``in(x)``
    asks whether x's index is among the active states (``nodes``: state -> index)."""
    if isinstance(expression, GuardCall):
        return f"handlers.{expression.name}(context, payload)"
    if isinstance(expression, InState):
        assert nodes is not None
        return f"{nodes[expression.name]} in active"
    if isinstance(expression, Not):
        if isinstance(expression.operand, InState):
            assert nodes is not None
            return f"{nodes[expression.operand.name]} not in active"
        return f"not {_python_guard(expression.operand, nodes, 3)}"
    precedence, joiner = (2, " and ") if isinstance(expression, And) else (1, " or ")
    assert isinstance(expression, And | Or)
    text = joiner.join(_python_guard(operand, nodes, precedence) for operand in expression.operands)
    return f"({text})" if parent > precedence or (parent == 1 and precedence == 2) else text


class _ModuleView(DispatchView, ChartView, DataView, InvokeView, LargeMachineView, FlavourView):
    """Names and literals for ``module.py.jinja``, derived once from the machine."""

    def __init__(self, machine: Machine, cut: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.machine = machine
        self.cut = cut
        leaves = [state for state in machine.states if state.is_leaf]
        self.state_class = f"{machine.name}State"
        self.event_class = f"{machine.name}Event"
        self.match_dispatch = len(leaves) <= MATCH_LIMIT and len(machine.events) <= MATCH_LIMIT
        # Large machines refer to members through small namespace classes (``_S.X``): mypy looks
        # an ``Enum.X`` reference up in time linear in the enum's size, a ``Final`` in O(1).
        state_prefix, event_prefix = (
            (self.state_class, self.event_class) if self.match_dispatch else ("_S", "_E")
        )
        self.state_member = {state.name: f"{state_prefix}.{state.member}" for state in leaves}
        self.event_member = {
            event.name: f"{event_prefix}.{event.member}" for event in machine.events
        }
        self.guard_functions = {
            text: f"_guard_{index}"
            for index, text in enumerate(
                dict.fromkeys(t.guard_text for t in machine.transitions if t.guard_text)
            )
        }

    def target(self, name: str) -> str:
        return "PREVIOUS" if name == PREVIOUS_TARGET else self.state_member[name]

    def states(self) -> list[Member]:
        return [
            Member(
                s.member,
                string_literal(s.value),
                docstring_literal(s.description, "    ") if s.description else None,
            )
            for s in self.leaf_states()
        ]

    def events(self) -> list[Member]:
        return [
            Member(
                e.member,
                string_literal(e.value),
                docstring_literal(e.description, "    ") if e.description else None,
            )
            for e in self.machine.events
        ]

    def method_constants(self) -> list[str]:
        """The members event methods send (``_E_<MEMBER>``): the events from outside."""
        return [event.member for event in self.machine.external_events]

    def internal_events_literal(self) -> str:
        """``internal_events``: the events only the machine sends itself."""
        members = ", ".join(
            self.event_member[event.name] for event in self.machine.events if event.internal
        )
        return f"frozenset({{{members}}})"

    def state_set(self, names: Iterable[str]) -> str:
        members = ", ".join(self.state_member[name] for name in names)
        return f"frozenset({{{members}}})" if members else "frozenset()"

    def tags(self) -> list[tuple[str, str, str]]:
        """``(constant name, tag literal, frozenset expression)`` per tag."""
        return [
            (tag_constant(tag), string_literal(tag), self.state_set(self.tag_leaves(names)))
            for tag, names in self.machine.tags
        ]

    def payloads(self) -> list[PayloadClass]:
        return [
            PayloadClass(
                event.payload_type,
                docstring_literal(f"Payload of the {event.name} event."),
                tuple((field.name, field.annotation) for field in event.payload),
            )
            for event in self.machine.events
        ]

    def guard_parameters(self) -> str:
        return _GUARD_PARAMETERS + (", active: Container[int]" if self.machine.chart else "")

    def guards(self) -> list[tuple[str, str]]:
        """``(function name, Python expression)`` per distinct guard expression."""
        expressions = {
            t.guard_text: t.guard for t in self.machine.transitions if t.guard is not None
        }
        nodes = self.node_index() if self.machine.chart else None
        return [
            (name, _python_guard(expressions[text], nodes))
            for text, name in self.guard_functions.items()
        ]

    def tags_literal(self) -> str:
        """The ``TAGS`` dict: tag name -> its ``TAG_<NAME>`` constant."""
        return dict_literal(
            (string_literal(tag), tag_constant(tag)) for tag, _ in self.machine.tags
        )

    def transitions_literal(self) -> str:
        """The ``TRANSITIONS`` dict: state -> event -> tuple of ``Alternative(...)``."""
        table: dict[str, dict[str, list[str]]] = {}
        for transition in self.machine.transitions:
            arguments = [self.target(transition.target)]
            if transition.guard_text:
                arguments.append(f"guard={self.guard_functions[transition.guard_text]}")
            if transition.actions:
                arguments.append(
                    f"actions={tuple_literal(string_literal(a) for a in transition.actions)}"
                )
            if transition.checkpoint:
                arguments.append("checkpoint=True")
            alternatives = table.setdefault(self.state_member[transition.source], {})
            alternatives.setdefault(self.event_member[transition.event], []).append(
                f"Alternative({', '.join(arguments)})"
            )
        return dict_literal(
            (state, dict_literal((event, tuple_literal(found)) for event, found in row.items()))
            for state, row in table.items()
        )

    def spec_transitions(self) -> str:
        """``MachineSpec.transitions``: a chart's are in its ``CHART``."""
        return "{}" if self.machine.chart else "TRANSITIONS"

    def actions_literal(self, attribute: str) -> str:
        """``entry_actions`` or ``exit_actions``: state -> tuple of action names (a chart's are
        in its ``CHART``)."""
        if self.machine.chart:
            return "{}"
        return dict_literal(
            (
                self.state_member[state.name],
                tuple_literal(string_literal(a) for a in getattr(state, attribute)),
            )
            for state in self.machine.states
            if getattr(state, attribute)
        )

    def payloads_literal(self) -> str:
        """``payloads``: event -> its fields as ``(name, type, required)`` for the boundary."""
        return dict_literal(
            (
                self.event_member[event.name],
                data_literal(
                    tuple(
                        (field.name, runtime_shape(field.type), not field.optional)
                        for field in event.payload
                    )
                ),
            )
            for event in self.machine.events
            if event.payload
        )

    def event_descriptions_literal(self) -> str:
        """``event_descriptions``: event -> the spec's description, where it has one."""
        return dict_literal(
            (self.event_member[event.name], string_literal(event.description))
            for event in self.machine.events
            if event.description
        )

    def handler_names(self) -> str:
        machine = self.machine
        names = [
            string_literal(name) for name in (*machine.guards, *machine.actions, *machine.delays)
        ]
        return f"frozenset({{{', '.join(names)}}})" if names else "frozenset()"

    def error_routes_literal(self) -> str:
        """``error_routes``: state -> ``ErrorRoute(target, actions)`` (a chart's are in its
        ``CHART``)."""
        if self.machine.chart:
            return "{}"
        return dict_literal(
            (
                self.state_member[source],
                f"ErrorRoute({self.state_member[handler.target]}, "
                f"{tuple_literal(string_literal(a) for a in handler.actions)})",
            )
            for handler in self.machine.error_handlers
            for source in handler.sources
        )


def render_module(machine: Machine, cut: frozenset[tuple[str, str]] = frozenset()) -> str:
    """The generated Python module for ``machine`` (before formatting); ``cut``: the invoked
    machines (module, name) whose handlers protocols its own leaves out (see
    :func:`statewright_compiler.model.invoke_cycles.handler_cuts`)."""
    view = _ModuleView(machine, cut)
    generated_note = (
        f"Generated from {machine.source_path} by statewright {GENERATOR_VERSION}; do not edit."
    )
    template = template_environment().get_template("module.py.jinja")
    return template.render(
        machine=machine,
        view=view,
        parts=_PARTS[(machine.chart, view.match_dispatch)],
        generator_version=GENERATOR_VERSION,
        fingerprint=fingerprint(machine),
        runtime_api=view.runtime_api,
        header_path=comment_text(machine.source_path),
        spec_path=string_literal(machine.source_path),
        module_name=string_literal(machine.module_name),
        module_docstring=docstring_literal(
            (machine.description + "\n\n" if machine.description else "") + generated_note
        ),
        import_blocks=import_blocks(used_imports(machine, view), view.child_imports()),
        type_checking_imports=import_statement(
            "statewright", type_checking_imports(machine, view), indent="    "
        ),
        match_limit=MATCH_LIMIT,
        docs_url=DOCS_URL,
    )

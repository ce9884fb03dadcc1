"""The parts of the generated module a chart with child machines has: the import of each child's
module, the ``Invoke`` values of the chart's nodes, one params function per invoke with params,
the typed ``children`` view, and the child's event member a send to the child names. A mixin of
the module view (:mod:`render`).

Each child module is imported at the top (``import research as _invoked_research``), like a
payload type's module, so that the parent's code names the child's classes and mypy checks them:

* a params function assigns each param to an attribute of a value typed as the child's data class
  (at run time a plain namespace, whose attributes become the child's initial data), so a field
  the child does not have, or a value of the wrong type, is a mypy error in the parent's module;
* a send to the child (``target = "#_<id>"``) sends the member of the child's event enum, which
  mypy checks exists;
* ``machine.children.<id>`` is typed as the child's machine class.

``Invoke`` gets the child's classes through ``lambda``s: read when a child starts, so that a chart
may invoke itself (its module is then still being imported when its ``CHART`` is built).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from statewright_compiler.codegen.flavours import wrapped_docstring
from statewright_compiler.model import ChildMachine, Expression, Invoke, Machine, SendStep, Step
from statewright_compiler.spec.literals import string_literal, tuple_literal

__all__ = ["ChildProperty", "ChildrenView", "InvokeView", "ParamsFunction"]


@dataclass(frozen=True)
class ParamsFunction:
    """``def <name>(data, event, system, active) -> dict[str, object]``: the child's initial
    data, each param assigned to ``child`` (typed as ``data_class``)."""

    name: str
    event_data: str
    data_class: str
    docstring: str
    assignments: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ChildProperty:
    """One typed property of the ``children`` view: a child with a fixed id."""

    name: str
    key: str
    """The id as a string literal: the key of the runtime's mapping."""
    annotation: str
    docstring: str


@dataclass(frozen=True)
class ChildrenView:
    """``<Name>Children``: a read-only mapping over the runtime's ``children`` (invoke id ->
    running child), with a typed property per child with a fixed id."""

    name: str
    docstring: str
    properties: tuple[ChildProperty, ...]


class InvokeView:
    """Needs the module view's ``machine`` and ``function_name``."""

    machine: Machine
    #: Invoked machines (module, name) whose protocols this one's leaves out: an invoke cycle.
    cut: frozenset[tuple[str, str]]

    if TYPE_CHECKING:

        def function_name(self, expression: Expression) -> str: ...

        def steps_literal(self, steps: tuple[Step, ...]) -> str: ...

    def invokes(self) -> Iterator[tuple[str, Invoke]]:
        """Every child machine, with the state invoking it, in document order."""
        for state in self.machine.states:
            for invoke in state.invokes:
                yield state.name, invoke

    @cached_property
    def params_names(self) -> dict[tuple[str, int], str]:
        """``_params_<n>`` by (state, position) of each invoke with params, in document order."""
        keys = [
            (state.name, position)
            for state in self.machine.states
            for position, invoke in enumerate(state.invokes)
            if invoke.params
        ]
        return {key: f"_params_{index}" for index, key in enumerate(keys)}

    # -- imports ---------------------------------------------------------------------------------
    def child_alias(self, child: ChildMachine) -> str:
        return "_invoked_" + child.module.replace(".", "_")

    def child_imports(self) -> list[tuple[str, str]]:
        """``(module, alias)`` per child module, each once."""
        found = {invoke.machine.module: invoke.machine for _, invoke in self.invokes()}
        return [(module, self.child_alias(child)) for module, child in found.items()]

    def child_class(self, child: ChildMachine, name: str) -> str:
        return f"{self.child_alias(child)}.{name}"

    def child_handlers(self, asynchronous: bool) -> list[str]:
        """The handlers protocol of each machine this one invokes, each once, typed by this
        machine's context (a child runs on its parent's handlers object and context). A chart
        that invokes itself is left out: its protocol is already this one; so is a machine in
        :attr:`cut` (it invokes this one, directly or not: including each other's protocols would
        be a cycle of bases)."""
        machine = self.machine
        left_out = {(machine.module_name, machine.name), *self.cut}
        found = {
            invoke.machine: None
            for _, invoke in self.invokes()
            if (invoke.machine.module, invoke.machine.name) not in left_out
        }
        protocols = [self.child_class(c, c.invoked_handlers_class(asynchronous)) for c in found]
        return [f"{protocol}[ContextT_contra]" for protocol in protocols]

    # -- the chart literal -----------------------------------------------------------------------
    def invokes_literal(self, state: str) -> str:
        """``invokes=(Invoke(...), ...)`` of one node ("" when it invokes nothing)."""
        invokes = self.machine.state(state).invokes
        found = [self.invoke_literal(invoke, (state, n)) for n, invoke in enumerate(invokes)]
        return tuple_literal(found) if found else ""

    def invoke_literal(self, invoke: Invoke, key: tuple[str, int]) -> str:
        child = invoke.machine
        arguments = [
            f"lambda: {self.child_class(child, child.machine_class)}",
            f"lambda: {self.child_class(child, child.async_class)}",
        ]
        optional = [
            ("id", string_literal(invoke.id) if invoke.id else ""),
            ("id_location", string_literal(invoke.id_location) if invoke.id_location else ""),
            ("params", self.params_names[key] if invoke.params else ""),
            ("autoforward", "True" if invoke.autoforward else ""),
            ("finalize", self.steps_literal(invoke.finalize) if invoke.finalize else ""),
        ]
        arguments += [f"{key}={value}" for key, value in optional if value]
        return f"Invoke({', '.join(arguments)})"

    def child_event(self, step: SendStep) -> str | None:
        """The child's event member a send to ``#_<id>`` sends (None: not a send to a child)."""
        for _, invoke in self.invokes():
            if invoke.id and step.target == f"#_{invoke.id}" and step.event:
                member = step.event.upper()  # the compiler's member for an event's name
                return f"{self.child_class(invoke.machine, invoke.machine.event_class)}.{member}"
        return None

    # -- params ----------------------------------------------------------------------------------
    def params_functions(self) -> list[ParamsFunction]:
        functions = []
        for state, invoke in self.invokes():
            position = self.machine.state(state).invokes.index(invoke)
            if not invoke.params:
                continue
            child = invoke.machine
            which = f"{invoke.id!r}" if invoke.id else f"of {state}"
            text = (
                f"The initial data of the child {which} ({child.text}): mypy checks each "
                f"field against {child.data_class}."
            )
            functions.append(
                ParamsFunction(
                    self.params_names[(state, position)],
                    invoke.params[0][1].event_data,
                    self.child_class(child, child.data_class),
                    wrapped_docstring(text, 4),
                    tuple((name, expression.python) for name, expression in invoke.params),
                )
            )
        return functions

    def params_expressions(self) -> list[Expression]:
        return [expression for _, invoke in self.invokes() for _, expression in invoke.params]

    # -- the children view -----------------------------------------------------------------------
    @cached_property
    def children_views(self) -> tuple[ChildrenView, ChildrenView] | None:
        """The ``children`` view of the sync machine, then of the async one (None: the chart
        invokes nothing)."""
        if not any(True for _ in self.invokes()):
            return None
        views = []
        for flavour in ("", "Async"):
            properties = []
            for state, invoke in self.invokes():
                if not invoke.id:
                    continue
                child = invoke.machine
                name = child.async_class if flavour else child.machine_class
                text = f"The child {invoke.id!r} ({child.text}) while {state} runs it, else None."
                properties.append(
                    ChildProperty(
                        invoke.id,
                        string_literal(invoke.id),
                        f"{self.child_class(child, name)}[Any] | None",
                        wrapped_docstring(text, 8),
                    )
                )
            text = (
                f"The running child machines of the {self.machine.name}{flavour}Machine by "
                "invoke id; each child with a fixed id is also a typed property."
            )
            views.append(
                ChildrenView(
                    f"{self.machine.name}{flavour}Children",
                    wrapped_docstring(text, 4),
                    tuple(properties),
                )
            )
        return views[0], views[1]

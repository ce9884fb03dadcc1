"""Pass 3 of validation: every expression of the spec, checked in its slot and compiled.

Runs on the built machine once names resolve (a broken reference would only cascade here). Each
slot's scope holds the data fields' types, the states ``In()`` may name (as the test on the
active states' indexes the chart's guards use) and the type of ``_event.data`` there:

* a transition's ``cond``, actions and ``then``: the union of its trigger events' payloads (an
  eventless transition's: any event's, or none);
* a state's entry and initial actions: the payloads of the events that can enter it, its exit
  actions those that can exit it (:mod:`statewright_compiler.model.triggers`), a final state's
  done data those that enter it;
* data initializers (``expr``): no event's payload;
* a child machine's params: those of the events that enter its state; its finalize: ``Any``
  (the events of the child, whose payloads the child's spec types).

"No event's payload" (at start, after an eventless step or a raised event) has no fields, so
``_event.data.x`` there is a type error. A ``done.state`` event whose final states carry done
data has data of type ``Any``. docs/spec-language.md says the same for users.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from statewright_compiler.check.content import ContentCompiler, event_records
from statewright_compiler.expressions.nodes import Expr, ExpressionError, Name
from statewright_compiler.expressions.scope import Scope
from statewright_compiler.expressions.syntax import parse_expression
from statewright_compiler.expressions.types import (
    ANY,
    NO_EVENT,
    STR,
    Type,
    from_payload_type,
    union,
)
from statewright_compiler.model import Expression, Invoke, KeyPath, Machine, Step
from statewright_compiler.model.triggers import state_triggers
from statewright_compiler.spec.declarations import Declarations
from statewright_compiler.spec.reporter import Reporter

__all__ = ["compile_expressions"]


class _Checker(ContentCompiler):
    def __init__(self, machine: Machine, reporter: Reporter) -> None:
        data = {field.name: from_payload_type(field.type) for field in machine.data}
        states = {state.name: f"{index} in active" for index, state in enumerate(machine.states)}
        super().__init__(reporter, machine, data, states)
        self.records = event_records(machine)
        self.everything = (*self.records, "")
        self.entered, self.exited = state_triggers(machine)
        self.scopes: dict[frozenset[str], Scope] = {}

    def scope(self, keys: Iterable[str]) -> Scope:
        """The scope of a slot ``keys`` (event names, ``""`` for none) can trigger."""
        found = frozenset(keys) or frozenset({""})
        if found not in self.scopes:
            types: list[Type] = [self.records.get(key, NO_EVENT) for key in found]
            ordered = sorted(types, key=lambda each: (each.name == NO_EVENT.name, each.name))
            self.scopes[found] = Scope(self.data, union(*ordered), self.states)
        return self.scopes[found]

    def step_list(
        self, steps: Sequence[Step], path: KeyPath, keys: Iterable[str]
    ) -> tuple[Step, ...]:
        return self.steps(steps, path, self.scope(keys))

    def machine(self, declarations: Declarations, rule_paths: Sequence[KeyPath]) -> Machine:
        machine = self.model
        rules = []
        for rule, path in zip(machine.rules, rule_paths, strict=True):
            keys = rule.events if rule.event else self.everything
            cond = rule.cond and self.slots.condition(rule.cond, self.scope(keys))
            rules.append(
                dataclasses.replace(
                    rule,
                    cond=cond or rule.cond,
                    steps=self.step_list(rule.steps, (*path, "actions"), keys),
                    then=self.step_list(rule.then, (*path, "then"), keys),
                )
            )
        transitions = tuple(
            dataclasses.replace(
                transition,
                cond=rules[transition.rule_index].cond,
                steps=rules[transition.rule_index].steps,
                then=rules[transition.rule_index].then,
            )
            for transition in machine.transitions
        )
        paths = {raw.name: raw.path for raw in declarations.states}
        states = []
        for state in machine.states:
            path = paths[state.name]
            entered = self.entered[state.name]
            parent = self.entered[state.parent or state.name]
            states.append(
                dataclasses.replace(
                    state,
                    entry=self.step_list(state.entry, (*path, "entry"), entered),
                    exit=self.step_list(state.exit, (*path, "exit"), self.exited[state.name]),
                    initial_steps=self.step_list(
                        state.initial_steps, (*path, "initial", "actions"), entered
                    ),
                    default_steps=self.step_list(
                        state.default_steps, (*path, "default", "actions"), parent
                    ),
                    donedata=self.donedata(state, path, self.scope(entered)),
                    invokes=tuple(self.invoke(invoke, entered) for invoke in state.invokes),
                )
            )
        fields = tuple(
            dataclasses.replace(field, expr=self.initializer(field.expr, field.name))
            if field.expr is not None
            else field
            for field in machine.data
        )
        return dataclasses.replace(
            machine,
            rules=tuple(rules),
            transitions=transitions,
            states=tuple(states),
            data=fields,
            initial_steps=self.step_list(machine.initial_steps, ("machine", "initial"), ("",)),
        )

    def invoke(self, invoke: Invoke, entered: Iterable[str]) -> Invoke:
        """A child machine's params (computed when it starts: after the state is entered) and
        its finalize (run on the events of the child, whose data is ``Any`` here)."""
        if invoke.id_location is not None:
            where = (*invoke.path, "id_location")
            self.field(invoke.id_location, where, STR, "the id location")
        scope = self.scope(entered)
        params = tuple(
            (name, self.slots.value(expression, scope, None) or expression)
            for name, expression in invoke.params
        )
        from_child = Scope(self.data, ANY, self.states)
        finalize = self.steps(invoke.finalize, (*invoke.path, "finalize"), from_child)
        return dataclasses.replace(invoke, params=params, finalize=finalize)

    def initializer(self, expression: Expression, name: str) -> Expression:
        self.check_order(expression, name)
        compiled = self.slots.value(
            expression, self.scope(("",)), self.data[name], f"data field {name!r}"
        )
        return compiled or expression

    def check_order(self, expression: Expression, name: str) -> None:
        """An initializer reads the fields with literal values and the computed ones declared
        before it: the others are not set yet when it runs (fields start in spec order)."""
        try:
            node = parse_expression(expression.text)
        except ExpressionError:
            return  # reported when the value is compiled
        order = [field.name for field in self.model.data]
        computed = {f.name for f in self.model.data if f.expr is not None or f.state is not None}
        for used in _names(node):
            if used.name in computed and order.index(used.name) >= order.index(name):
                message = (
                    f"data field {used.name!r} is not set yet when {name!r} starts: fields "
                    "get their initial values in spec order"
                )
                self.slots.report(expression, ExpressionError(message, used.offset, "type-error"))
                return


def _names(node: Expr) -> list[Name]:
    """The names ``node`` reads, outermost first."""
    found = [node] if isinstance(node, Name) else []
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        children = value if isinstance(value, tuple) else (value,)
        for child in children:
            if isinstance(child, Expr):
                found += _names(child)
    return [name for name in found if isinstance(name, Name)]


def compile_expressions(
    machine: Machine,
    declarations: Declarations,
    rule_paths: Sequence[KeyPath],
    reporter: Reporter,
) -> Machine:
    """``machine`` with every expression compiled; errors go to ``reporter`` (the machine is
    then not used)."""
    return _Checker(machine, reporter).machine(declarations, rule_paths)

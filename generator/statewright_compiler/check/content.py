"""Compiling executable content: each step's expressions in the scope of the list it is in, and
what a step stores checked against the data fields (an assign's location, a foreach's item and
index, a send's id location) and, for a send to a known event, its data against that event's
payload: every field given is declared with a type the value has, every required field is
given, and an optional field left out is sent as ``None`` (so the event's data is what its
``TypedDict`` says). A done event's data is ``Any`` when its final states carry done data."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from statewright_compiler.check.slots import SlotCompiler, returned
from statewright_compiler.expressions.locations import translate_location
from statewright_compiler.expressions.nodes import (
    Constant,
    DictDisplay,
    ExpressionError,
    Name,
    Subscript,
)
from statewright_compiler.expressions.rules import type_error
from statewright_compiler.expressions.scope import Scope
from statewright_compiler.expressions.translate import translate
from statewright_compiler.expressions.types import (
    ANY,
    INT,
    STR,
    Type,
    assignable,
    base,
    from_payload_type,
    members,
)
from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    Expression,
    ForeachStep,
    IfStep,
    KeyPath,
    LogStep,
    Machine,
    SendStep,
    State,
    StateKind,
    Step,
    done_invoke_value,
)
from statewright_compiler.spec.literals import string_literal
from statewright_compiler.spec.reporter import Reporter

__all__ = ["ContentCompiler", "event_records"]

#: What only the runtime reads: a sent event's data without a payload to check it against.
_ANY_DATA = Type("dict", (Type("object"),))


def event_records(machine: Machine) -> dict[str, Type]:
    """Each event's data type: its payload (a ``TypedDict``), or ``Any`` for a ``done.state``
    event whose final states carry done data and for a ``done.invoke`` event (its child's done
    data, which the child's own spec types)."""
    with_donedata = {
        f"done.state.{state.value}"
        for state in machine.states
        if any(
            child.kind is StateKind.FINAL and (child.donedata or child.donedata_params)
            for child in (machine.state(name) for name in state.children)
        )
    }
    with_donedata |= {
        done_invoke_value(each, state.name) for state in machine.states for each in state.invokes
    }
    return {
        event.name: ANY
        if event.value in with_donedata
        else Type(
            "record",
            fields=tuple(
                (field.name, from_payload_type(field.type), True) for field in event.payload
            ),
            name=event.payload_type,
        )
        for event in machine.events
    }


class ContentCompiler:
    records: dict[str, Type]

    def __init__(
        self,
        reporter: Reporter,
        model: Machine,
        data: Mapping[str, Type],
        states: Mapping[str, str],
    ) -> None:
        self.reporter = reporter
        self.model = model
        self.data = data
        self.states = states
        self.slots = SlotCompiler(reporter)
        #: ``#_<id>`` of each child with a fixed id: a send there sends the child's event.
        self.children = {
            f"#_{invoke.id}" for state in model.states for invoke in state.invokes if invoke.id
        }

    def error(self, path: KeyPath, message: str, *, key: bool = False) -> None:
        self.reporter.report("type-error", path, message, key=key)

    def field(self, name: str, path: KeyPath, value: Type, what: str) -> None:
        """``name`` is a data field that can hold ``value``."""
        if name not in self.data:
            self.error(path, f"{what} {name!r} is not a data field")
        elif not assignable(value, self.data[name]):
            self.error(path, f"{what} {name!r} is {self.data[name]}, and {value} is not")

    def steps(self, steps: Sequence[Step], path: KeyPath, scope: Scope) -> tuple[Step, ...]:
        return tuple(self.step(step, (*path, index), scope) for index, step in enumerate(steps))

    def step(self, step: Step, path: KeyPath, scope: Scope) -> Step:
        slots = self.slots
        if isinstance(step, AssignStep):
            return self.assign(step, scope)
        if isinstance(step, IfStep):
            branches = []
            for number, (test, branch) in enumerate(step.branches):
                where = (*path, "then") if number == 0 else (*path, "elif", number - 1, "then")
                compiled = slots.condition(test, scope) or test
                branches.append((compiled, self.steps(branch, where, scope)))
            otherwise = self.steps(step.otherwise, (*path, "else"), scope)
            return IfStep(tuple(branches), otherwise)
        if isinstance(step, ForeachStep):
            return self.foreach(step, path, scope)
        if isinstance(step, LogStep) and step.expr is not None:
            return dataclasses.replace(step, expr=slots.value(step.expr, scope, None) or step.expr)
        if isinstance(step, CancelStep) and step.id_expr is not None:
            id_expr = slots.of_kinds(step.id_expr, scope, ("str",), STR)
            return dataclasses.replace(step, id_expr=id_expr or step.id_expr)
        if isinstance(step, SendStep):
            return self.send(step, path, scope)
        return step

    def assign(self, step: AssignStep, scope: Scope) -> Step:
        node = self.slots.parse(step.location)
        if node is None:
            return step
        try:
            location = translate_location(node, scope)
        except ExpressionError as error:
            self.slots.report(step.location, error)
            return step
        what = f"{step.location.text.strip()!r}" if isinstance(node, Name) else "the item"
        value = self.slots.value(step.value, scope, location.type, what) or step.value
        if isinstance(node, Name):
            return dataclasses.replace(step, value=value, field=node.name)
        assert isinstance(node, Subscript)  # translate_location takes no other form
        container = translate_location(node.value, scope)
        kinds = {member.kind for member in members(base(container.type))}
        if not kinds <= {"list", "dict", "any"}:
            wrong = type_error(node, f"an item of {container.type} cannot be assigned to")
            self.slots.report(step.location, wrong)
            return step
        key = translate(node.index, scope)
        declared = INT if kinds == {"list"} else STR if kinds == {"dict"} else None
        compile = self.slots.compiled
        return dataclasses.replace(
            step,
            value=value,
            container=compile(step.location, scope, container.source, returned(container.type)),
            key=compile(step.location, scope, key.source, returned(key.type, declared)),
        )

    def foreach(self, step: ForeachStep, path: KeyPath, scope: Scope) -> Step:
        found = self.slots.translated(step.array, scope)
        steps = self.steps(step.steps, (*path, "do"), scope)
        if found is None:
            return dataclasses.replace(step, steps=steps)
        node, array = found
        items: list[Type] = []
        for member in members(base(array.type)):
            if member.kind not in ("list", "dict", "any", "never"):
                error = type_error(node, f"foreach needs a list or a dict, not {array.type}")
                self.slots.report(step.array, error)
                return dataclasses.replace(step, steps=steps)
            items.append(STR if member.kind == "dict" else member.args[0] if member.args else ANY)
        for item in items:
            self.field(step.item, (*path, "item"), item, "the item field")
        if step.index is not None:
            self.field(step.index, (*path, "index"), INT, "the index field")
        compiled = self.slots.compiled(step.array, scope, array.source, Type("object"))
        return dataclasses.replace(step, array=compiled, steps=steps)

    def send(self, step: SendStep, path: KeyPath, scope: Scope) -> Step:
        slots = self.slots
        names = ("str",)
        event_expr = step.event_expr and slots.of_kinds(step.event_expr, scope, names, STR)
        target_expr = step.target_expr and slots.of_kinds(step.target_expr, scope, names, STR)
        type_expr = step.type_expr and slots.of_kinds(step.type_expr, scope, names, STR)
        delay_kinds = ("int", "float", "bool", "str")
        delay_type = Type("union", (Type("float"), STR))
        delay_expr = step.delay_expr and slots.of_kinds(
            step.delay_expr, scope, delay_kinds, delay_type
        )
        if step.id_location is not None:
            self.field(step.id_location, (*path, "idlocation"), STR, "the id location")
        return dataclasses.replace(
            step,
            event_expr=event_expr or step.event_expr,
            target_expr=target_expr or step.target_expr,
            type_expr=type_expr or step.type_expr,
            delay_expr=delay_expr or step.delay_expr,
            data=self.send_data(step, path, scope),
        )

    def send_data(self, step: SendStep, path: KeyPath, scope: Scope) -> Expression | None:
        """The event's data as one expression: a dict of the params and the namelist's
        fields, or the content."""
        named = step.event and step.target not in self.children
        record = self.records.get(step.event, ANY) if named else ANY
        checked = record.kind == "record"
        if step.content is not None:
            return self.content(step, path, scope, record)
        if not step.params and not step.namelist:
            return None
        entries: list[tuple[str, str, Type, KeyPath]] = []
        for name, expression in step.params:
            found = self.slots.translated(expression, scope)
            if found is not None:
                entries.append((name, found[1].source, found[1].type, (*path, "data", name)))
        for index, name in enumerate(step.namelist):
            if name not in self.data:
                self.error((*path, "namelist", index), f"{name!r} is not a data field")
                continue
            entries.append((name, f"data.{name}", self.data[name], (*path, "namelist", index)))
        if checked:
            entries += self.check_payload(step.event, record, entries, path)
        pairs = ", ".join(f"{string_literal(name)}: {source}" for name, source, _, _ in entries)
        returns = Type("record", name=record.name) if checked else _ANY_DATA
        synthetic = Expression(step.event or "data", (*path, "send"), "data")
        return self.slots.compiled(synthetic, scope, "{" + pairs + "}", returns)

    def check_payload(
        self,
        event: str,
        record: Type,
        entries: Sequence[tuple[str, str, Type, KeyPath]],
        path: KeyPath,
    ) -> list[tuple[str, str, Type, KeyPath]]:
        """Report what does not fit ``event``'s payload; the optional fields left out, as
        entries sending ``None``."""
        given = set()
        for name, _, value, where in entries:
            given.add(name)
            declared = record.field(name)
            if declared is None:
                fields = ", ".join(name for name, _, _ in record.fields) or "none"
                message = f"event {event!r} has no payload field {name!r} (its fields: {fields})"
                self.error(where, message, key=True)
            elif not assignable(value, declared[0]):
                self.error(
                    where,
                    f"payload field {name!r} of {event!r} is {declared[0]}, and {value} is not",
                )
        missing = []
        for name, field_type, _ in record.fields:
            if name in given:
                continue
            if assignable(Type("none"), field_type):
                missing.append((name, "None", Type("none"), path))
            else:
                self.error(
                    (*path, "send"), f"the send of {event!r} leaves out its payload field {name!r}"
                )
        return missing

    def content(
        self, step: SendStep, path: KeyPath, scope: Scope, record: Type
    ) -> Expression | None:
        assert step.content is not None
        found = self.slots.translated(step.content, scope)
        if found is None:
            return None
        node, content = found
        if record.kind != "record":
            return self.slots.compiled(step.content, scope, content.source, Type("object"))
        if content.type == record:
            return self.slots.compiled(step.content, scope, content.source, record)
        if isinstance(node, DictDisplay) and all(
            isinstance(key, Constant) and isinstance(key.value, str) for key in node.keys
        ):
            entries = []
            for key, value in zip(node.keys, node.values, strict=True):
                assert isinstance(key, Constant) and isinstance(key.value, str)
                entries.append((key.value, "", translate(value, scope).type, (*path, "content")))
            missing = self.check_payload(step.event, record, entries, path)
            source = content.source
            if missing:
                extra = ", ".join(f"{string_literal(name)}: None" for name, *_ in missing)
                source = source[:-1] + (", " if entries else "") + extra + "}"
            return self.slots.compiled(step.content, scope, source, record)
        self.slots.report(
            step.content,
            type_error(
                node,
                f"the content of {step.event!r} must be its payload ({record}): "
                "a table of its fields",
            ),
        )
        return None

    def donedata(self, state: State, path: KeyPath, scope: Scope) -> Expression | None:
        if state.donedata is not None:
            return self.slots.value(state.donedata, scope, None) or state.donedata
        if not state.donedata_params:
            return None
        entries = []
        for name, expression in state.donedata_params:
            found = self.slots.translated(expression, scope)
            if found is not None:
                entries.append(f"{string_literal(name)}: {found[1].source}")
        synthetic = Expression("donedata", (*path, "donedata"), "done data")
        return self.slots.compiled(synthetic, scope, "{" + ", ".join(entries) + "}", _ANY_DATA)

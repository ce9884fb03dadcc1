"""Pass 1 of validation, the shape pass: every table's keys, types and names, collected into
:class:`~declarations.Declarations` (references are resolved in :mod:`semantics`)."""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any, Final

from statewright_compiler.model import DataField, Expression, Import, StateKind
from statewright_compiler.spec.declarations import Declarations, RawState
from statewright_compiler.spec.naming import camel_case, is_identifier
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.read_events import EventReader
from statewright_compiler.spec.read_invokes import InvokeReader
from statewright_compiler.spec.read_rules import RuleReader

__all__ = ["SpecReader"]

_KINDS: Final = {kind.value: kind for kind in StateKind}


class SpecReader(EventReader, RuleReader, InvokeReader):
    """The whole spec: ``[machine]``, ``[imports]``, ``[states]`` (with their child machines),
    then events and rules."""

    def read(self, document: Mapping[str, Any]) -> Declarations:
        self.check_keys(document, (), "spec")
        machine = self.table(document, "machine", ())
        self.check_keys(machine, ("machine",), "machine")
        name = self.machine_name(machine)
        version = machine.get("version", 1)
        if not self.typed(version, ("machine", "version"), int, "'version'") or version < 1:
            if isinstance(version, int) and not isinstance(version, bool):
                self.reporter.report("wrong-type", ("machine", "version"), "'version' must be >= 1")
            version = 1
        initial = machine.get("initial")
        initial_names = (
            self.targets(initial, ("machine", "initial"), "initial state") or ()
            if initial is not None
            else ()
        )
        on_error = self.text(machine, "on_error", ("machine",), "raise")
        if "on_error" in machine:
            self.chart_feature("'on_error'", ("machine", "on_error"))
        if on_error not in ("raise", "event"):
            self.reporter.report(
                "wrong-type",
                ("machine", "on_error"),
                f"unknown on_error {on_error!r}",
                "one of: raise, event",
            )
            on_error = "raise"
        module_name = self.module_stem
        if "module" in machine:
            module_name = (
                self.name(machine["module"], ("machine", "module"), "module") or module_name
            )
        elif not is_identifier(module_name) or keyword.iskeyword(module_name):
            self.reporter.report(
                "invalid-name",
                ("machine",),
                f"the spec file name {module_name!r} is not a valid Python module name",
                "rename the file or set machine.module",
                key=True,
            )
        binding = self.binding(machine)
        if "binding" in machine:
            self.chart_feature("'binding'", ("machine", "binding"))
        if self.flag(machine, "statechart", ("machine",)):  # what a child machine must be
            self.chart_feature("'statechart = true'", ("machine", "statechart"))
        imports = self.imports(self.table(document, "imports", ()))
        imported = {item.name: item.module for item in imports}
        data = self.table(document, "data", ())
        if data:
            self.chart_feature("a data model", ("data",))
        self.data_table(data, ("data",), None, imported)
        states = self.states(self.table(document, "states", ()), imported)
        events = self.events(self.table(document, "events", ()), imported)
        rules = [rule for state in states for rule in self.state_rules(document, state)]
        rules += self.transition_rules(document)
        rules.sort(
            key=lambda rule: (self.reporter.line(rule.path), self.reporter.column(rule.path))
        )
        return Declarations(
            name=name or "Machine",
            module_name=module_name,
            description=self.text(machine, "description", ("machine",)),
            version=version,
            initial=initial_names,
            metadata=self.metadata(machine, ("machine",)),
            imports=imports,
            states=tuple(states),
            events=tuple(events),
            rules=tuple(rules),
            error_handlers=tuple(self.error_handlers(document)),
            declared_events=frozenset(self.table(document, "events", ())),
            on_error=on_error,
            chart_features=tuple(self.chart_features),
            said_external=frozenset(self.said_external),
            data=self.unique_fields(),
            binding=binding,
        )

    def unique_fields(self) -> tuple[tuple[DataField, KeyPath], ...]:
        """The data fields read, each name once: a state's fields are global names too."""
        seen: dict[str, KeyPath] = {}
        fields = []
        for field, path in self.data_fields:
            if field.name in seen:
                first = seen[field.name]
                self.reporter.report(
                    "duplicate-name",
                    path,
                    f"data field {field.name!r} is declared twice (first at line "
                    f"{self.reporter.line(first)}): a state's fields are the machine's too",
                    "rename one of them",
                    key=True,
                )
                continue
            seen[field.name] = path
            fields.append((field, path))
        return tuple(fields)

    def machine_name(self, machine: Mapping[str, Any]) -> str | None:
        if "name" not in machine:
            return None
        name = self.name(machine["name"], ("machine", "name"), "machine name")
        if name is not None and not name[0].isupper():
            self.reporter.report(
                "invalid-name",
                ("machine", "name"),
                f"machine name {name!r} must start with an "
                "upper-case letter (it prefixes class names)",
                f"use {camel_case(name)!r}",
            )
            return None
        return name

    def imports(self, table: Mapping[str, Any]) -> tuple[Import, ...]:
        imports: list[Import] = []
        for module, names in table.items():
            path: KeyPath = ("imports", module)
            if not all(
                is_identifier(part) and not keyword.iskeyword(part) for part in module.split(".")
            ):
                self.reporter.report(
                    "invalid-import", path, f"{module!r} is not a module path", key=True
                )
                continue
            if module == "__future__":
                self.reporter.report(
                    "invalid-import",
                    path,
                    "'__future__' imports are compiler directives, not payload types",
                    "import the type from the module that defines it",
                    key=True,
                )
                continue
            if not self.typed(names, path, list, f"imports of {module!r}"):
                continue
            for index, name in enumerate(names):
                if self.name(name, (*path, index), "imported name") is not None:
                    imports.append(Import(module, name))
        return tuple(imports)

    def states(self, table: Mapping[str, Any], imported: Mapping[str, str]) -> list[RawState]:
        if not table:
            self.reporter.report("missing-key", (), "the spec declares no states", key=True)
        states: list[RawState] = []
        for key, body in table.items():
            path: KeyPath = ("states", key)
            name = self.name(key, path, "state name")
            if not self.typed(body, path, dict, f"state {key!r}") or name is None:
                continue
            self.check_keys(body, path, "state")
            kind_text = self.text(body, "kind", path, "normal")
            if kind_text not in _KINDS:
                hint = f"one of: {', '.join(_KINDS)}"
                self.reporter.report(
                    "wrong-type", (*path, "kind"), f"unknown state kind {kind_text!r}", hint
                )
            value = self.text(body, "value", path, name) or name
            kind = _KINDS.get(kind_text, StateKind.NORMAL)
            initial, initial_steps = self.default_transition(body, "initial", path, "initial state")
            default, default_steps = self.default_transition(
                body, "default", path, "history default"
            )
            history = self.history(body, path, kind)
            if "data" in body:
                self.chart_feature("a state's data", (*path, "data"))
                self.data_table(self.table(body, "data", path), (*path, "data"), name, imported)
            donedata_params, donedata = self.donedata(body, path, kind)
            for key in ("parent", "initial", "history", "default"):
                if key in body:
                    self.chart_feature(f"'{key}'", (*path, key))
            if kind in (StateKind.PARALLEL, StateKind.HISTORY):
                self.chart_feature(f"a {kind.value} state", (*path, "kind"))
            states.append(
                RawState(
                    name=name,
                    value=value,
                    label=self.text(body, "label", path, value) or value,
                    description=self.text(body, "description", path),
                    kind=kind,
                    tags=self.names(body, "tags", path, "tag"),
                    entry=self.steps(body, "entry", path),
                    exit=self.steps(body, "exit", path),
                    metadata=self.metadata(body, path),
                    path=path,
                    parent=self.name(body["parent"], (*path, "parent"), "parent state")
                    if "parent" in body
                    else None,
                    initial=initial,
                    initial_steps=initial_steps,
                    history=history,
                    default=default,
                    default_steps=default_steps,
                    donedata_params=donedata_params,
                    donedata=donedata,
                    invokes=self.invokes(body, path),
                )
            )
        return states

    def donedata(
        self, body: Mapping[str, Any], path: KeyPath, kind: StateKind
    ) -> tuple[tuple[tuple[str, Expression], ...], Expression | None]:
        """A final state's ``donedata``: named values (a table) or one expression."""
        if "donedata" not in body:
            return (), None
        where: KeyPath = (*path, "donedata")
        self.chart_feature("done data", where)
        if kind is not StateKind.FINAL:
            self.reporter.report(
                "wrong-type",
                where,
                "only a final state has done data",
                'add kind = "final" or remove donedata',
                key=True,
            )
            return (), None
        value = body["donedata"]
        if isinstance(value, dict):
            return self.params(value, where) or (), None
        return (), self.expression(body, "donedata", path, "done data")

    def history(self, body: Mapping[str, Any], path: KeyPath, kind: StateKind) -> str:
        """``shallow`` or ``deep`` for a history state (default shallow); "" for other kinds."""
        text = self.text(body, "history", path, "shallow")
        if text not in ("shallow", "deep"):
            self.reporter.report(
                "wrong-type", (*path, "history"), f"unknown history {text!r}", "shallow or deep"
            )
            text = "shallow"
        if kind is not StateKind.HISTORY:
            for key in ("history", "default"):
                if key in body:
                    self.reporter.report(
                        "invalid-history",
                        (*path, key),
                        f"{key!r} belongs to a history state",
                        'add kind = "history" or remove the key',
                        key=True,
                    )
            return ""
        return text

"""Step 2 of the pipeline: check a loaded spec and build the :class:`~model.Machine`.

Checking is split in two passes. :class:`_Reader` checks the shape of every table (keys, types,
names) and collects declarations; :mod:`semantics` then resolves references, expands selectors
and checks machine-level rules. Every problem becomes a :class:`Diagnostic`; all of them are
reported together, and no model is built while any error remains.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from statewright_compiler.diagnostics import Diagnostic, Severity, SpecError, did_you_mean
from statewright_compiler.guards import GuardSyntaxError, guard_names, parse_guard
from statewright_compiler.load import SpecSource, load_spec
from statewright_compiler.model import (
    PREVIOUS_TARGET,
    Event,
    GuardExpression,
    Import,
    Machine,
    MetadataValue,
    PayloadField,
    SourceSelector,
    StateKind,
)
from statewright_compiler.naming import camel_case, is_identifier
from statewright_compiler.payload_types import PayloadTypeError, parse_payload_type
from statewright_compiler.positions import KeyPath
from statewright_compiler.schema import allowed_keys, required_keys

__all__ = ["RESERVED_METHOD_NAMES", "compile_spec", "validate_source"]

#: Attribute names of the runtime's ``Machine`` (and Python's object model) that an event's
#: method must not shadow. A test checks this covers every public name of ``statewright.Machine``.
RESERVED_METHOD_NAMES: Final = frozenset(
    {
        "add_listener", "allowed_events", "can_send", "context", "fsm_record", "handlers",
        "history", "in_tag", "instance_id", "is_final", "iteration_counts", "last_transition",
        "load", "options", "previous_state", "remove_listener", "restore", "revision", "save",
        "send", "snapshot", "spec", "state", "statistics", "total_transitions",
        "transition_counts", "transition_probabilities", "try_send", "mro", "self", "cls",
    }
)  # fmt: skip

_KINDS: Final = {kind.value: kind for kind in StateKind}
#: What :meth:`_Reader.name` calls names that become methods of the user's handlers object.
HANDLER_ROLES: Final = frozenset({"action"})


@dataclass(frozen=True)
class RawState:
    name: str
    value: str
    label: str
    description: str
    kind: StateKind
    tags: tuple[str, ...]
    entry_actions: tuple[str, ...]
    exit_actions: tuple[str, ...]
    metadata: tuple[tuple[str, MetadataValue], ...]
    path: KeyPath


@dataclass(frozen=True)
class RawRule:
    """A transition rule before names are resolved; ``path`` locates it for diagnostics."""

    source: SourceSelector
    event: str
    target: str
    guard: GuardExpression | None
    actions: tuple[str, ...]
    checkpoint: bool
    description: str
    metadata: tuple[tuple[str, MetadataValue], ...]
    path: KeyPath
    #: Where the source selector, the event and the target are written.
    source_path: KeyPath
    event_path: KeyPath
    target_path: KeyPath


@dataclass(frozen=True)
class RawErrorHandler:
    source: SourceSelector
    target: str
    actions: tuple[str, ...]
    description: str
    path: KeyPath


@dataclass(frozen=True)
class Declarations:
    """Everything :class:`_Reader` collected, for the semantic pass."""

    name: str
    module_name: str
    description: str
    version: int
    initial: str | None
    metadata: tuple[tuple[str, MetadataValue], ...]
    imports: tuple[Import, ...]
    states: tuple[RawState, ...]
    events: tuple[Event, ...]
    rules: tuple[RawRule, ...]
    error_handlers: tuple[RawErrorHandler, ...]
    #: Every event key in the spec, valid or not: a rejected event is not also "undeclared".
    declared_events: frozenset[str] = frozenset()


class Reporter:
    """Collects diagnostics for one spec, turning key paths into positions."""

    def __init__(self, source: SpecSource) -> None:
        self.source = source
        self.diagnostics: list[Diagnostic] = []

    def report(
        self,
        code: str,
        path: KeyPath,
        message: str,
        hint: str | None = None,
        *,
        key: bool = False,
        offset: int = 0,
        severity: Severity = Severity.ERROR,
    ) -> None:
        position = self.source.locate(path, key=key)
        self.diagnostics.append(
            Diagnostic(
                code,
                self.source.path,
                position.line,
                position.column + offset,
                message,
                hint,
                severity,
            )
        )

    def report_at(
        self, code: str, line: int, column: int, message: str, hint: str | None = None
    ) -> None:
        self.diagnostics.append(Diagnostic(code, self.source.path, line, column, message, hint))

    @property
    def has_errors(self) -> bool:
        return any(diagnostic.is_error for diagnostic in self.diagnostics)

    def line(self, path: KeyPath) -> int:
        return self.source.locate(path).line

    def column(self, path: KeyPath) -> int:
        return self.source.locate(path).column


def _excerpt(text: str, limit: int = 60) -> str:
    """``text`` quoted for a message, shortened when long (a diagnostic is one readable line)."""
    return repr(text) if len(text) <= limit else repr(text[: limit - 3]) + "..."


def _describe_type(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string"}
    names |= {list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)


class _Reader:
    """Pass 1: the shape of each table. Wrong values are reported and replaced by defaults."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.module_stem = Path(reporter.source.path).stem

    # -- typed accessors ----------------------------------------------------------------------
    def check_keys(self, table: Mapping[str, Any], path: KeyPath, definition: str) -> None:
        allowed = allowed_keys(definition)
        for key in table:
            if key not in allowed:
                hint = did_you_mean(key, allowed) or f"allowed keys: {', '.join(allowed)}"
                self.reporter.report(
                    "unknown-key", (*path, key), f"unknown key {key!r}", hint, key=True
                )
        for key in required_keys(definition):
            if key not in table:
                where = "".join(
                    f"[{part}]" if isinstance(part, int) else f".{part}" for part in path
                ).lstrip(".")
                self.reporter.report(
                    "missing-key", path, f"{where or 'the spec'} needs the key {key!r}", key=True
                )

    def typed(self, value: object, path: KeyPath, expected: type, what: str) -> bool:
        if isinstance(value, expected) and not (expected is int and isinstance(value, bool)):
            return True
        self.reporter.report(
            "wrong-type",
            path,
            f"{what} must be {_describe_type(expected())}, not {_describe_type(value)}",
        )
        return False

    def table(self, parent: Mapping[str, Any], key: str, path: KeyPath) -> dict[str, Any]:
        value = parent.get(key, {})
        return value if self.typed(value, (*path, key), dict, repr(key)) else {}

    def text(self, parent: Mapping[str, Any], key: str, path: KeyPath, default: str = "") -> str:
        value = parent.get(key, default)
        return value if self.typed(value, (*path, key), str, repr(key)) else default

    def flag(self, parent: Mapping[str, Any], key: str, path: KeyPath) -> bool:
        value = parent.get(key, False)
        return value if self.typed(value, (*path, key), bool, repr(key)) else False

    def name(self, value: object, path: KeyPath, what: str) -> str | None:
        """An ASCII identifier that is not a Python keyword, or None (reported).

        Action names (methods of the user's handlers object) may not start with ``_``: Python
        gives those special meanings (``__class__`` exists on every object, ``__x`` is
        name-mangled in a class body, ``_is_protocol`` belongs to ``Protocol``).
        """
        if not self.typed(value, path, str, what):
            return None
        assert isinstance(value, str)
        if not is_identifier(value):
            self.reporter.report(
                "invalid-name",
                path,
                f"{what} {value!r} is not a valid name",
                "names are ASCII identifiers: letters, digits and '_', not starting with a digit",
            )
            return None
        if keyword.iskeyword(value) or keyword.issoftkeyword(value):
            self.reporter.report(
                "invalid-name", path, f"{what} {value!r} is a Python keyword", "choose another name"
            )
            return None
        if what in HANDLER_ROLES and value.startswith("_"):
            self.reporter.report(
                "invalid-name",
                path,
                f"{what} {value!r} starts with '_'",
                "handler methods are public names: Python reserves leading underscores",
            )
            return None
        return value

    def names(
        self, parent: Mapping[str, Any], key: str, path: KeyPath, what: str
    ) -> tuple[str, ...]:
        """A list of names; duplicates are reported and dropped."""
        values = parent.get(key, [])
        if not self.typed(values, (*path, key), list, repr(key)):
            return ()
        names: dict[str, None] = {}  # ordered, and a membership test in O(1)
        for index, value in enumerate(values):
            name = self.name(value, (*path, key, index), what)
            if name is None:
                continue
            if name in names:
                self.reporter.report(
                    "duplicate-name", (*path, key, index), f"{what} {name!r} is listed twice"
                )
                continue
            names[name] = None
        return tuple(names)

    def metadata(
        self, parent: Mapping[str, Any], path: KeyPath
    ) -> tuple[tuple[str, MetadataValue], ...]:
        table = self.table(parent, "metadata", path)
        entries: list[tuple[str, MetadataValue]] = []
        for key, value in table.items():
            converted = self.metadata_value(value, (*path, "metadata", key))
            if converted is not None:
                entries.append((key, converted))
        return tuple(entries)

    def metadata_value(self, value: object, path: KeyPath) -> MetadataValue | None:
        if isinstance(value, str | int | float | bool):
            return value
        if isinstance(value, list):
            items = [self.metadata_value(item, (*path, index)) for index, item in enumerate(value)]
            return tuple(item for item in items if item is not None)
        self.reporter.report(
            "wrong-type",
            path,
            f"metadata values are strings, numbers, booleans or arrays of "
            f"them, not {_describe_type(value)}",
        )
        return None

    # -- sections ----------------------------------------------------------------------------
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
        initial_name = (
            self.name(initial, ("machine", "initial"), "initial state")
            if initial is not None
            else None
        )
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
        imports = self.imports(self.table(document, "imports", ()))
        states = self.states(self.table(document, "states", ()))
        events = self.events(self.table(document, "events", ()), {item.name for item in imports})
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
            initial=initial_name,
            metadata=self.metadata(machine, ("machine",)),
            imports=imports,
            states=tuple(states),
            events=tuple(events),
            rules=tuple(rules),
            error_handlers=tuple(self.error_handlers(document)),
            declared_events=frozenset(self.table(document, "events", ())),
        )

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

    def states(self, table: Mapping[str, Any]) -> list[RawState]:
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
            states.append(
                RawState(
                    name=name,
                    value=value,
                    label=self.text(body, "label", path, value) or value,
                    description=self.text(body, "description", path),
                    kind=_KINDS.get(kind_text, StateKind.NORMAL),
                    tags=self.names(body, "tags", path, "tag"),
                    entry_actions=self.names(body, "entry", path, "action"),
                    exit_actions=self.names(body, "exit", path, "action"),
                    metadata=self.metadata(body, path),
                    path=path,
                )
            )
        return states

    def events(self, table: Mapping[str, Any], imported: set[str]) -> list[Event]:
        events: list[Event] = []
        for key, body in table.items():
            path: KeyPath = ("events", key)
            name = self.name(key, path, "event name")
            if not self.typed(body, path, dict, f"event {key!r}") or name is None:
                continue
            self.check_keys(body, path, "event")
            method = name.lower()
            if (
                keyword.iskeyword(method)
                or method in RESERVED_METHOD_NAMES
                or method.startswith("_")
            ):
                self.reporter.report(
                    "invalid-name",
                    path,
                    f"event {name!r} would become the method {method!r}, "
                    "which is a Python keyword or a name the runtime's Machine already uses",
                    "rename the event",
                    key=True,
                )
                continue
            value = self.text(body, "value", path, name) or name
            events.append(
                Event(
                    name=name,
                    value=value,
                    label=self.text(body, "label", path, value) or value,
                    member=name.upper(),
                    method=method,
                    payload_type=f"{camel_case(name)}Payload",
                    description=self.text(body, "description", path),
                    payload=self.payload(
                        self.table(body, "payload", path), (*path, "payload"), imported
                    ),
                    metadata=self.metadata(body, path),
                    line=self.reporter.line(path),
                )
            )
        return events

    def payload(
        self, table: Mapping[str, Any], path: KeyPath, imported: set[str]
    ) -> tuple[PayloadField, ...]:
        fields: list[PayloadField] = []
        for key, text in table.items():
            name = self.name(key, (*path, key), "payload field")
            if name is None or not self.typed(text, (*path, key), str, f"type of {key!r}"):
                continue
            if name in {"self", "event"}:
                self.reporter.report(
                    "invalid-name", (*path, key), f"payload field {name!r} is reserved", key=True
                )
                continue
            try:
                parsed = parse_payload_type(text, imported)
            except PayloadTypeError as error:
                self.reporter.report(
                    error.code,
                    (*path, key),
                    f"invalid payload type {_excerpt(text)}: {error}",
                    offset=error.offset + 1,
                )
                continue
            fields.append(
                PayloadField(
                    name, parsed.annotation, parsed.optional, parsed.typing_names, parsed.names
                )
            )
        return tuple(fields)

    def selector(self, entry: Mapping[str, Any], path: KeyPath) -> SourceSelector | None:
        value = entry.get("from")
        excluded = self.names(entry, "except", path, "state")
        if isinstance(value, list):
            states = self.names(entry, "from", path, "state")
            if excluded:
                self.reporter.report(
                    "unknown-key",
                    (*path, "except"),
                    "'except' only applies to '*' and 'tag:...' selectors",
                    key=True,
                )
            return SourceSelector(states=states) if states else None
        if not self.typed(value, (*path, "from"), str, "'from'"):
            return None
        assert isinstance(value, str)
        if value == "*":
            return SourceSelector(any_state=True, excluded=excluded)
        if value.startswith("tag:"):
            tag = self.name(value[4:], (*path, "from"), "tag")
            return SourceSelector(tag=tag, excluded=excluded) if tag else None
        state = self.name(value, (*path, "from"), "state")
        if excluded:
            self.reporter.report(
                "unknown-key",
                (*path, "except"),
                "'except' only applies to '*' and 'tag:...' selectors",
                key=True,
            )
        return SourceSelector(states=(state,)) if state else None

    def alternative(
        self,
        body: Mapping[str, Any],
        path: KeyPath,
        source: SourceSelector,
        event: str,
        *,
        source_path: KeyPath,
        event_path: KeyPath,
    ) -> RawRule | None:
        guard: GuardExpression | None = None
        if "guard" in body and self.typed(body["guard"], (*path, "guard"), str, "'guard'"):
            try:
                guard = parse_guard(body["guard"])
                private = [name for name in guard_names(guard) if name.startswith("_")]
                if private:
                    raise GuardSyntaxError(
                        f"guard {private[0]!r} starts with '_' (Python reserves those names)",
                        body["guard"].find(private[0]),
                    )
            except GuardSyntaxError as error:
                self.reporter.report(
                    error.code,
                    (*path, "guard"),
                    f"invalid guard {_excerpt(body['guard'])}: {error}",
                    "combine guard names with not, and, or and parentheses",
                    offset=error.offset + 1,
                )
                return None
        target = body.get("to")
        if target is None or not self.typed(target, (*path, "to"), str, "'to'"):
            return None
        if target != PREVIOUS_TARGET and self.name(target, (*path, "to"), "target state") is None:
            return None
        return RawRule(
            source=source,
            event=event,
            target=target,
            guard=guard,
            actions=self.names(body, "actions", path, "action"),
            checkpoint=self.flag(body, "checkpoint", path),
            description=self.text(body, "description", path),
            metadata=self.metadata(body, path),
            path=path,
            source_path=source_path,
            event_path=event_path,
            target_path=(*path, "to"),
        )

    def state_rules(self, document: Mapping[str, Any], state: RawState) -> list[RawRule]:
        on = self.table(document["states"][state.name], "on", state.path)
        rules: list[RawRule] = []
        source = SourceSelector(states=(state.name,))
        for event, value in on.items():
            path: KeyPath = (*state.path, "on", event)
            if self.name(event, path, "event") is None:
                continue
            if isinstance(value, str):
                value = {"to": value}
            bodies: list[tuple[KeyPath, object]] = []
            if isinstance(value, dict):
                bodies = [(path, value)]
            elif isinstance(value, list):
                bodies = [((*path, index), item) for index, item in enumerate(value)]
            else:
                self.reporter.report(
                    "wrong-type",
                    path,
                    f"on.{event} must be a target state, a table or an array of tables",
                )
            for item_path, body in bodies:
                if not self.typed(body, item_path, dict, f"alternative of on.{event}"):
                    continue
                assert isinstance(body, dict)
                self.check_keys(body, item_path, "alternative")
                rule = self.alternative(
                    body, item_path, source, event, source_path=state.path, event_path=path
                )
                rules += [rule] if rule else []
        return rules

    def table_array(
        self, document: Mapping[str, Any], key: str, definition: str, what: str
    ) -> Iterator[tuple[KeyPath, dict[str, Any]]]:
        """Each well-formed table of the array of tables ``[[key]]``, with its path."""
        entries = document.get(key, [])
        if not self.typed(entries, (key,), list, repr(key)):
            return
        for index, entry in enumerate(entries):
            path: KeyPath = (key, index)
            if self.typed(entry, path, dict, what):
                self.check_keys(entry, path, definition)
                yield path, entry

    def transition_rules(self, document: Mapping[str, Any]) -> list[RawRule]:
        rules: list[RawRule] = []
        for path, entry in self.table_array(document, "transitions", "transition", "a transition"):
            source = self.selector(entry, path)
            event = (
                self.name(entry.get("event"), (*path, "event"), "event")
                if "event" in entry
                else None
            )
            if source is None or event is None:
                continue
            rule = self.alternative(
                entry, path, source, event, source_path=(*path, "from"), event_path=(*path, "event")
            )
            rules += [rule] if rule else []
        return rules

    def error_handlers(self, document: Mapping[str, Any]) -> list[RawErrorHandler]:
        handlers: list[RawErrorHandler] = []
        entries = self.table_array(document, "error_handlers", "error_handler", "an error handler")
        for path, entry in entries:
            source = self.selector(entry, path)
            target = (
                self.name(entry["to"], (*path, "to"), "target state") if "to" in entry else None
            )
            if source is None or target is None:
                continue
            handlers.append(
                RawErrorHandler(
                    source=source,
                    target=target,
                    actions=self.names(entry, "actions", path, "action"),
                    description=self.text(entry, "description", path),
                    path=path,
                )
            )
        return handlers


def validate_source(source: SpecSource) -> tuple[Machine, tuple[Diagnostic, ...]]:
    """Check ``source`` and build its model; raise :class:`SpecError` if any error was found.

    Returns the machine together with the warnings, which do not stop compilation.
    """
    from statewright_compiler.semantics import build_machine

    reporter = Reporter(source)
    declarations = _Reader(reporter).read(source.document)
    machine = build_machine(declarations, reporter)
    errors = [diagnostic for diagnostic in reporter.diagnostics if diagnostic.is_error]
    if errors or machine is None:
        raise SpecError(sorted(reporter.diagnostics, key=_diagnostic_order))
    return machine, tuple(sorted(reporter.diagnostics, key=_diagnostic_order))


def _diagnostic_order(diagnostic: Diagnostic) -> tuple[int, int, str]:
    return (diagnostic.line, diagnostic.column, diagnostic.code)


def compile_spec(
    path: Path, display_path: str | None = None
) -> tuple[Machine, tuple[Diagnostic, ...]]:
    """Load and validate one spec file: the front half of the pipeline."""
    return validate_source(load_spec(path, display_path))

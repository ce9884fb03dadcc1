"""Names that must stay distinct once they are Python: enum members, values, tag and state-set
constants, payload classes, imported names, and what every generated module defines itself."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from statewright_compiler.diagnostics import Severity
from statewright_compiler.model import Event, imported_names_used
from statewright_compiler.spec.declarations import Declarations
from statewright_compiler.spec.naming import (
    MODULE_NAMES,
    constant_case,
    state_set_constant,
    tag_constant,
)
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import Reporter

__all__ = ["CLASS_SUFFIXES", "check_collisions", "generated_names"]

#: What a machine's name is followed by in the names of its generated classes.
CLASS_SUFFIXES: Final = (
    "State",
    "Event",
    "Handlers",
    "Machine",
    "AsyncHandlers",
    "AsyncMachine",
    "Configuration",
    "Data",
    "InvokedHandlers",
    "AsyncInvokedHandlers",
    "Children",
    "AsyncChildren",
)


def generated_names(
    prefix: str, tags: Iterable[str] = (), state_sets: Iterable[str] = ()
) -> frozenset[str]:
    """Top-level names a generated module defines, which imports and payloads must not reuse."""
    classes = {f"{prefix}{suffix}" for suffix in CLASS_SUFFIXES}
    constants = {tag_constant(tag) for tag in tags} | {state_set_constant(s) for s in state_sets}
    return MODULE_NAMES | classes | constants


class _Checker:
    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter

    def error(self, path: KeyPath, message: str, hint: str, *, key: bool = True) -> None:
        self.reporter.report("name-collision", path, message, hint, key=key)

    def unique(self, items: Iterable[tuple[str, KeyPath]], what: str, form: str) -> None:
        seen: dict[str, KeyPath] = {}
        for derived, path in items:
            if derived in seen:
                first = seen[derived]
                self.error(
                    path,
                    f"{what} {path[-1]!r} has the same {form} {derived!r} "
                    f"as {first[-1]!r} (line {self.reporter.line(first)})",
                    "rename one of them",
                )
            else:
                seen[derived] = path


def check_collisions(
    declarations: Declarations,
    events: Sequence[Event],
    state_sets: Sequence[str],
    reporter: Reporter,
) -> None:
    """Distinct spec names must stay distinct as Python names and as values. ``events`` are the
    declared ones and those a chart declares itself; ``state_sets`` the compound and parallel
    states that get an ``IN_<NAME>`` constant."""
    checker = _Checker(reporter)
    checker.unique(
        ((state.name.upper(), state.path) for state in declarations.states), "state", "enum member"
    )
    checker.unique(((state.value, state.path) for state in declarations.states), "state", "value")
    event_paths = {event.name: ("events", event.name) for event in declarations.events}
    paths = [(event, event_paths.get(event.name, ("machine",))) for event in events]
    checker.unique(((event.member, path) for event, path in paths), "event", "enum member")
    checker.unique(((event.value, path) for event, path in paths), "event", "value")
    tags = {tag: state.path for state in declarations.states for tag in state.tags}
    checker.unique(((constant_case(tag), path) for tag, path in tags.items()), "tag", "constant")
    reserved = generated_names(declarations.name, tags, state_sets)
    reserved |= {f"_E_{event.member}" for event in events}
    # The machine's classes next to what the module imports: a machine named AsyncChart would
    # define AsyncChartMachine over the runtime's base class of that name.
    clashes = [
        name for suffix in CLASS_SUFFIXES if (name := declarations.name + suffix) in MODULE_NAMES
    ]
    if clashes:
        checker.error(
            ("machine", "name"),
            f"machine name {declarations.name!r} makes the class {clashes[0]!r}, a name the "
            "generated module imports from statewright",
            "rename the machine",
            key=False,
        )
    payload_names = [(event.payload_type, path) for event, path in paths]
    imported = [(item.name, ("imports", item.module)) for item in declarations.imports]
    checker.unique([*payload_names, *imported], "name", "Python name")
    used = imported_names_used(events)
    used |= {name for field, _ in declarations.data for name in field.imported_names}
    for item in declarations.imports:
        if item.name not in used and item.name not in reserved:
            reporter.report(
                "unused-import",
                ("imports", item.module),
                f"{item.module}.{item.name} is imported but no payload type uses it",
                "remove it from [imports]",
                key=True,
                severity=Severity.WARNING,
            )
    imported_names = {item.name for item in declarations.imports}
    for event in declarations.events:
        for field in event.payload:
            if field.name in imported_names:
                checker.error(
                    ("events", event.name, "payload", field.name),
                    f"payload field {field.name!r} has the name of an imported type",
                    "rename the field",
                )
    for name, path in [*payload_names, *imported]:
        if name in reserved:
            builtin = name in {"Any", "Literal"} and path[0] == "imports"
            checker.error(
                path,
                f"{name!r} is a name the generated module defines",
                f"payload types may use {name!r} without importing it" if builtin else "rename it",
            )

"""The import block of a generated module: exactly the names it uses (so ``ruff check`` finds
no unused import, F401), in the sections and order isort and ruff's ``I`` rules expect."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from statewright_compiler.codegen.chart_view import Region
from statewright_compiler.codegen.formatter import WIDTH
from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    Event,
    Expression,
    ForeachStep,
    IfStep,
    LogStep,
    Machine,
    RaiseStep,
    SendStep,
    walk_steps,
)
from statewright_compiler.spec.naming import (
    RUNTIME_IMPORTS,
    STDLIB_MODULES,
    TYPE_CHECKING_IMPORTS,
    TYPING_IMPORTS,
)

__all__ = [
    "ImportNeeds",
    "import_blocks",
    "import_statement",
    "type_checking_imports",
    "used_imports",
]


class ImportNeeds(Protocol):
    """What the module view knows that decides an import."""

    guard_functions: Mapping[str, str]
    match_dispatch: bool

    def send_groups(self) -> list[tuple[Event, ...]]: ...

    def regions(self) -> list[Region]: ...

    def expressions_used(self) -> list[Expression]: ...

    def child_handlers(self, asynchronous: bool) -> list[str]: ...


def type_checking_imports(machine: Machine, view: ImportNeeds) -> list[str]:
    """The runtime names the module uses in annotations only: imported for type checkers."""
    expressions = bool(view.expressions_used())
    wanted = {
        # SendResult types send_once, typed per event only when there are events.
        "SendResult": bool(machine.events),
        "EventInfo": expressions,
        "System": expressions,
    }
    return [name for name in TYPE_CHECKING_IMPORTS if wanted.get(name, True)]


def used_imports(machine: Machine, view: ImportNeeds) -> dict[str, list[str]]:
    """Module -> names, only what the module uses, so it passes ``ruff check`` (F401)."""
    payload_typing = {
        name for event in machine.events for field in event.payload for name in field.typing_names
    }
    has_events = bool(machine.events)
    chart = machine.chart
    overloaded = len(view.send_groups()) > 1
    steps = [
        step
        for state in machine.states
        for step in (*state.entry, *state.exit, *state.initial_steps, *state.default_steps)
    ]
    steps += [step for rule in machine.rules for step in (*rule.steps, *rule.then)]
    invokes = [invoke for state in machine.states for invoke in state.invokes]
    steps += [step for invoke in invokes for step in invoke.finalize]
    steps = list(walk_steps(steps))
    params = any(invoke.params for invoke in invokes)
    expressions = view.expressions_used()
    expression_typing = {name for expression in expressions for name in expression.typing_names}
    data_typing = {name for field in machine.data for name in field.typing_names}
    typing = payload_typing | expression_typing | data_typing
    optional = {
        "Any": bool(view.guard_functions) or overloaded or "Any" in typing or bool(invokes),
        "Literal": bool(machine.external_events) or "Literal" in typing or bool(view.regions()),
        "NoReturn": has_events and not machine.external_events,
        "NamedTuple": bool(view.regions()),
        "TypeAlias": any(region.alias for region in view.regions()),
        "TypedDict": has_events,
        "final": has_events or bool(view.regions()),
        "overload": overloaded,
        "cast": params,
        "Generic": bool(view.child_handlers(False)),  # the children's handlers at run time
        "Invoke": bool(invokes),
        "PREVIOUS": any(t.returns_to_previous for t in machine.transitions),
        "ErrorRoute": bool(machine.error_handlers) and not chart,
        "GuardFunction": not view.match_dispatch and not chart,
        "assert_never": view.match_dispatch,
        "ERROR_ROUTE": bool(machine.error_handlers) and chart,
        "Alternative": not chart,
        "Previous": not chart,
        "Machine": not chart,
        "AsyncMachine": not chart,
        "Chart": chart,
        "ChartMachine": chart,
        "AsyncChartMachine": chart,
        "ChartNode": chart,
        "ChartTransition": chart and bool(machine.transitions or machine.error_handlers),
        "Raise": any(isinstance(step, RaiseStep) for step in steps),
        "Log": any(isinstance(step, LogStep) for step in steps),
        "Send": any(isinstance(step, SendStep) for step in steps)
        or any(state.timers for state in machine.states),
        "Cancel": any(isinstance(step, CancelStep) for step in steps),
        "Assign": any(isinstance(step, AssignStep) for step in steps) or _initializers(machine),
        "If": any(isinstance(step, IfStep) for step in steps),
        "Foreach": any(isinstance(step, ForeachStep) for step in steps),
        "DataModel": bool(machine.data),
        "lookup": any(expression.uses_lookup for expression in expressions),
    }
    has_handlers = bool(machine.guards or machine.actions or machine.delays)
    abc = ["Awaitable", "Mapping"] if has_handlers else ["Mapping"]
    abc += ["Container"] if chart and (view.guard_functions or expressions) else []
    abc += ["Iterator"] if invokes else []  # the children view is a mapping
    imports: dict[str, list[str]] = {
        "__future__": ["annotations"],
        "collections.abc": abc,
        **({"types": ["SimpleNamespace"]} if params else {}),
        "typing": [name for name in TYPING_IMPORTS if optional.get(name, True)],
        "statewright": [name for name in RUNTIME_IMPORTS if optional.get(name, True)],
    }
    used = {
        name for event in machine.events for field in event.payload for name in field.imported_names
    }
    used |= {name for field in machine.data for name in field.imported_names}
    for item in machine.imports:
        if item.name in used:
            imports.setdefault(item.module, []).append(item.name)
    return imports


def _initializers(machine: Machine) -> bool:
    """Whether a data field gets its initial value from an ``Assign`` step: an ``expr``, or a
    state's field bound late."""
    late = machine.binding == "late"
    return any(field.expr is not None or (late and field.state) for field in machine.data)


def _name_order(name: str) -> tuple[int, str, str]:
    """isort's ``order-by-type`` (ruff's default): constants, then classes, then the rest."""
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (kind, name.lower(), name)


def import_statement(module: str, names: list[str], indent: str = "") -> str:
    """``from module import names``, on one line when it fits (at ``indent``, which every line
    but the first carries: the template indents the first)."""
    ordered = sorted(dict.fromkeys(names), key=_name_order)
    line = f"from {module} import {', '.join(ordered)}"
    if len(indent) + len(line) <= WIDTH:
        return line
    lines = [f"from {module} import (\n", *(f"{indent}    {name},\n" for name in ordered)]
    return "".join([*lines, f"{indent})"])


def import_blocks(
    imports: dict[str, list[str]], modules: Sequence[tuple[str, str]] = ()
) -> list[list[str]]:
    """The import statements in the sections and order isort (and ruff's ``I`` rules) expect:
    ``__future__``, the standard library, then everything else; in each, ``import module as
    alias`` (``modules``: a child machine's module) before ``from`` imports, modules sorted by
    name."""
    sections: list[list[str]] = [[], [], []]

    def section(module: str) -> list[str]:
        first = module.split(".")[0]
        return sections[0 if module == "__future__" else 1 if first in STDLIB_MODULES else 2]

    for module, alias in sorted(modules, key=lambda item: (item[0].lower(), item[0])):
        section(module).append(f"import {module} as {alias}")
    for module in sorted(imports, key=lambda module: (module.lower(), module)):
        section(module).append(import_statement(module, imports[module]))
    return [section for section in sections if section]

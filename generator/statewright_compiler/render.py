"""Step 4 of the pipeline: turn the model into source text through Jinja templates.

Everything a template prints is computed here: literals through :mod:`literals`, identifiers
from the model (already validated). Templates only loop and print.
"""

from __future__ import annotations

import re
import textwrap
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Final

import jinja2

from statewright_compiler import __version__
from statewright_compiler.formatter import WIDTH
from statewright_compiler.guards import guard_names
from statewright_compiler.literals import (
    comment_text,
    data_literal,
    dict_literal,
    docstring_literal,
    string_literal,
    tuple_literal,
)
from statewright_compiler.model import (
    PREVIOUS_TARGET,
    And,
    Event,
    GuardCall,
    GuardExpression,
    Machine,
    Not,
    Or,
    Transition,
)
from statewright_compiler.naming import (
    RUNTIME_IMPORTS,
    STDLIB_MODULES,
    TYPE_CHECKING_IMPORTS,
    TYPING_IMPORTS,
    tag_constant,
)
from statewright_compiler.payload_types import runtime_shape

__all__ = ["GENERATOR_VERSION", "RUNTIME_API", "render_module", "template_environment"]

GENERATOR_VERSION: Final = __version__
#: The runtime API level generated modules require (see ``statewright._version``).
RUNTIME_API: Final = 2
#: States per chunk of the two-level state ``match``.
MATCH_CHUNK: Final = 32
#: Up to this many states and events, dispatch functions are exhaustive ``match`` statements that
#: mypy proves complete. mypy narrows ``match`` cases in time quadratic in the enum's size
#: (measured with mypy 2.4.1: ~118 s cold at 1,000 states x 100 events, ~4 s for the same module
#: reading the table), so larger machines get table-backed functions with the same signatures.
#: Larger machines also get the shape that keeps mypy's time near its floor (docs/performance.md):
#: ``TRANSITIONS`` built at import from tables of member names, ``_S`` constants for the few
#: states other tables name, one ``send`` signature per payload shape rather than per event.
MATCH_LIMIT: Final = 64
#: What a line of a large machine's ``_TRANSITION_LINES`` may contain.
_PLAIN_TEXT: Final = re.compile(r"[A-Za-z0-9_<> ]*")


@cache
def template_environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("statewright_compiler", "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


@dataclass(frozen=True)
class Member:
    name: str
    value: str
    docstring: str | None


@dataclass(frozen=True)
class HandlerMethod:
    name: str
    payload: str
    returns: str
    docstring: str


@dataclass(frozen=True)
class PayloadClass:
    name: str
    docstring: str
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class EventMethod:
    name: str
    member: str
    signature: str
    arguments: str
    docstring: str


@dataclass(frozen=True)
class TransitionData:
    """``TRANSITIONS`` of a large machine as data (see ``MATCH_LIMIT``), as literals.

    ``lines``: a string, one line per alternative, ``STATE EVENT TARGET`` (member names, which
    are identifiers, or ``<previous>``), grouped by state and event, alternatives in order. The
    others say what alternatives do besides moving, naming each by ``(state, event, position)``:
    each guard function and each tuple of actions with the alternatives that have it (grouped
    so that mypy infers lists of plain tuples, not a dict of callables), and the checkpoints.
    """

    lines: str
    #: ``_ALTERNATIVE_GUARDS`` and ``_ALTERNATIVE_ACTIONS``: annotation, ``=`` and value.
    guards: str
    actions: str
    checkpoints: str
    #: The dict ``_transition_table`` reads targets from: member names, and PREVIOUS if used.
    target_lookup: str


@dataclass(frozen=True)
class MatchCase:
    """One ``case`` of a dispatch ``match``: a pattern and either a result or a nested match."""

    pattern: str
    result: str | None = None
    nested: tuple[MatchCase, ...] = ()


def _wrapped(text: str, indent: int) -> str:
    """A docstring of the compiler's own words, wrapped to fit the line width."""
    width = WIDTH - indent - len('"""') * 2
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return docstring_literal("\n".join(lines), " " * indent)


def _python_guard(expression: GuardExpression, parent: int = 0) -> str:
    """The guard as a Python expression. An ``and`` inside an ``or`` gets parentheses it does not
    need, as ruff's RUF021 asks: ``(a and b) or c`` says what it means."""
    if isinstance(expression, GuardCall):
        return f"handlers.{expression.name}(context, payload)"
    if isinstance(expression, Not):
        return f"not {_python_guard(expression.operand, 3)}"
    precedence, joiner = (2, " and ") if isinstance(expression, And) else (1, " or ")
    assert isinstance(expression, And | Or)
    text = joiner.join(_python_guard(operand, precedence) for operand in expression.operands)
    return f"({text})" if parent > precedence or (parent == 1 and precedence == 2) else text


class _ModuleView:
    """Names and literals for ``module.py.jinja``, derived once from the machine."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.state_class = f"{machine.name}State"
        self.event_class = f"{machine.name}Event"
        self.match_dispatch = (
            len(machine.states) <= MATCH_LIMIT and len(machine.events) <= MATCH_LIMIT
        )
        # Large machines refer to members through small namespace classes (``_S.X``): mypy looks
        # an ``Enum.X`` reference up in time linear in the enum's size, a ``Final`` in O(1).
        state_prefix, event_prefix = (
            (self.state_class, self.event_class) if self.match_dispatch else ("_S", "_E")
        )
        self.state_member = {
            state.name: f"{state_prefix}.{state.member}" for state in machine.states
        }
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

    @property
    def initial_state(self) -> str:
        """Through the enum class at any size: one ``Enum.X`` reference costs mypy little, and
        ``INITIAL_STATE`` keeps its ``Literal`` type."""
        initial = next(state for state in self.machine.states if state.name == self.machine.initial)
        return f"{self.state_class}.{initial.member}"

    def named_states(self) -> list[Member]:
        """The ``_S`` constants of a large machine: the states that tables other than
        ``TRANSITIONS`` name (final states, tags, entry and exit actions, error routes)."""
        machine = self.machine
        named = {state.name for state in machine.states if state.is_final}
        named.update(name for _, names in machine.tags for name in names)
        named.update(s.name for s in machine.states if s.entry_actions or s.exit_actions)
        for handler in machine.error_handlers:
            named.update((*handler.sources, handler.target))
        return [
            Member(state.member, string_literal(state.value), None)
            for state in machine.states
            if state.name in named
        ]

    def states(self) -> list[Member]:
        return [
            Member(
                s.member,
                string_literal(s.value),
                docstring_literal(s.description, "    ") if s.description else None,
            )
            for s in self.machine.states
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

    def state_set(self, names: Iterable[str]) -> str:
        members = ", ".join(self.state_member[name] for name in names)
        return f"frozenset({{{members}}})" if members else "frozenset()"

    def tags(self) -> list[tuple[str, str, str]]:
        """``(constant name, tag literal, frozenset expression)`` per tag."""
        return [
            (tag_constant(tag), string_literal(tag), self.state_set(names))
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

    def handler_methods(self) -> list[HandlerMethod]:
        """One Protocol method per guard and action, typed by the events that can trigger it."""
        machine = self.machine
        events_by_name = {event.name: event for event in machine.events}
        triggers: dict[str, dict[str, None]] = defaultdict(dict)
        uses: dict[str, list[str]] = defaultdict(list)
        for transition in machine.transitions:
            names = [*transition.actions]
            if transition.guard is not None:
                names += guard_names(transition.guard)
            for name in names:
                triggers[name][transition.event] = None
        for rule in machine.rules:
            for name in [*rule.actions, *(guard_names(rule.guard) if rule.guard else [])]:
                uses[name].append(f"{rule.source.describe()} --{rule.event}--> {rule.target}")
        entering: dict[str, list[str]] = defaultdict(list)
        leaving: dict[str, list[str]] = defaultdict(list)
        for transition in machine.transitions:
            leaving[transition.source].append(transition.event)
            targets = (
                machine.previous_candidates(transition.source)
                if transition.returns_to_previous
                else (transition.target,)
            )
            for target in targets:
                entering[target].append(transition.event)
        for state in machine.states:
            for name in state.entry_actions:
                triggers[name].update(dict.fromkeys(entering[state.name]))
                uses[name].append(f"entering {state.name}")
            for name in state.exit_actions:
                triggers[name].update(dict.fromkeys(leaving[state.name]))
                uses[name].append(f"leaving {state.name}")
        for handler in machine.error_handlers:
            failing = [t.event for t in machine.transitions if t.source in handler.sources]
            for name in handler.actions:
                triggers[name].update(dict.fromkeys(failing))
                uses[name].append(f"on an action error leaving {handler.source.describe()}")
        methods = []
        for name, returns, role in [
            *((name, "bool", "Guard") for name in machine.guards),
            *((name, "None", "Action") for name in machine.actions),
        ]:
            events = [events_by_name[event] for event in events_by_name if event in triggers[name]]
            payload = " | ".join(event.payload_type for event in events) or "Mapping[str, object]"
            used = "; ".join(dict.fromkeys(uses[name]))
            methods.append(
                HandlerMethod(name, payload, returns, _wrapped(f"{role} used by: {used}.", 8))
            )
        return methods

    def guards(self) -> list[tuple[str, str]]:
        """``(function name, Python expression)`` per distinct guard expression."""
        expressions = {
            t.guard_text: t.guard for t in self.machine.transitions if t.guard is not None
        }
        return [
            (name, _python_guard(expressions[text])) for text, name in self.guard_functions.items()
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

    @cached_property
    def transition_data(self) -> TransitionData:
        """``TRANSITIONS`` as the plain data a large machine builds it from at import."""
        machine = self.machine
        state_names = {state.name: state.member for state in machine.states}
        state_names[PREVIOUS_TARGET] = PREVIOUS_TARGET
        event_names = {event.name: event.member for event in machine.events}
        # Grouped by state, then event, in order of first appearance: the order of TRANSITIONS.
        grouped: dict[str, dict[str, list[Transition]]] = {}
        for transition in machine.transitions:
            row = grouped.setdefault(transition.source, {})
            row.setdefault(transition.event, []).append(transition)
        lines: list[str] = []
        guards: dict[str, list[str]] = {}
        actions: dict[str, list[str]] = {}
        checkpoints: list[str] = []
        for source, row in grouped.items():
            for event, found in row.items():
                for position, transition in enumerate(found):
                    names = (state_names[source], event_names[event])
                    lines.append(" ".join((*names, state_names[transition.target])))
                    key = data_literal((*names, position))
                    if transition.guard_text:
                        guard = self.guard_functions[transition.guard_text]
                        guards.setdefault(guard, []).append(key)
                    if transition.actions:
                        actions.setdefault(data_literal(transition.actions), []).append(key)
                    if transition.checkpoint:
                        checkpoints.append(key)
        lookup = ["**states"]
        if any(transition.returns_to_previous for transition in machine.transitions):
            lookup.append(f"{string_literal(PREVIOUS_TARGET)}: PREVIOUS")
        return TransitionData(
            lines=_lines_literal(lines),
            guards=_grouped_literal(guards, "GuardFunction"),
            actions=_grouped_literal(actions, "tuple[str, ...]"),
            checkpoints=_frozenset_literal(checkpoints),
            target_lookup=f"{{{', '.join(lookup)}}}",
        )

    def actions_literal(self, attribute: str) -> str:
        """``entry_actions`` or ``exit_actions``: state -> tuple of action names."""
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
        names = [string_literal(name) for name in (*self.machine.guards, *self.machine.actions)]
        return f"frozenset({{{', '.join(names)}}})" if names else "frozenset()"

    def error_routes_literal(self) -> str:
        """``error_routes``: state -> ``ErrorRoute(target, actions)``."""
        return dict_literal(
            (
                self.state_member[source],
                f"ErrorRoute({self.state_member[handler.target]}, "
                f"{tuple_literal(string_literal(a) for a in handler.actions)})",
            )
            for handler in self.machine.error_handlers
            for source in handler.sources
        )

    # -- dispatch functions ------------------------------------------------------------------
    def _chunked(self, cases: list[MatchCase]) -> list[MatchCase]:
        """Split a long ``match`` into chunks joined by or-patterns (bounded narrowing cost)."""
        if len(cases) <= MATCH_CHUNK:
            return cases
        chunks = [cases[start : start + MATCH_CHUNK] for start in range(0, len(cases), MATCH_CHUNK)]
        return [
            MatchCase(" | ".join(case.pattern for case in chunk), nested=tuple(chunk))
            for chunk in chunks
        ]

    def allowed_events_cases(self) -> list[MatchCase]:
        allowed: dict[str, dict[str, None]] = defaultdict(dict)
        for transition in self.machine.transitions:
            allowed[transition.source][self.event_member[transition.event]] = None
        grouped: dict[str, list[str]] = defaultdict(list)
        for state in self.machine.states:
            members = ", ".join(allowed[state.name])
            grouped[f"frozenset({{{members}}})" if members else "frozenset()"].append(
                self.state_member[state.name]
            )
        return self._chunked(
            [MatchCase(" | ".join(states), result) for result, states in grouped.items()]
        )

    def targets_cases(self) -> list[MatchCase]:
        targets: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for transition in self.machine.transitions:
            targets[transition.source][transition.event].append(self.target(transition.target))
        no_transitions: list[str] = []
        cases: list[MatchCase] = []
        for state in self.machine.states:
            by_event = targets.get(state.name)
            if not by_event:
                no_transitions.append(self.state_member[state.name])
                continue
            inner = [
                MatchCase(self.event_member[event], tuple_literal(found))
                for event, found in by_event.items()
            ]
            others = [
                self.event_member[event.name]
                for event in self.machine.events
                if event.name not in by_event
            ]
            if others:
                inner.append(MatchCase(" | ".join(others), "()"))
            cases.append(MatchCase(self.state_member[state.name], nested=tuple(inner)))
        if no_transitions:
            cases.append(MatchCase(" | ".join(no_transitions), "()"))
        return self._chunked(cases)

    def typed_send(self, asynchronous: bool) -> list[str]:
        """Per-event signatures of ``send``, ``try_send`` and ``can_send`` (lines; "" = blank).

        They narrow the runtime's generic methods (any member, any payload), which mypy calls an
        incompatible override: the ``type: ignore`` says so. A machine with one event has one
        signature (an overload needs two); at run time the runtime's methods run unchanged.
        """
        prefix = "async " if asynchronous else ""
        signatures = [self.send_signature(events) for events in self.send_groups()]
        lines: list[str] = []
        for name, returns in (
            ("send", self.state_class),
            ("try_send", "bool"),
            ("can_send", "bool"),
        ):
            ignore = f"  # type: ignore[override]  # narrows the generic {name}"
            if len(signatures) == 1:
                lines += [f"{prefix}def {name}({signatures[0]}) -> {returns}: ...{ignore}", ""]
                continue
            for index, signature in enumerate(signatures):
                lines.append("@overload" + (ignore if index == 0 else ""))
                lines.append(f"{prefix}def {name}({signature}) -> {returns}: ...")
            call = f"{'await ' if asynchronous else ''}super().{name}(event, **payload)"
            parameters = f"self, event: {self.event_class}, /, **payload: Any"
            lines += [f"{prefix}def {name}({parameters}) -> {returns}:", f"    return {call}", ""]
        return lines[:-1]

    def send_groups(self) -> list[tuple[Event, ...]]:
        """The events that share one signature of ``send``: each event alone, except in a large
        machine, where events with the same payload fields share one (mypy checks every pair of
        overloads, so a signature per event costs it time quadratic in the number of events)."""
        if self.match_dispatch:
            return [(event,) for event in self.machine.events]
        groups: dict[tuple[str, ...], list[Event]] = {}
        for event in self.machine.events:
            groups.setdefault(tuple(self.payload_parameters(event)), []).append(event)
        return [tuple(events) for events in groups.values()]

    def send_signature(self, events: tuple[Event, ...]) -> str:
        """``self, event: Literal[<Member>, ...], /, *, field: type, ...`` for ``events`` (which
        have the same payload fields)."""
        members = ", ".join(f"{self.event_class}.{event.member}" for event in events)
        parameters = self.payload_parameters(events[0])
        keywords = f", *, {', '.join(parameters)}" if parameters else ""
        return f"self, event: Literal[{members}], /{keywords}"

    @staticmethod
    def payload_parameters(event: Event) -> list[str]:
        """Keyword parameters for the payload fields, optional ones (default None) last."""
        fields = sorted(event.payload, key=lambda field: field.optional)
        return [
            f"{field.name}: {field.annotation}{' = None' if field.optional else ''}"
            for field in fields
        ]

    def event_methods(self) -> list[EventMethod]:
        return [self.event_method(event) for event in self.machine.events]

    def event_method(self, event: Event) -> EventMethod:
        parameters = self.payload_parameters(event)
        signature = f"self, *, {', '.join(parameters)}" if parameters else "self"
        arguments = "".join(f", {field.name}={field.name}" for field in event.payload)
        text = event.description or f"Send {event.name}."
        return EventMethod(
            event.method,
            f"_E.{event.member}",
            signature,
            arguments,
            docstring_literal(text),
        )


def _lines_literal(lines: list[str]) -> str:
    """A multi-line string literal, one item of ``lines`` per line after an empty first one,
    for text that needs no escaping (identifiers, ``<previous>``, spaces); ``""`` for none."""
    assert all(_PLAIN_TEXT.fullmatch(line) for line in lines)
    return '"""\n' + "".join(f"{line}\n" for line in lines) + '"""' if lines else '""'


def _grouped_literal(groups: dict[str, list[str]], value_type: str) -> str:
    """``((value, [key, ...]), ...)`` from expressions already rendered. Without a declared type,
    which would make mypy check each key against it (slower), unless empty: mypy needs the type
    of an empty tuple's items (``value_type``) to type the loop over it."""
    if not groups:
        return f"Final[tuple[tuple[{value_type}, list[tuple[str, str, int]]], ...]] = ()"
    return "Final = " + tuple_literal(
        f"({value}, [{', '.join(keys)}])" for value, keys in groups.items()
    )


def _frozenset_literal(items: list[str]) -> str:
    """``frozenset({a, b})`` or ``frozenset()`` from expressions already rendered."""
    return f"frozenset({{{', '.join(items)}}})" if items else "frozenset()"


def _used_imports(machine: Machine, view: _ModuleView) -> dict[str, list[str]]:
    """Module -> names, only what the module uses, so it passes ``ruff check`` (F401)."""
    payload_typing = {
        name for event in machine.events for field in event.payload for name in field.typing_names
    }
    has_events = bool(machine.events)
    overloaded = len(view.send_groups()) > 1
    optional = {
        "Any": bool(view.guard_functions) or overloaded or "Any" in payload_typing,
        "Literal": has_events or "Literal" in payload_typing,
        "TypedDict": has_events,
        "final": has_events,
        "overload": overloaded,
        "PREVIOUS": any(t.returns_to_previous for t in machine.transitions),
        "ErrorRoute": bool(machine.error_handlers),
        "GuardFunction": not view.match_dispatch,
        "assert_never": view.match_dispatch,
    }
    has_handlers = bool(machine.guards or machine.actions)
    imports: dict[str, list[str]] = {
        "__future__": ["annotations"],
        "collections.abc": ["Awaitable", "Mapping"] if has_handlers else ["Mapping"],
        "typing": [name for name in TYPING_IMPORTS if optional.get(name, True)],
        "statewright": [name for name in RUNTIME_IMPORTS if optional.get(name, True)],
    }
    used = {
        name for event in machine.events for field in event.payload for name in field.imported_names
    }
    for item in machine.imports:
        if item.name in used:
            imports.setdefault(item.module, []).append(item.name)
    return imports


def _name_order(name: str) -> tuple[int, str, str]:
    """isort's ``order-by-type`` (ruff's default): constants, then classes, then the rest."""
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (kind, name.lower(), name)


def _import_statement(module: str, names: list[str]) -> str:
    ordered = sorted(dict.fromkeys(names), key=_name_order)
    line = f"from {module} import {', '.join(ordered)}"
    if len(line) <= WIDTH:
        return line
    return "".join([f"from {module} import (\n", *(f"    {name},\n" for name in ordered), ")"])


def import_blocks(imports: dict[str, list[str]]) -> list[list[str]]:
    """The import statements in the sections and order isort (and ruff's ``I`` rules) expect:
    ``__future__``, the standard library, then everything else; modules sorted by name."""
    sections: list[list[str]] = [[], [], []]
    for module in sorted(imports, key=lambda module: (module.lower(), module)):
        section = (
            0 if module == "__future__" else 1 if module.split(".")[0] in STDLIB_MODULES else 2
        )
        sections[section].append(_import_statement(module, imports[module]))
    return [section for section in sections if section]


def render_module(machine: Machine) -> str:
    """The generated Python module for ``machine`` (before formatting)."""
    view = _ModuleView(machine)
    generated_note = (
        f"Generated from {machine.source_path} by statewright {GENERATOR_VERSION}; do not edit."
    )
    description = f"\n\n{machine.description}" if machine.description else ""
    template = template_environment().get_template("module.py.jinja")
    return template.render(
        machine=machine,
        view=view,
        generator_version=GENERATOR_VERSION,
        runtime_api=RUNTIME_API,
        header_path=comment_text(machine.source_path),
        spec_path=string_literal(machine.source_path),
        module_name=string_literal(machine.module_name),
        module_docstring=docstring_literal(
            (machine.description + "\n\n" if machine.description else "") + generated_note
        ),
        machine_docstring=docstring_literal(
            f"The {machine.name} state machine: one typed method per event.{description}", "    "
        ),
        async_machine_docstring=docstring_literal(
            f"The {machine.name} state machine for asyncio: ``await`` each event's method.", "    "
        ),
        import_blocks=import_blocks(_used_imports(machine, view)),
        type_checking_imports=_import_statement("statewright", list(TYPE_CHECKING_IMPORTS)),
        has_handlers=bool(machine.guards or machine.actions),
        match_dispatch=view.match_dispatch,
        match_limit=MATCH_LIMIT,
        string_literal=string_literal,
    )

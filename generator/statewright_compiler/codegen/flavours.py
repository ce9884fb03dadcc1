"""The generated module's two flavours of class, sync and async: each has a handlers protocol
(one method per guard, action and delay handler, typed by the payloads it may see) and a machine
class (typed ``send`` signatures and one method per event). ``module.py.jinja`` prints both
flavours from the same two parts; what differs between them is data here. A mixin of the module
view (:mod:`render`)."""

from __future__ import annotations

import textwrap
from collections import defaultdict
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

from statewright_compiler.codegen.formatter import WIDTH
from statewright_compiler.model import Machine
from statewright_compiler.spec.guards import guard_names
from statewright_compiler.spec.literals import docstring_literal

__all__ = ["Flavour", "FlavourView", "HandlerMethod", "wrapped_docstring"]


@cache
@dataclass(frozen=True)
class HandlerMethod:
    name: str
    payload: str
    returns: str
    docstring: str


@dataclass(frozen=True)
class Flavour:
    """What ``module/handlers.py.jinja`` and ``module/machine.py.jinja`` print for one flavour."""

    handlers_class: str
    handlers_bases: tuple[str, ...]
    handlers_ignore: str
    """A ``type: ignore`` comment the protocol's class line needs ("" for none)."""
    handlers_docstring: str
    handler_methods: tuple[HandlerMethod, ...]
    machine_class: str
    machine_base: str
    machine_docstring: str
    handlers_parameter: str
    """The machine's ``handlers`` parameter: its annotation, and a default when it needs none."""
    handlers_override: str
    """The ``type: ignore`` comment of ``restore`` and ``load``, whose ``handlers`` may be
    narrower than the runtime's ("" when they cannot be)."""
    children_handlers: tuple[str, ...]
    """The handlers protocols of the machines this one invokes, which the protocol includes."""
    children_class: str
    """The private protocol combining them (under ``TYPE_CHECKING``)."""
    invoked_handlers_class: str
    """``<Name>InvokedHandlers``: what a parent invoking this machine includes in its own."""
    generic: bool
    """Whether the handlers protocol takes the context as a type argument."""
    typed_send: tuple[str, ...]
    method_keyword: str
    """``def`` or ``async def``, for the event methods."""
    send: str
    """What an event method returns: ``self.send`` or ``await self.send``."""


def _awaitable(methods: tuple[HandlerMethod, ...]) -> tuple[HandlerMethod, ...]:
    """The async flavour's methods: each may also return an awaitable."""
    return tuple(
        HandlerMethod(m.name, m.payload, f"Awaitable[{m.returns}] | {m.returns}", m.docstring)
        for m in methods
    )


def wrapped_docstring(text: str, indent: int) -> str:
    """A docstring of the compiler's own words, wrapped to fit the line width."""
    width = WIDTH - indent - len('"""') * 2
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return docstring_literal("\n".join(lines), " " * indent)


class FlavourView:
    """Needs the module view's ``machine``, ``chart_triggers``, ``typed_send`` and
    ``child_handlers``."""

    machine: Machine

    if TYPE_CHECKING:

        def chart_triggers(self) -> tuple[dict[str, dict[str, None]], dict[str, list[str]]]: ...

        def typed_send(self, asynchronous: bool) -> list[str]: ...

        def child_handlers(self, asynchronous: bool) -> list[str]: ...

    @cached_property
    def flavours(self) -> tuple[Flavour, Flavour]:
        """The sync flavour, then the async one (computed once: the template reads it twice).

        A child machine runs on its parent's handlers object, so the protocol includes the
        protocol of each machine this one invokes: an object it accepts has the whole tree's
        guards and actions. The protocol is generic over the context when the machine has
        handlers of its own or children; without handlers it may be empty, which mypy would
        have covariant: a ``type: ignore`` that may go unused says so."""
        machine = self.machine
        name = machine.name
        has_handlers = bool(machine.guards or machine.actions or machine.delays)
        children = tuple(self.child_handlers(False)), tuple(self.child_handlers(True))
        generic = has_handlers or bool(children[0])
        methods = self.handler_methods()
        if has_handlers:
            docstrings = (
                "The guards and actions the spec names: the machine calls these methods.",
                "The guards and actions for the async machine: each may also be a coroutine.",
            )
        elif generic:
            docstrings = (
                "The spec names no guards or actions; the machines it invokes run on its "
                "handlers object, which has theirs.",
            ) * 2
        else:
            docstrings = (
                "The spec names no guards or actions, so the machine needs no handlers object.",
            ) * 2
        description = f"\n\n{machine.description}" if machine.description else ""
        flavours = []
        for asynchronous, prefix in ((False, ""), (True, "Async")):
            protocol = f"{name}{prefix}Handlers"
            if has_handlers:
                parameter = f"{protocol}[ContextT]"
                override = "  # type: ignore[override]  # the handlers: narrower than the runtime's"
            elif generic:
                parameter = f"{protocol}[ContextT] | None = None"
                override = "  # type: ignore[override, unused-ignore]  # the children's handlers"
            else:
                parameter, override = f"{protocol} | None = None", ""
            children_class = f"_Children{prefix}Handlers"
            own = children_class if children[asynchronous] else ""
            flavours.append(
                Flavour(
                    handlers_class=protocol,
                    handlers_bases=(
                        *((f"{own}[ContextT_contra]",) if own else ()),
                        "Protocol[ContextT_contra]" if generic else "Protocol",
                    ),
                    handlers_ignore=(
                        "  # type: ignore[misc, unused-ignore]  # empty if the children's are"
                        if generic and not has_handlers
                        else ""
                    ),
                    handlers_docstring=wrapped_docstring(docstrings[asynchronous], 4),
                    handler_methods=methods if not asynchronous else _awaitable(methods),
                    machine_class=f"{name}{prefix}Machine",
                    machine_base=f"{prefix}{'ChartMachine' if machine.chart else 'Machine'}",
                    machine_docstring=docstring_literal(
                        f"The {name} state machine for asyncio: ``await`` each event's method."
                        if asynchronous
                        else f"The {name} state machine: one typed method per event.{description}",
                        "    ",
                    ),
                    handlers_parameter=parameter,
                    handlers_override=override,
                    children_handlers=children[asynchronous],
                    children_class=children_class,
                    invoked_handlers_class=f"{name}{prefix}InvokedHandlers",
                    generic=generic,
                    typed_send=tuple(self.typed_send(asynchronous)),
                    method_keyword="async def" if asynchronous else "def",
                    send="await self.send" if asynchronous else "self.send",
                )
            )
        return flavours[0], flavours[1]

    def handler_methods(self) -> tuple[HandlerMethod, ...]:
        """One Protocol method per guard and action, typed by the events that can trigger it."""
        machine = self.machine
        events_by_name = {event.name: event for event in machine.events}
        triggers, uses = self.chart_triggers() if machine.chart else self.flat_triggers()
        methods = []
        for name, returns, role in [
            *((name, "bool", "Guard") for name in machine.guards),
            *((name, "None", "Action") for name in machine.actions),
            *((name, "float", "Delay (seconds)") for name in machine.delays),
        ]:
            events = [events_by_name[event] for event in events_by_name if event in triggers[name]]
            payloads = [event.payload_type for event in events]
            if "" in triggers[name] or not payloads:
                payloads.append("Mapping[str, object]")
            used = "; ".join(dict.fromkeys(uses[name]))
            methods.append(
                HandlerMethod(
                    name,
                    " | ".join(payloads),
                    returns,
                    wrapped_docstring(f"{role} used by: {used}.", 8),
                )
            )
        return tuple(methods)

    def flat_triggers(self) -> tuple[dict[str, dict[str, None]], dict[str, list[str]]]:
        """For each handler: the events whose payload it may see, and where the spec uses it."""
        machine = self.machine
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
        return triggers, uses

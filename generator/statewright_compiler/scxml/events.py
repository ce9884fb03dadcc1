"""The events of an imported chart: which it declares, their names, and how a transition's
descriptors are written as an ``on`` key.

statewright's events are a closed set, SCXML's are not: any name may arrive. Every event a chart
raises is declared, and so is every event a descriptor token names (``f.b`` for ``f.b``,
``f.b.*`` or ``f.b.``), even next to a longer one (``f.b.c``): SCXML's ``f.b`` transition takes
an external ``f.b``, so the compiled chart must be able to receive it. The compiler declares
``error.execution`` and ``done.state.<id>`` itself when a descriptor matches them, under names
(``error_execution``, ``done_state_<name>``) the importer keeps free.

A key without ``.``, ``*`` or a space is an event's *name* to the compiler, not a descriptor, so
a lone token ``foo`` is written as the name of the event ``foo``, or as ``"foo.*"`` when events
such as ``foo.bar`` exist, which SCXML's ``foo`` also matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from statewright_compiler.scxml.document import (
    Document,
    Foreach,
    If,
    Node,
    NodeKind,
    Raise,
    Send,
    Step,
)
from statewright_compiler.scxml.names import event_names
from statewright_compiler.spec.descriptors import is_descriptor

__all__ = ["ChartEvents", "chart_events", "descriptor_event", "steps_of", "walk"]


def descriptor_event(token: str) -> str | None:
    """The event a descriptor token names (``foo`` for ``foo.*``), None for ``*``."""
    if token == "*":
        return None
    return token.removesuffix(".*").rstrip(".")


def steps_of(node: Node) -> Iterator[Step]:
    """Every step of a node's executable content, those inside ``<if>`` and ``<foreach>``
    and its invokes' ``<finalize>`` included."""
    for steps in (node.entry, node.exit, node.initial_steps, node.default_steps):
        yield from walk(steps)
    for transition in node.transitions:
        yield from walk(transition.steps)
    for invoke in node.invokes:
        yield from walk(invoke.finalize)


def child_targets(document: Document) -> frozenset[str]:
    """``#_<id>`` of each invoke with an id: a ``<send>`` there sends the child's event."""
    return frozenset(
        f"#_{invoke.id}" for node in document.nodes for invoke in node.invokes if invoke.id
    )


def walk(steps: Iterable[Step]) -> Iterator[Step]:
    """Each step, and after it the steps it holds."""
    for step in steps:
        yield step
        if isinstance(step, If):
            for _, branch in step.branches:
                yield from walk(branch)
            yield from walk(step.otherwise or ())
        elif isinstance(step, Foreach):
            yield from walk(step.steps)


@dataclass(frozen=True)
class ChartEvents:
    """The declared events (SCXML name to statewright name, in document order) and every event
    value the chart can see (those plus the compiler's own)."""

    names: dict[str, str]
    values: frozenset[str]

    def key(self, tokens: Sequence[str]) -> str:
        """The ``on`` key (or ``[[transitions]]`` event) for a transition's descriptor."""
        text = " ".join(tokens)
        if is_descriptor(text):
            return text
        if any(value.startswith(text + ".") for value in self.values):
            return f"{text}.*"
        return self.names[text]


def _implicit(document: Document, states: Sequence[str]) -> dict[str, str]:
    """The events the compiler declares itself when matched: value to name (a child's
    ``done.invoke.<id>``, or ``done.invoke.<state>`` for an invoke without id, as the compiler
    names them)."""
    implicit = {"error.execution": "error_execution"}
    nodes = document.nodes
    for index, node in enumerate(nodes):
        children = [nodes[child].kind for child in document.children(index)]
        if node.id is not None and (
            node.kind is NodeKind.PARALLEL or (children and NodeKind.FINAL in children)
        ):
            implicit[f"done.state.{node.id}"] = f"done_state_{states[index]}"
        for invoke in node.invokes:
            key = invoke.id or states[index]
            implicit[f"done.invoke.{key}"] = f"done_invoke_{key}"
    return implicit


def chart_events(
    document: Document, states: Sequence[str], received: Sequence[str] = ()
) -> ChartEvents:
    """The events of ``document``, whose nodes are named ``states``; ``received`` are events
    its parent chart sends it (declared as if it raised them)."""
    appearances: dict[str, bool] = dict.fromkeys(received, True)  # value -> raised
    to_children = child_targets(document)  # a send there names the child's event, not ours
    for node in document.nodes:
        for step in steps_of(node):
            to_child = isinstance(step, Send) and step.target in to_children
            if isinstance(step, Raise | Send) and step.event and not to_child:
                appearances[step.event] = True
        for transition in node.transitions:
            for token in transition.events:
                value = descriptor_event(token)
                if value is not None:
                    appearances.setdefault(value, False)
    implicit = _implicit(document, states)
    # An event the compiler declares itself is declared here only when the chart raises it,
    # and so is done.invoke, the prefix of a child's done.invoke.<id>.
    done_invoke = any(value.startswith("done.invoke.") for value in implicit)
    declared = [
        value
        for value, raised in appearances.items()
        if raised or (value not in implicit and not (value == "done.invoke" and done_invoke))
    ]
    taken = [name for value, name in implicit.items() if value not in declared]
    return ChartEvents(event_names(declared, taken), frozenset({*declared, *implicit}))

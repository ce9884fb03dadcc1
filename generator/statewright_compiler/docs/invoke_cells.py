"""A state's child machines on a docs page: each a link to the child machine's page (beside this
one, named after the child's module), its id, its params and what it runs on the child's events;
and the ``done.invoke`` events the children's completion sends."""

from __future__ import annotations

from statewright_compiler.docs import markdown
from statewright_compiler.docs.step_cells import steps_cell
from statewright_compiler.model import Invoke, Machine, State, done_invoke_value

__all__ = ["done_invoke_text", "invokes_cell"]


def _invoke_text(invoke: Invoke) -> str:
    child = invoke.machine
    # The page and the class name are identifiers and dots: nothing here can break the link.
    parts = [f"[{markdown.code(child.machine_class, table=True)}]({child.page})"]
    if invoke.id:
        parts.append(f"as {markdown.code(invoke.id, table=True)}")
    elif invoke.id_location:
        parts.append(f"id in {markdown.code(invoke.id_location, table=True)}")
    params = [f"{name} = {expression.shown}" for name, expression in invoke.params]
    if params:
        parts.append("with " + ", ".join(markdown.code(text, table=True) for text in params))
    if invoke.autoforward:
        parts.append("(every event forwarded)")
    if invoke.finalize:
        parts.append(f"/ finalize {steps_cell(invoke.finalize)}")
    if invoke.description:
        parts.append("— " + markdown.prose(invoke.description, table=True))
    return " ".join(parts)


def invokes_cell(state: State) -> str:
    """The child machines ``state`` runs while it is active, one a line."""
    return "<br>".join(_invoke_text(invoke) for invoke in state.invokes)


def done_invoke_text(machine: Machine, value: str) -> str | None:
    """Why the machine gets the event ``value`` when it is a child's ``done.invoke`` (None
    otherwise)."""
    for state in machine.states:
        for invoke in state.invokes:
            if done_invoke_value(invoke, state.name) == value:
                child = f"child {markdown.code(invoke.id)}" if invoke.id else "a child"
                where = markdown.code(state.name)
                return f"sent when the {child} of {where} reaches a final state"
    return None

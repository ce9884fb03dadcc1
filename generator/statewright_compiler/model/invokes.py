"""Child machines: what a state invokes while it is active (SCXML's ``<invoke>``).

A child is another spec's generated machine, named by its module and its sync machine class
(``research:ResearchMachine``): every generated module has ``<Name>Machine``,
``<Name>AsyncMachine``, ``<Name>Event`` and, with a data model, ``<Name>Data``, so the one name
gives them all. Nothing else from a spec ever becomes an import.
"""

from __future__ import annotations

from dataclasses import dataclass

from statewright_compiler.model.expression import Expression, KeyPath
from statewright_compiler.model.steps import Step

__all__ = ["ChildMachine", "Invoke", "done_invoke_value"]


@dataclass(frozen=True)
class ChildMachine:
    """A generated machine class another module defines: ``module`` (dotted) and ``name``, the
    child spec's machine name (``Research`` for ``ResearchMachine``)."""

    module: str
    name: str

    @property
    def text(self) -> str:
        """As the spec writes it: ``module:NameMachine``."""
        return f"{self.module}:{self.machine_class}"

    @property
    def machine_class(self) -> str:
        return f"{self.name}Machine"

    @property
    def async_class(self) -> str:
        return f"{self.name}AsyncMachine"

    @property
    def data_class(self) -> str:
        return f"{self.name}Data"

    @property
    def event_class(self) -> str:
        return f"{self.name}Event"

    def invoked_handlers_class(self, asynchronous: bool) -> str:
        """What the child needs from its parent's handlers object, generic over the context:
        ``<Name>InvokedHandlers`` (``<Name>AsyncInvokedHandlers`` for an async parent)."""
        return f"{self.name}{'Async' if asynchronous else ''}InvokedHandlers"

    @property
    def stem(self) -> str:
        """Its module's last part: what the child's docs page and exported chart are named."""
        return self.module.rsplit(".", 1)[-1]

    @property
    def page(self) -> str:
        """The child's docs page, beside the parent's."""
        return f"{self.stem}.md"


@dataclass(frozen=True)
class Invoke:
    """One child machine a state runs while it is active: started after the state is entered,
    cancelled when it is left.

    ``id`` is the fixed invoke id ("" when the machine makes one up, stored in the data field
    ``id_location`` when given). ``params`` give the child's initial data: each of its fields
    named with the expression computing it, over the parent's data, when the child starts.
    ``autoforward`` sends the child every external event the parent processes; ``finalize``
    runs on every event from the child before the parent processes it."""

    id: str
    machine: ChildMachine
    line: int
    path: KeyPath
    """Where the spec writes it (its finalize steps and its params are under it)."""
    id_location: str | None = None
    params: tuple[tuple[str, Expression], ...] = ()
    autoforward: bool = False
    finalize: tuple[Step, ...] = ()
    description: str = ""


def done_invoke_value(invoke: Invoke, state: str) -> str:
    """The value of the event the child's completion sends its parent: ``done.invoke.<id>``,
    or, for a made-up id (``<state>.<16 hex digits>``), ``done.invoke.<state>``, which every
    such event's name starts with."""
    return f"done.invoke.{invoke.id or state}"

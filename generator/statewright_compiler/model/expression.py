"""An expression of the spec as the model holds it: the text the spec wrote, where, and, once
checked, the typed Python it compiles to.

The shape pass reads each expression slot (a condition, an assigned value, a sent event's data,
a delay, ...) with only its text and key path; the check pass
(:mod:`statewright_compiler.check.expressions`) fills in its Python, its return annotation and
the annotation of ``_event.data`` in its slot. Renderers print only the compiled form (one
function per expression in the generated module), and the text in docs and diagrams.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Expression", "KeyPath"]

#: Where something is written in the spec: the keys (and array indexes) leading to it.
KeyPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Expression:
    """One expression slot of the spec."""

    text: str
    """The expression as the spec wrote it."""
    path: KeyPath
    """Where: the TOML string holding it (an error points inside it)."""
    role: str
    """What the slot is, for messages: ``condition``, ``value``, ``delay``..."""
    python: str = ""
    """The compiled body: Python over ``data``, ``event``, ``system`` and ``active``."""
    returns: str = ""
    """The return annotation of its function (a condition's is ``bool``)."""
    event_data: str = ""
    """The annotation of ``_event.data`` in this slot (the payloads that can reach it)."""
    typing_names: tuple[str, ...] = ()
    """Names from ``typing`` the two annotations use."""
    uses_lookup: bool = False
    """The body reads a field of a value of unknown type (the runtime's ``lookup``)."""

    @property
    def compiled(self) -> bool:
        return bool(self.python)

    @property
    def shown(self) -> str:
        """The text on one line, as docs and diagrams show it: its lines joined, their
        indentation dropped (spaces inside a line, in a string literal say, kept)."""
        lines = self.text.strip().replace("\r\n", "\n").split("\n")
        return " ".join(line.strip() for line in lines)

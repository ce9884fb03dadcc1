"""What the names of one expression slot mean: the data fields, ``_event`` (its fields, and the
type of its data there), the system variables and the states ``In()`` may name."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from statewright_compiler.expressions.nodes import Expr, ExpressionError
from statewright_compiler.expressions.types import ANY, NONE, STR, Type, union

__all__ = ["EVENT_FIELDS", "SYSTEM", "Scope", "Translation", "unknown_name"]

#: The system variables (SCXML 5.10), their types and their Python.
SYSTEM: Final = {
    "_sessionid": (STR, "system.sessionid"),
    "_name": (STR, "system.name"),
    "_ioprocessors": (Type("dict", (Type("dict", (STR,)),)), "system.ioprocessors"),
}
#: The fields of ``_event`` (SCXML 5.10.1) but ``data``.
EVENT_FIELDS: Final = {
    "name": STR,
    "type": STR,
    "sendid": union(STR, NONE),
    "origin": union(STR, NONE),
    "origintype": union(STR, NONE),
    "invokeid": union(STR, NONE),
}


@dataclass(frozen=True)
class Scope:
    """What the names of one expression slot mean: the data fields, the type of ``_event.data``
    there (the payload of the events that can trigger it) and, for ``In``, each state's test
    over ``active``."""

    data: Mapping[str, Type]
    event_data: Type = ANY
    states: Mapping[str, str] = field(default_factory=dict)
    #: Narrowed types by the Python text of what they narrow (``data.note`` after ``note is not
    #: None and ...``), as mypy narrows them in the generated code.
    narrowed: Mapping[str, Type] = field(default_factory=dict)

    def knowing(self, facts: Mapping[str, Type]) -> Scope:
        return replace(self, narrowed={**self.narrowed, **facts}) if facts else self


@dataclass(frozen=True)
class Translation:
    """An expression's type and its Python text."""

    type: Type
    source: str


def unknown_name(node: Expr, name: str, scope: Scope) -> ExpressionError:
    known = [*scope.data, *SYSTEM, "_event"]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ExpressionError(f"{name!r} is not a data field{hint}", node.offset, "type-error")

"""The data model: the machine's data fields (the spec's ``[data]`` and the ``data`` tables of
its states), each with its type and its initial value."""

from __future__ import annotations

from dataclasses import dataclass

from statewright_compiler.model.events import PayloadType
from statewright_compiler.model.expression import Expression

__all__ = ["DataField", "TomlValue"]

#: A field's initial value as TOML wrote it (checked against the field's type).
TomlValue = str | int | float | bool | list["TomlValue"] | dict[str, "TomlValue"] | None


@dataclass(frozen=True)
class DataField:
    """A data field: its name is global (a state's fields are the machine's too, SCXML's
    ``<datamodel>`` inside a state), its type from the payload type grammar."""

    name: str
    type: PayloadType
    annotation: str
    """The Python annotation, printed from ``type``."""
    initial: TomlValue
    """The literal initial value (None without one, and with ``expr``)."""
    expr: Expression | None
    """An initial value computed at initialization instead (``expr = "..."``)."""
    description: str
    line: int
    state: str | None = None
    """The state declaring it, or None for the machine's ``[data]``."""
    typing_names: tuple[str, ...] = ()
    """Names from ``typing`` the annotation uses."""
    imported_names: tuple[str, ...] = ()
    """Names from ``[imports]`` the annotation uses."""

"""Parts of two models compared by what they say, not by where the spec wrote them: an
expression is its text (its key path moves when a rule is reordered), a step its fields."""

from __future__ import annotations

import dataclasses

from statewright_compiler.model import Expression

__all__ = ["plain"]


def plain(value: object) -> object:
    """``value`` with every :class:`Expression` replaced by its text, dataclasses by tuples."""
    if isinstance(value, Expression):
        return ("expression", value.shown)
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (type(value).__name__, *(plain(getattr(value, field.name)) for field in fields))
    return value

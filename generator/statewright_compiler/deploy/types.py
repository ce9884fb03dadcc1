"""Whether a type only widened: every value the old type admits, the new one admits too, so a
stored value (or a caller's argument) of the old type is still good."""

from __future__ import annotations

from statewright_compiler.model import PayloadType

__all__ = ["widens"]


def _alternatives(value_type: PayloadType) -> set[PayloadType]:
    if value_type.kind == "union":
        return set().union(*(_alternatives(child) for child in value_type.children))
    if value_type.kind == "literal":
        return {PayloadType("literal", values=(value,)) for value in value_type.values}
    return {value_type}


def widens(old: PayloadType, new: PayloadType) -> bool:
    """True when ``new`` admits every value ``old`` does (each alternative kept, or an
    ``any``/``object`` alternative added)."""
    added = _alternatives(new)
    if any(alternative.kind in {"any", "object"} for alternative in added):
        return True
    return all(
        alternative in added
        or (alternative.kind == "literal" and _literal_base(alternative) in added)
        for alternative in _alternatives(old)
    )


def _literal_base(literal: PayloadType) -> PayloadType:
    """The plain type a literal's value belongs to (``Literal['a']`` is a ``str``)."""
    value = literal.values[0]
    names = {str: "str", bool: "bool", int: "int", type(None): "none"}
    return PayloadType(names[type(value)])

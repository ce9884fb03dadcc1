"""Where an assignment stores, and whether a value may be stored there."""

from __future__ import annotations

from statewright_compiler.expressions.nodes import Expr, Name, Subscript
from statewright_compiler.expressions.rules import item_type, type_error
from statewright_compiler.expressions.scope import SYSTEM, Scope, Translation, unknown_name
from statewright_compiler.expressions.translate import translate
from statewright_compiler.expressions.types import Type, assignable

__all__ = ["check_assignable", "translate_location"]


def translate_location(node: Expr, scope: Scope) -> Translation:
    """Where an assignment stores: a data field, or an item of one (``items[0]``,
    ``table["key"]``); its type is what the stored value must be assignable to."""
    if isinstance(node, Name):
        if node.name not in scope.data:
            if node.name in SYSTEM or node.name == "_event":
                raise type_error(node, f"{node.name} is a system variable: it cannot be assigned")
            raise unknown_name(node, node.name, scope)
        return Translation(scope.data[node.name], f"data.{node.name}")
    if isinstance(node, Subscript):
        container = translate_location(node.value, scope)
        index = translate(node.index, scope)
        item = item_type(node, container.type, index.type)
        return Translation(item, f"{container.source}[{index.source}]")
    raise type_error(node, "only a data field or an item of one can be assigned to")


def check_assignable(node: Expr, value: Type, target: Type, what: str) -> None:
    """A type error unless a ``value`` may be stored where ``target`` is declared."""
    if not assignable(value, target):
        raise type_error(node, f"{what} is {target}, and {value} is not")

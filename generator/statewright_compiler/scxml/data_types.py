"""The type of each data field of an imported chart, inferred from what the chart stores in it.

SCXML's data model is untyped; a spec's is typed. A field's type is the union of the types of
every value the chart can store in it: its initial value (``<data expr>`` or content), each
``<assign location="field">`` value, the items of each ``<foreach array>`` it is the ``item``
of, ``int`` where it is a ``<foreach index>`` and ``str`` where it is a ``<send idlocation>`` or
an ``<invoke idlocation>``.
A value's type is read from its form, never by running it: a literal has its own type
(``[1, 2]`` is ``list[int]``), another field has that field's type (the rule runs to a fixed
point), ``_sessionid``, ``_name``, ``_event.name`` and ``_event.type`` are ``str``, arithmetic on
``int`` is ``int``, ``+`` on ``str`` is ``str``, a comparison, ``not``, ``In()`` or
``hasattr()`` is ``bool``, ``len()`` is ``int``, ``str()`` is ``str``.

Where the rule gives up, the field is ``Any`` (the compiler then checks nothing about it):
a value of any other form (``_event.data``, an item of a field, a call), a field with no initial
value that is assigned something (SCXML charts read such a field only after storing in it,
which a type cannot say: ``int | None`` would make ``Var1 + 1`` a type error), and a union of
containers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from statewright_compiler.scxml.document import Assign, Document, Foreach, Send
from statewright_compiler.scxml.events import steps_of
from statewright_compiler.scxml.expressions import parse_tree

__all__ = ["ANY", "field_types", "value_type"]

ANY: Final = "Any"
#: The type of a field no round of the fixed point has settled yet: it adds nothing.
_UNKNOWN: Final = "Never"
_SCALARS: Final = {bool: "bool", int: "int", float: "float", str: "str"}
#: The names whose type the rule knows: constants and the system's strings.
_NAMES: Final = {
    **dict.fromkeys(("true", "false", "True", "False"), "bool"),
    **dict.fromkeys(("_sessionid", "_name"), "str"),
}
_BOOLEAN_CALLS: Final = frozenset({"In", "hasattr", "bool"})
_TYPED_CALLS: Final = {"len": "int", "str": "str", "int": "int", "float": "float"}


def _join(types: Iterable[str]) -> str:
    """The union of ``types`` (``Any`` absorbs everything, a union of containers is ``Any``)."""
    members = [member for member in dict.fromkeys(types) if member != _UNKNOWN]
    if not members:
        return _UNKNOWN
    if ANY in members:
        return ANY
    if len(members) > 1 and any("[" in member for member in members):
        return ANY
    if set(members) == {"bool", "int"}:
        return "int"
    if set(members) == {"int", "float"}:
        return "float"
    return " | ".join(members)


def _item_type(container: str) -> str:
    if container.startswith("list[") and container.endswith("]"):
        return container[5:-1]
    if container.startswith("dict["):
        return "str"  # a foreach over a dict walks its keys
    return ANY


def value_type(node: ast.expr | None, fields: Mapping[str, str]) -> str:
    """The type of the value ``node`` computes, ``Any`` when its form does not say."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return "None"
        return _SCALARS.get(type(node.value), ANY)
    if isinstance(node, ast.Name):
        return _NAMES.get(node.id) or fields.get(node.id, _UNKNOWN)
    if isinstance(node, ast.Attribute) and ast.unparse(node) in ("_event.name", "_event.type"):
        return "str"
    if isinstance(node, ast.List):
        items = _join(value_type(item, fields) for item in node.elts)
        return ANY if not node.elts or items == ANY else f"list[{items}]"
    if isinstance(node, ast.Dict):
        if not node.values or not all(
            isinstance(key, ast.Constant) and isinstance(key.value, str) for key in node.keys
        ):
            return ANY
        values = _join(value_type(value, fields) for value in node.values)
        return ANY if values == ANY else f"dict[str, {values}]"
    if isinstance(node, ast.Compare | ast.BoolOp) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    ):
        return "bool" if isinstance(node, ast.Compare | ast.UnaryOp) else _bool_op(node, fields)
    if isinstance(node, ast.UnaryOp):
        return _numeric([value_type(node.operand, fields)])
    if isinstance(node, ast.BinOp):
        return _binary(node, fields)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in _BOOLEAN_CALLS:
            return "bool"
        return _TYPED_CALLS.get(node.func.id, ANY)
    return ANY


def _bool_op(node: ast.expr, fields: Mapping[str, str]) -> str:
    assert isinstance(node, ast.BoolOp)
    values = {value_type(value, fields) for value in node.values}
    return "bool" if values == {"bool"} else ANY


def _numeric(types: Sequence[str]) -> str:
    types = [member for member in types if member != _UNKNOWN]
    if not types:
        return _UNKNOWN
    if all(member in ("int", "bool") for member in types):
        return "int"
    if all(member in ("int", "bool", "float") for member in types):
        return "float"
    return ANY


def _binary(node: ast.BinOp, fields: Mapping[str, str]) -> str:
    types = [value_type(node.left, fields), value_type(node.right, fields)]
    if isinstance(node.op, ast.Add) and set(types) <= {"str", _UNKNOWN} and "str" in types:
        return "str"
    if isinstance(node.op, ast.Div):
        return "float" if _numeric(types) != ANY else ANY
    if isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv | ast.Mod | ast.Pow):
        return _numeric(types)
    return ANY


def _stores(document: Document) -> dict[str, list[tuple[str, str | None]]]:
    """What each field may hold: ``("value", expr)``, ``("item", array)`` or ``("type", t)``;
    a field's initial value first (``("value", None)``: it has none)."""
    stores: dict[str, list[tuple[str, str | None]]] = {}
    for data in (*document.data, *(data for node in document.nodes for data in node.data)):
        stores.setdefault(data.id, []).append(("value", data.expr))
    for step in (step for node in document.nodes for step in steps_of(node)):
        if isinstance(step, Assign):
            stores.get(step.location.strip(), []).append(("value", step.expr))
        elif isinstance(step, Foreach):  # declares its item and index (SCXML 4.6)
            stores.setdefault(step.item, [("value", None)]).append(("item", step.array))
            if step.index is not None:
                stores.setdefault(step.index, [("value", None)]).append(("type", "int"))
        elif isinstance(step, Send) and step.idlocation is not None:
            stores.get(step.idlocation, []).append(("type", "str"))
    for invoke in (invoke for node in document.nodes for invoke in node.invokes):
        if invoke.idlocation is not None:
            stores.get(invoke.idlocation, []).append(("type", "str"))
    return stores


def field_types(document: Document) -> dict[str, str]:
    """Each field's type (see the module's docstring), for the spec's ``[data]``."""
    stores = _stores(document)
    types: dict[str, str] = {}
    for _ in range(len(stores) + 2):  # each round settles at least one field
        updated = {name: _field_type(found, types) for name, found in stores.items()}
        updated = {name: found for name, found in updated.items() if found != _UNKNOWN}
        if updated == types:
            break
        types = updated
    return {name: types.get(name, ANY) for name in stores}


def _field_type(found: Sequence[tuple[str, str | None]], types: Mapping[str, str]) -> str:
    members = []
    for kind, text in found:
        if kind == "type":
            assert text is not None
            members.append(text)
        elif text is None:
            members.append("None")
        elif kind == "item":
            members.append(_item_type(value_type(parse_tree(text), types)))
        else:
            members.append(value_type(parse_tree(text), types))
    known = [member for member in members if member != _UNKNOWN]
    if not known:
        return _UNKNOWN
    if members[0] == "None" and len(set(known)) > 1:
        return ANY  # read only after a store, which a type cannot say
    return _join(known) if set(known) != {"None"} else ANY

"""The types of the expression language: what a data field, a payload or an expression may be.

The same small lattice as the payload type grammar (``str int float bool None``, ``list[T]``,
``dict[str, T]``, ``Literal[...]``, unions, ``Any``), plus the two kinds only expressions see:
a *record* (an event's payload: a TypedDict in the generated module, read by field) and the
``_event`` value. Subtyping follows mypy's rules where the generated code meets mypy: ``bool`` is
an ``int``, an ``int`` is accepted where a ``float`` is, a literal is its base type, and lists and
dicts are invariant in their items.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from statewright_compiler.model import LiteralValue, PayloadType
from statewright_compiler.spec.literals import string_literal

__all__ = [
    "ANY",
    "BOOL",
    "EVENT",
    "FLOAT",
    "INT",
    "NEVER",
    "NONE",
    "NO_EVENT",
    "STR",
    "Type",
    "assignable",
    "base",
    "from_payload_type",
    "literal",
    "members",
    "typing_names",
    "union",
]

#: The kinds without arguments.
PRIMITIVES: Final = ("int", "float", "str", "bool", "none")


@dataclass(frozen=True)
class Type:
    """``kind`` is one of :data:`PRIMITIVES`, ``any``, ``object`` (a value only compared,
    printed or tested: ``object`` and imported types, ``name`` the import), ``never``, ``list``
    and ``dict`` (``args``:
    the item or value type; dict keys are strings), ``union`` (``args``: two or more members),
    ``literal`` (``values``), ``record`` (``fields``: ``(name, type, required)``, ``name`` its
    TypedDict) or ``event`` (the ``_event`` value; ``args``: the type of its data)."""

    kind: str
    args: tuple[Type, ...] = ()
    values: tuple[LiteralValue, ...] = ()
    fields: tuple[tuple[str, Type, bool], ...] = ()
    name: str = ""

    def __str__(self) -> str:
        if self.kind in PRIMITIVES:
            return "None" if self.kind == "none" else self.kind
        if self.kind == "any":
            return "Any"
        if self.kind == "never":
            return "Never"
        if self.kind == "list":
            return f"list[{self.args[0]}]"
        if self.kind == "dict":
            return f"dict[str, {self.args[0]}]"
        if self.kind == "union":
            return " | ".join(str(member) for member in self.args)
        if self.kind == "literal":
            return f"Literal[{', '.join(repr(value) for value in self.values)}]"
        if self.kind == "record":
            return self.name or "payload"
        if self.kind == "object":
            return self.name or "object"
        return "_event"

    def field(self, name: str) -> tuple[Type, bool] | None:
        """A record's field ``name``: its type and whether it is required."""
        for field_name, field_type, required in self.fields:
            if field_name == name:
                return field_type, required
        return None


INT: Final = Type("int")
FLOAT: Final = Type("float")
STR: Final = Type("str")
BOOL: Final = Type("bool")
NONE: Final = Type("none")
ANY: Final = Type("any")
NEVER: Final = Type("never")
#: ``_event.data`` where no event's payload may be there (at start, in an eventless step, after
#: a raised event): a mapping with no field the compiler knows of.
NO_EVENT: Final = Type("record", name="Mapping[str, object]")


def EVENT(data: Type) -> Type:  # a type constructor, named like the constants
    """The type of ``_event`` when its ``data`` is of type ``data``."""
    return Type("event", (data,))


def literal(value: LiteralValue) -> Type:
    return Type("literal", values=(value,))


def members(value: Type) -> tuple[Type, ...]:
    """A union's members, or the type itself."""
    return value.args if value.kind == "union" else (value,)


def base(value: Type) -> Type:
    """A literal as the type of its values (``Literal['a', 1]`` is ``str | int``); others as
    they are."""
    if value.kind == "literal":
        return union(*(_base_of(each) for each in value.values))
    if value.kind == "union":
        return union(*(base(member) for member in value.args))
    return value


def _base_of(value: LiteralValue) -> Type:
    if value is None:
        return NONE
    if isinstance(value, bool):
        return BOOL
    return INT if isinstance(value, int) else STR


def union(*types: Type) -> Type:
    """The union of ``types``: flattened, without duplicates or ``Never``, literals merged and
    dropped where their base type is a member; ``Any`` absorbs everything."""
    flat: list[Type] = []
    for each in types:
        for member in members(each):
            if member.kind == "any":
                return ANY
            if member.kind != "never" and member not in flat:
                flat.append(member)
    values: list[LiteralValue] = []
    rest: list[Type] = []
    for member in flat:
        if member.kind == "literal":
            values.extend(value for value in member.values if value not in values)
        else:
            rest.append(member)
    kept = [value for value in values if _base_of(value) not in rest]
    if kept:
        rest.append(Type("literal", values=tuple(kept)))
    if not rest:
        return NEVER
    return rest[0] if len(rest) == 1 else Type("union", tuple(rest))


def assignable(source: Type, target: Type) -> bool:
    """Whether a value of type ``source`` may be stored where ``target`` is declared."""
    if target.kind == "any" or source.kind in ("any", "never"):
        return True
    return all(
        any(_member_assignable(each, goal) for goal in members(target)) for each in members(source)
    )


def _member_assignable(source: Type, target: Type) -> bool:
    if target.kind == "any" or source == target:
        return True
    if target.kind == "object" and not target.name:
        return True  # everything is an object
    if source.kind == "literal":
        if target.kind == "literal":
            return set(source.values) <= set(target.values)
        return all(_member_assignable(_base_of(value), target) for value in source.values)
    if source.kind == "bool" and target.kind in ("int", "float"):
        return True
    if source.kind == "int" and target.kind == "float":
        return True
    if source.kind == target.kind and source.kind in ("list", "dict"):
        item, goal = source.args[0], target.args[0]
        return item.kind == "never" or item == goal or goal.kind == "any" or item.kind == "any"
    return False


def overlap(left: Type, right: Type) -> bool:
    """Whether a value could be of both types (what ``==`` between them needs to be able to be
    true; mypy's strict equality refuses comparisons that never are)."""
    if "any" in (left.kind, right.kind):
        return True
    for one in members(left):
        for other in members(right):
            if _members_overlap(one, other):
                return True
    return False


_NUMBERS: Final = frozenset({"int", "float", "bool"})


def _members_overlap(one: Type, other: Type) -> bool:
    if one.kind == "literal" and other.kind == "literal":
        return bool(set(one.values) & set(other.values)) or any(
            type(a) is not type(b) and _members_overlap(_base_of(a), _base_of(b))
            for a in one.values
            for b in other.values
        )
    if one.kind == "literal":
        return any(_members_overlap(_base_of(value), other) for value in one.values)
    if other.kind == "literal":
        return _members_overlap(other, one)
    if one.kind in _NUMBERS and other.kind in _NUMBERS:
        return True
    return "object" in (one.kind, other.kind) or one.kind == other.kind


def join_display(types: Iterable[Type]) -> Type:
    """The item type of a list display: its items' union with literals widened (``["a", "b"]`` is
    a ``list[str]``, as mypy infers it)."""
    return union(*(base(each) for each in types))


def from_payload_type(value: PayloadType) -> Type:
    """The expression type of a payload (or data field) type from the spec."""
    kind = value.kind
    if kind in PRIMITIVES:
        return Type(kind)
    if kind == "any":
        return ANY
    if kind in ("object", "named"):
        return Type("object", name=value.name)
    if kind == "list":
        return Type("list", (from_payload_type(value.children[0]),))
    if kind == "dict":
        return Type("dict", (from_payload_type(value.children[0]),))
    if kind == "literal":
        return Type("literal", values=value.values)
    return union(*(from_payload_type(child) for child in value.children))


def annotation(value: Type) -> str:
    """The Python annotation of ``value`` in a generated module (``Literal`` and ``Any`` from
    typing, a record by its TypedDict's name, ``_event`` as the runtime's ``EventInfo``)."""
    kind = value.kind
    if kind in PRIMITIVES:
        return "None" if kind == "none" else kind
    if kind == "any":
        return "Any"
    if kind == "never":
        return "NoReturn"
    if kind == "object":
        return value.name or "object"
    if kind == "list":
        return f"list[{annotation(value.args[0])}]"
    if kind == "dict":
        return f"dict[str, {annotation(value.args[0])}]"
    if kind == "union":
        return " | ".join(annotation(member) for member in value.args)
    if kind == "literal":
        printed = (
            string_literal(each) if isinstance(each, str) else repr(each) for each in value.values
        )
        return f"Literal[{', '.join(printed)}]"
    if kind == "record":
        return value.name
    return f"EventInfo[{annotation(value.args[0])}]"


def typing_names(value: Type) -> set[str]:
    """The names from ``typing`` the annotation of ``value`` uses."""
    names = {"Any"} if value.kind == "any" else {"Literal"} if value.kind == "literal" else set()
    for child in value.args:
        names |= typing_names(child)
    return names

"""An expression as a tree: what :mod:`.syntax` builds from Python's parser (only the allowed
forms exist here) and :mod:`.translate` checks and prints. Each node knows where its text
starts, so an error points at the character."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Attribute",
    "Binary",
    "BoolOp",
    "Call",
    "Compare",
    "Constant",
    "DictDisplay",
    "Expr",
    "ExpressionError",
    "IfExp",
    "ListDisplay",
    "MethodCall",
    "Name",
    "Slice",
    "Subscript",
    "Unary",
]


class ExpressionError(ValueError):
    """What is wrong with an expression, at ``offset`` (0-based, in characters)."""

    def __init__(self, message: str, offset: int, code: str = "invalid-expression") -> None:
        super().__init__(message)
        self.offset = offset
        self.code = code


@dataclass(frozen=True)
class Expr:
    """A node of the tree; ``offset`` is where its text starts in the expression."""

    offset: int


@dataclass(frozen=True)
class Constant(Expr):
    value: int | float | str | bool | None


@dataclass(frozen=True)
class Name(Expr):
    name: str


@dataclass(frozen=True)
class Attribute(Expr):
    value: Expr
    attribute: str


@dataclass(frozen=True)
class Subscript(Expr):
    value: Expr
    index: Expr


@dataclass(frozen=True)
class Slice(Expr):
    value: Expr
    lower: Expr | None
    upper: Expr | None


@dataclass(frozen=True)
class Unary(Expr):
    operator: str
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    operator: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Expr):
    """A chain: ``left ops[0] comparators[0] ops[1] comparators[1] ...``."""

    left: Expr
    operators: tuple[str, ...]
    comparators: tuple[Expr, ...]


@dataclass(frozen=True)
class BoolOp(Expr):
    operator: str  # "and" or "or"
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(frozen=True)
class Call(Expr):
    function: str
    arguments: tuple[Expr, ...]


@dataclass(frozen=True)
class MethodCall(Expr):
    value: Expr
    method: str
    arguments: tuple[Expr, ...]


@dataclass(frozen=True)
class ListDisplay(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class DictDisplay(Expr):
    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]

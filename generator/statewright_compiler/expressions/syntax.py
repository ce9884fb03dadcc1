"""Parsing an expression: Python's parser, then an allowlist, into a small tree of its own.

Only what is listed here gets through: literals (numbers, strings, ``True``/``False``/``None``),
names, ``+ - * / // % **``, unary ``- + not``, comparisons (``== != < <= > >= in not in is
None``), ``and``/``or``, ``x if c else y``, subscripts and slices, attribute access, list and dict
displays, and calls of :data:`FUNCTIONS` (and the ``get`` method of a mapping). Anything else
(lambdas, comprehensions, walrus, f-strings, starred arguments, keyword arguments, dunder names,
calls of anything not listed) is an :class:`ExpressionError` at the offending character, so the
caller can report it at the spec's line and column. Nothing is evaluated here.

Bounds keep every expression cheap to compile and to run: its length, its nesting, the size of
literals, and ``**`` only with a small constant exponent (``9**9**9`` does not compile).
"""

from __future__ import annotations

import ast
import warnings
from typing import Final

from statewright_compiler.expressions.nodes import (
    Attribute,
    Binary,
    BoolOp,
    Call,
    Compare,
    Constant,
    DictDisplay,
    Expr,
    ExpressionError,
    IfExp,
    ListDisplay,
    MethodCall,
    Name,
    Slice,
    Subscript,
    Unary,
)

__all__ = ["FUNCTIONS", "MAX_EXPRESSION_LENGTH", "ExpressionError", "parse_expression"]

#: The longest expression text, in characters.
MAX_EXPRESSION_LENGTH: Final = 2_000
#: Operators and brackets inside one another.
MAX_EXPRESSION_DEPTH: Final = 32
#: Characters of a string literal, digits of an integer literal.
MAX_STRING_LENGTH: Final = 1_000
MAX_INTEGER_DIGITS: Final = 19
#: The largest constant exponent of ``**``.
MAX_EXPONENT: Final = 64
#: Functions an expression may call: their names, and how many arguments each takes.
FUNCTIONS: Final = {
    "len": (1, 1),
    "abs": (1, 1),
    "min": (2, 8),
    "max": (2, 8),
    "int": (1, 1),
    "float": (1, 1),
    "str": (1, 1),
    "bool": (1, 1),
    "round": (1, 1),
    "In": (1, 1),
    "hasattr": (2, 2),
}
#: Methods an expression may call on a mapping.
METHODS: Final = {"get": (1, 2)}

_BINARY: Final = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}
_UNARY: Final = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not"}
_COMPARE: Final = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
#: What some refused constructs are called in a message.
_REFUSED: Final = {
    ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.NamedExpr: "an assignment expression (:=)",
    ast.JoinedStr: "an f-string",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Starred: "a starred expression",
    ast.Set: "a set",
    ast.Tuple: "a tuple",
}


def parse_expression(text: str) -> Expr:
    """The tree of ``text``, or :class:`ExpressionError` naming the first thing not allowed."""
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise ExpressionError(
            f"an expression is at most {MAX_EXPRESSION_LENGTH} characters",
            MAX_EXPRESSION_LENGTH,
            "limit-exceeded",
        )
    if not text.strip():
        raise ExpressionError("the expression is empty", 0)
    _check_nesting(text)
    try:
        with warnings.catch_warnings():
            # Python only warns about "1if x" or "'\\d'" (an invalid escape) for now: refused
            # here, as a later Python refuses them, rather than printed on the compiler's stderr.
            warnings.simplefilter("error")
            tree = ast.parse(text.strip("\n"), mode="eval")
    except SyntaxError as error:
        message = error.msg[:1].lower() + error.msg[1:] if error.msg else "invalid syntax"
        if not error.offset:  # Python points nowhere when the text ends too early
            raise ExpressionError(f"not an expression: {message}", len(text.rstrip())) from None
        offset = _offset(text, error.lineno or 1, error.offset - 1, encoded=False)
        raise ExpressionError(f"not an expression: {message}", offset) from None
    except Warning as warning:  # any other warning Python has for the text
        raise ExpressionError(f"not an expression: {warning}", 0) from None
    except (RecursionError, MemoryError, ValueError):
        raise ExpressionError("the expression is too complex", 0, "limit-exceeded") from None
    return _Converter(text).convert(tree.body, 0)


def _check_nesting(text: str) -> None:
    """Brackets nested deeper than :data:`MAX_EXPRESSION_DEPTH` (before Python's parser, which
    would recurse once per level)."""
    depth = 0
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
            if depth > MAX_EXPRESSION_DEPTH:
                raise ExpressionError(
                    f"brackets nest more than {MAX_EXPRESSION_DEPTH} levels deep",
                    index,
                    "limit-exceeded",
                )
        elif char in ")]}":
            depth = max(0, depth - 1)


def _offset(text: str, line: int, column: int, *, encoded: bool = True) -> int:
    """A character offset in ``text`` from Python's 1-based line and column (a UTF-8 byte
    offset in ast nodes, a character offset in syntax errors)."""
    lines = text.strip("\n").split("\n")
    skipped = len(text) - len(text.lstrip("\n"))
    line = min(max(line, 1), len(lines))
    before = sum(len(each) + 1 for each in lines[: line - 1])
    current = lines[line - 1]
    if encoded:
        column = len(current.encode("utf-8")[:column].decode("utf-8", errors="ignore"))
    return skipped + before + min(max(column, 0), len(current))


class _Converter:
    """Python's tree to ours, refusing everything not on the allowlist."""

    def __init__(self, text: str) -> None:
        self.text = text

    def at(self, node: ast.AST) -> int:
        return _offset(self.text, getattr(node, "lineno", 1), getattr(node, "col_offset", 0))

    def refuse(
        self, node: ast.AST, message: str, code: str = "invalid-expression"
    ) -> ExpressionError:
        return ExpressionError(message, self.at(node), code)

    def convert(self, node: ast.expr, depth: int) -> Expr:
        if depth > MAX_EXPRESSION_DEPTH:
            raise self.refuse(node, "the expression nests too deeply", "limit-exceeded")
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            what = _REFUSED.get(type(node), f"{type(node).__name__} syntax")
            raise self.refuse(node, f"{what} is not allowed in an expression")
        return method(node, depth + 1)  # type: ignore[no-any-return]  # each method returns an Expr

    def _Constant(self, node: ast.Constant, depth: int) -> Expr:
        value = node.value
        if isinstance(value, bool) or value is None:
            return Constant(self.at(node), value)
        if isinstance(value, int):
            if len(str(abs(value))) > MAX_INTEGER_DIGITS:
                raise self.refuse(
                    node, f"an integer has at most {MAX_INTEGER_DIGITS} digits", "limit-exceeded"
                )
            return Constant(self.at(node), value)
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise self.refuse(node, "a number must be finite")
            return Constant(self.at(node), value)
        if isinstance(value, str):
            if len(value) > MAX_STRING_LENGTH:
                raise self.refuse(
                    node, f"a string has at most {MAX_STRING_LENGTH} characters", "limit-exceeded"
                )
            return Constant(self.at(node), value)
        raise self.refuse(node, f"a {type(value).__name__} literal is not allowed")

    def _Name(self, node: ast.Name, depth: int) -> Expr:
        if node.id.startswith("__"):
            raise self.refuse(node, f"names starting with '__' are not allowed ({node.id!r})")
        return Name(self.at(node), node.id)

    def _Attribute(self, node: ast.Attribute, depth: int) -> Expr:
        if node.attr.startswith("_"):
            raise self.refuse(node, f"attributes starting with '_' are not allowed ({node.attr!r})")
        return Attribute(self.at(node), self.convert(node.value, depth), node.attr)

    def _Subscript(self, node: ast.Subscript, depth: int) -> Expr:
        value = self.convert(node.value, depth)
        index = node.slice
        if isinstance(index, ast.Slice):
            if index.step is not None:
                raise self.refuse(index.step, "a slice with a step is not allowed")
            lower = None if index.lower is None else self.convert(index.lower, depth)
            upper = None if index.upper is None else self.convert(index.upper, depth)
            return Slice(self.at(node), value, lower, upper)
        return Subscript(self.at(node), value, self.convert(index, depth))

    def _UnaryOp(self, node: ast.UnaryOp, depth: int) -> Expr:
        operator = _UNARY.get(type(node.op))
        if operator is None:
            raise self.refuse(node, "the operator ~ is not allowed")
        return Unary(self.at(node), operator, self.convert(node.operand, depth))

    def _BinOp(self, node: ast.BinOp, depth: int) -> Expr:
        operator = _BINARY.get(type(node.op))
        if operator is None:
            raise self.refuse(node, "bitwise and matrix operators are not allowed")
        if operator == "**":
            exponent = node.right
            if not (
                isinstance(exponent, ast.Constant)
                and type(exponent.value) is int
                and 0 <= exponent.value <= MAX_EXPONENT
            ):
                raise self.refuse(
                    node.right,
                    f"the exponent of ** must be a whole number from 0 to {MAX_EXPONENT}",
                    "limit-exceeded",
                )
        left = self.convert(node.left, depth)
        return Binary(self.at(node), operator, left, self.convert(node.right, depth))

    def _Compare(self, node: ast.Compare, depth: int) -> Expr:
        operators = tuple(_COMPARE[type(op)] for op in node.ops)
        comparators = tuple(self.convert(each, depth) for each in node.comparators)
        for operator, comparator in zip(operators, comparators, strict=True):
            if operator in ("is", "is not") and not (
                isinstance(comparator, Constant) and comparator.value is None
            ):
                raise ExpressionError(
                    f"'{operator}' compares with None only (use == or != otherwise)",
                    comparator.offset,
                )
        return Compare(self.at(node), self.convert(node.left, depth), operators, comparators)

    def _BoolOp(self, node: ast.BoolOp, depth: int) -> Expr:
        operator = "and" if isinstance(node.op, ast.And) else "or"
        values = tuple(self.convert(each, depth) for each in node.values)
        return BoolOp(self.at(node), operator, values)

    def _IfExp(self, node: ast.IfExp, depth: int) -> Expr:
        test = self.convert(node.test, depth)
        body = self.convert(node.body, depth)
        return IfExp(self.at(node), test, body, self.convert(node.orelse, depth))

    def _Call(self, node: ast.Call, depth: int) -> Expr:
        if node.keywords:
            raise self.refuse(node.keywords[0].value, "keyword arguments are not allowed")
        arguments = tuple(self.convert(each, depth) for each in node.args)
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in METHODS:
            low, high = METHODS[function.attr]
            self._arity(node, function.attr, len(arguments), low, high)
            value = self.convert(function.value, depth)
            return MethodCall(self.at(node), value, function.attr, arguments)
        if not isinstance(function, ast.Name) or function.id not in FUNCTIONS:
            allowed = ", ".join(sorted(FUNCTIONS))
            raise self.refuse(
                node, f"only these functions may be called: {allowed} (and a mapping's get)"
            )
        low, high = FUNCTIONS[function.id]
        self._arity(node, function.id, len(arguments), low, high)
        return Call(self.at(node), function.id, arguments)

    def _arity(self, node: ast.AST, name: str, count: int, low: int, high: int) -> None:
        if not low <= count <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            raise self.refuse(node, f"{name}() takes {wanted} argument(s), not {count}")

    def _List(self, node: ast.List, depth: int) -> Expr:
        return ListDisplay(self.at(node), tuple(self.convert(each, depth) for each in node.elts))

    def _Dict(self, node: ast.Dict, depth: int) -> Expr:
        keys = []
        for key in node.keys:
            if key is None:
                raise self.refuse(node, "** in a dict display is not allowed")
            keys.append(self.convert(key, depth))
        values = tuple(self.convert(each, depth) for each in node.values)
        return DictDisplay(self.at(node), tuple(keys), values)

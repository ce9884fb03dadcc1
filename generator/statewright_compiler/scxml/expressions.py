"""A chart's expressions in the spec's expression language, through Python's parser.

The W3C charts statewright imports are written for a Python data model (python-statemachine's
rewrite of the IRP tests), with a few ECMAScript spellings left in charts that still say
``datamodel="ecmascript"``: ``true``, ``false`` and ``null``. An expression is parsed with
:func:`ast.parse` (never evaluated) and rewritten as a tree: those names become ``True``,
``False`` and ``None``; each ``In('id')`` names the state's statewright name; ``_event.data is
None`` (or ``== None``, python-statemachine's "the event has no data") becomes ``not
_event.data``, the spec's ``_event.data`` being always a mapping, empty without data. The tree
is printed back with :func:`ast.unparse`. What the result may say is the compiler's to decide:
the spec's expression language (``expressions/``) refuses everything outside its allowlist and
checks the types, and what it refuses is a diagnostic at the chart's element
(:mod:`compile_check`).
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Iterable
from typing import Final

__all__ = ["ChartExpressionError", "is_unparsed", "names_in", "parse_tree", "spec_expression"]

#: ECMAScript's constants, as the ecmascript charts of the suite spell them.
_CONSTANTS: Final = {"true": True, "false": False, "null": None}


_UNPARSED: Final = "it is not an expression"


class ChartExpressionError(ValueError):
    """An expression that is not one (``1 = 1``, ``return``, nothing at all), or an ``In()``
    of no state; ``text`` is the expression as the chart writes it."""

    def __init__(self, text: str, why: str) -> None:
        super().__init__(why)
        self.text = text


def parse_tree(text: str) -> ast.expr | None:
    """The syntax tree of the expression ``text`` (None: it is none), parsed, never evaluated;
    Python's warnings about odd literals (``1s``) are the chart's business, not the output's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        try:
            return ast.parse(text.strip(), mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None


def _parse(text: str) -> ast.expr:
    tree = parse_tree(text)
    if tree is None:
        raise ChartExpressionError(text, _UNPARSED)
    return tree


class _Rewriter(ast.NodeTransformer):
    def __init__(self, text: str, state_name: Callable[[str], str | None]) -> None:
        self.text = text
        self.state_name = state_name

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in _CONSTANTS:
            return ast.copy_location(ast.Constant(_CONSTANTS[node.id]), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        """``_event.data is None`` (or ``== None``): the chart's data model has no data as
        None, the spec's as an empty mapping (``_event.data`` is always one), so the test is
        ``not _event.data``."""
        self.generic_visit(node)
        if (
            len(node.ops) == 1
            and isinstance(node.ops[0], ast.Is | ast.Eq)
            and ast.unparse(node.left) == "_event.data"
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value is None
        ):
            return ast.copy_location(ast.UnaryOp(ast.Not(), node.left), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        state = in_state(node)
        if state is not None:
            name = self.state_name(state)
            if name is None:
                raise ChartExpressionError(self.text, f"In({state!r}) names no state")
            node.args[0] = ast.copy_location(ast.Constant(name), node.args[0])
        return node


def spec_expression(text: str, state_name: Callable[[str], str | None]) -> str:
    """``text`` in the spec's expression language (its meaning the compiler checks);
    ``state_name`` maps an SCXML id to its state's name (None: no such state)."""
    tree = _Rewriter(text, state_name).visit(_parse(text))
    assert isinstance(tree, ast.expr)
    return ast.unparse(tree)


def is_unparsed(error: ChartExpressionError) -> bool:
    """Whether ``error`` says its text is no expression at all."""
    return str(error) == _UNPARSED


def names_in(text: str) -> Iterable[str]:
    """The names an expression reads (empty when it does not parse)."""
    try:
        tree = _parse(text)
    except ChartExpressionError:
        return ()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} - set(_CONSTANTS)


def uncalled(text: str, functions: Iterable[str]) -> set[str]:
    """The names of ``functions`` that ``text`` reads as values, not calls (``min``, not
    ``min(a, b)``): a function is no value of the expression language (empty when it does not
    parse)."""
    try:
        tree = _parse(text)
    except ChartExpressionError:
        return set()
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    named = set(functions)
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id in named and id(node) not in called
    }


def in_state(node: ast.Call) -> str | None:
    """The state ``In('<name>')`` names, when ``node`` is that call with a literal: the one call
    whose argument is a state's name in one vocabulary (the chart's ids, the spec's names) and so
    is renamed on the way in and out."""
    match node:
        case ast.Call(func=ast.Name(id="In"), args=[ast.Constant(value=str(state))], keywords=[]):
            return state
    return None

"""SCXML ``cond`` expressions as statewright guards.

``In('s1')``, and ``and``/``or``/``not`` over such calls, is statechart structure: it becomes the
guard ``in(s1)``, which the runtime evaluates itself. Any other expression belongs to a data
model statewright does not have, so it becomes a *named* guard (``cond_1``, ...), a handler method
the user writes; the spec keeps the original text beside it so that a program (the conformance
harness) or a person can implement it. In a mixed condition each maximal term without ``In()`` is
its own named guard, so the ``In()`` parts keep their meaning.

SCXML's system variables (``_event``, ``_sessionid``, ...) have no counterpart a guard could
read, so a condition using them is refused rather than translated into a guard that cannot work.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from statewright_compiler.spec.limits import MAX_GUARD_DEPTH

__all__ = ["CondError", "Guard", "translate_cond"]

_SYSTEM_VARIABLES: Final = frozenset({"_event", "_sessionid", "_name", "_ioprocessors", "_x"})
_SYSTEM_VARIABLE_TEXT: Final = re.compile(r"(?<![\w.])(_event|_sessionid|_name|_ioprocessors|_x)\b")
_IN_CALL_TEXT: Final = re.compile(r"(?<![\w.])In\s*\(")


@dataclass(frozen=True)
class Guard:
    """A statewright guard expression and the named guards in it, each with the SCXML
    expression it stands for."""

    expression: str
    named: tuple[tuple[str, str], ...]


class CondError(ValueError):
    """A condition that cannot be translated; ``code`` is the diagnostic's."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _unsupported(message: str) -> CondError:
    return CondError("scxml-unsupported", message)


class _Translator:
    def __init__(
        self,
        text: str,
        state_name: Callable[[str], str | None],
        new_guard: Callable[[], str],
    ) -> None:
        self.text = text
        self.state_name = state_name
        self.new_guard = new_guard
        self.named: list[tuple[str, str]] = []

    def term(self, node: ast.expr, depth: int) -> str:
        """``node`` as a guard expression (``depth``: the ``not``/parentheses around it)."""
        if depth > MAX_GUARD_DEPTH:
            raise CondError(
                "limit-exceeded", f"the condition nests more than {MAX_GUARD_DEPTH} levels deep"
            )
        if isinstance(node, ast.BoolOp):
            joiner = " and " if isinstance(node.op, ast.And) else " or "
            parts = []
            for value in node.values:
                part = self.term(value, depth + 1)
                # ``and`` binds tighter than ``or``: only an ``or`` inside an ``and`` needs them.
                inner_or = isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or)
                parts.append(f"({part})" if inner_or and joiner == " and " else part)
            return joiner.join(parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = self.term(node.operand, depth + 1)
            return f"not ({operand})" if isinstance(node.operand, ast.BoolOp) else f"not {operand}"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "In"
            and not node.keywords
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            state = node.args[0].value
            name = self.state_name(state)
            if name is None:
                raise CondError("scxml-invalid", f"In({state!r}) names no state")
            return f"in({name})"
        if any(isinstance(inner, ast.Name) and inner.id == "In" for inner in ast.walk(node)):
            raise _unsupported("In() is translated only as a term of and/or/not with one state id")
        return self.leaf(ast.get_source_segment(self.text, node) or self.text)

    def leaf(self, expression: str) -> str:
        name = self.new_guard()
        self.named.append((name, expression))
        return name


def translate_cond(
    cond: str, state_name: Callable[[str], str | None], new_guard: Callable[[], str]
) -> Guard:
    """The guard for ``cond``. ``state_name`` maps an SCXML id to its state's name (None: no
    such state); ``new_guard`` returns a fresh guard name each call."""
    text = cond.strip()
    translator = _Translator(text, state_name, new_guard)
    try:
        tree: ast.expr | None = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        tree = None  # not Python: kept whole for whoever implements the guard
    if tree is None:
        system = _SYSTEM_VARIABLE_TEXT.search(text)
        if system is not None:
            raise _unsupported(f"the condition uses {system[0]}")
        if _IN_CALL_TEXT.search(text):
            raise _unsupported("the condition calls In() but is not a Python expression")
        return Guard(translator.leaf(text), tuple(translator.named))
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used = sorted(names & _SYSTEM_VARIABLES)
    if used:
        raise _unsupported(
            f"the condition uses {', '.join(used)}: a guard sees the event's payload, "
            "not SCXML's system variables"
        )
    if "In" not in names:
        return Guard(translator.leaf(text), tuple(translator.named))
    return Guard(translator.term(tree, 0), tuple(translator.named))

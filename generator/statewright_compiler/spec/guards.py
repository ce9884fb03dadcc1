"""Guard expressions: names combined with ``not``, ``and``, ``or`` and parentheses, and (in
statecharts) ``in(state)``.

Parsed here into :mod:`model` nodes and later compiled to Python calls on the handlers object;
the text of a guard is never evaluated at run time.
"""

from __future__ import annotations

import keyword
import re

from statewright_compiler.model import And, GuardCall, GuardExpression, InState, Not, Or
from statewright_compiler.spec.limits import MAX_GUARD_DEPTH

__all__ = [
    "GuardSyntaxError",
    "GuardTooDeep",
    "guard_names",
    "guard_states",
    "guard_text",
    "parse_guard",
]

_TOKEN = re.compile(r"\s*(?:(?P<paren>[()])|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<other>\S))")
_OPERATORS = frozenset({"and", "or", "not"})


class GuardSyntaxError(ValueError):
    """A guard that does not parse; ``offset`` is the 0-based character offset in the text."""

    code = "invalid-guard"

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class GuardTooDeep(GuardSyntaxError):
    """Parentheses and ``not`` nest deeper than :data:`~limits.MAX_GUARD_DEPTH`."""

    code = "limit-exceeded"


def _tokens(text: str) -> list[tuple[str, int]]:
    tokens: list[tuple[str, int]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:  # only trailing white space is left
            break
        if match.group("other") is not None:
            raise GuardSyntaxError(
                f"unexpected character {match.group('other')!r} in guard", match.start("other")
            )
        start = match.start("paren") if match.group("paren") else match.start("name")
        tokens.append((match.group("paren") or match.group("name"), start))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.index = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def offset(self) -> int:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else len(self.text)

    def take(self) -> str:
        token = self.tokens[self.index][0]
        self.index += 1
        return token

    def parse(self) -> GuardExpression:
        if not self.tokens:
            raise GuardSyntaxError("empty guard expression", 0)
        expression = self.parse_or()
        if self.peek() is not None:
            raise GuardSyntaxError(f"unexpected {self.peek()!r} in guard", self.offset())
        return expression

    def parse_or(self) -> GuardExpression:
        operands = [self.parse_and()]
        while self.peek() == "or":
            self.take()
            operands.append(self.parse_and())
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def parse_and(self) -> GuardExpression:
        operands = [self.parse_not()]
        while self.peek() == "and":
            self.take()
            operands.append(self.parse_not())
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def nest(self) -> None:
        """One more level of ``not`` or parentheses; bounded so the parser cannot recurse away."""
        self.depth += 1
        if self.depth > MAX_GUARD_DEPTH:
            raise GuardTooDeep(
                f"the guard nests 'not' and parentheses more than {MAX_GUARD_DEPTH} levels deep",
                self.offset(),
            )

    def parse_not(self) -> GuardExpression:
        if self.peek() != "not":
            return self.parse_atom()
        negations = 0
        while self.peek() == "not":
            self.take()
            self.nest()
            negations += 1
        operand = self.parse_atom()
        self.depth -= negations
        # ``not not x`` and ``not (not x)`` mean ``x`` (guards are truth values).
        for _ in range(negations):
            operand = operand.operand if isinstance(operand, Not) else Not(operand)
        return operand

    def parse_atom(self) -> GuardExpression:
        token, offset = self.peek(), self.offset()
        if token is None:
            raise GuardSyntaxError("guard expression ends too early", offset)
        if token == "(":
            self.take()
            self.nest()
            expression = self.parse_or()
            if self.peek() != ")":
                raise GuardSyntaxError("missing ')' in guard", self.offset())
            self.take()
            self.depth -= 1
            return expression
        if token == "in":
            return self.parse_in()
        if token == ")" or token in _OPERATORS:
            raise GuardSyntaxError(f"expected a guard name, found {token!r}", offset)
        if keyword.iskeyword(token):
            raise GuardSyntaxError(f"{token!r} is a Python keyword, not a guard name", offset)
        self.take()
        return GuardCall(token)

    def parse_in(self) -> InState:
        """``in(state)``: the one call a guard may make (``in`` is a keyword, never a guard)."""
        self.take()
        if self.peek() != "(":
            raise GuardSyntaxError("'in' must be followed by '(state)'", self.offset())
        self.take()
        name, offset = self.peek(), self.offset()
        if name is None or name in ("(", ")") or keyword.iskeyword(name):
            raise GuardSyntaxError("in(...) takes a state's name", offset)
        self.take()
        if self.peek() != ")":
            raise GuardSyntaxError("missing ')' after in(state", self.offset())
        self.take()
        return InState(name)


def parse_guard(text: str) -> GuardExpression:
    """Parse a guard expression; raise :class:`GuardSyntaxError` with an offset on failure."""
    return _Parser(text).parse()


def guard_names(expression: GuardExpression) -> tuple[str, ...]:
    """Every guard name in the expression, in order of appearance."""
    if isinstance(expression, GuardCall):
        return (expression.name,)
    if isinstance(expression, InState):
        return ()
    if isinstance(expression, Not):
        return guard_names(expression.operand)
    return tuple(name for operand in expression.operands for name in guard_names(operand))


def guard_states(expression: GuardExpression) -> tuple[str, ...]:
    """The states ``in(...)`` terms of the expression name, in order of appearance."""
    if isinstance(expression, InState):
        return (expression.name,)
    if isinstance(expression, GuardCall):
        return ()
    if isinstance(expression, Not):
        return guard_states(expression.operand)
    return tuple(name for operand in expression.operands for name in guard_states(operand))


def guard_text(expression: GuardExpression, *, parent: int = 0) -> str:
    """Normalised text (minimal parentheses); the same function prints guards in Python and docs."""
    if isinstance(expression, GuardCall):
        return expression.name
    if isinstance(expression, InState):
        return f"in({expression.name})"
    if isinstance(expression, Not):
        return f"not {guard_text(expression.operand, parent=3)}"
    precedence, joiner = (2, " and ") if isinstance(expression, And) else (1, " or ")
    text = joiner.join(guard_text(operand, parent=precedence) for operand in expression.operands)
    return f"({text})" if parent > precedence else text

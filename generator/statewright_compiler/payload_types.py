"""The payload type grammar: a small, closed set of annotations an event field may have.

The parser rebuilds the annotation text from its own parse tree, so nothing from the spec is ever
pasted into generated code; unknown names must come from ``[imports]``.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from statewright_compiler.limits import MAX_LITERAL_DIGITS, MAX_TYPE_DEPTH
from statewright_compiler.literals import string_literal

__all__ = ["ParsedType", "PayloadTypeError", "PayloadTypeTooLarge", "parse_payload_type"]

_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<number>-?[0-9]+)"
    r"|(?P<string>'[^'\\\n]*'|\"[^\"\\\n]*\")|(?P<punct>[\[\],|])|(?P<other>\S))"
)
_BUILTINS = frozenset({"str", "int", "float", "bool", "None", "object"})
#: Names from ``typing`` a payload type may use without importing them: the generated module
#: imports exactly the ones its payloads use.
_TYPING_NAMES = frozenset({"Any"})
_LITERAL_CONSTANTS = frozenset({"True", "False", "None"})


class PayloadTypeError(ValueError):
    code = "invalid-type"

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class PayloadTypeTooLarge(PayloadTypeError):
    """Brackets nest deeper than :data:`~limits.MAX_TYPE_DEPTH`, or a literal is too long."""

    code = "limit-exceeded"


@dataclass(frozen=True)
class ParsedType:
    annotation: str
    """Canonical Python annotation text."""
    optional: bool
    """``None`` is one of the alternatives."""
    names: tuple[str, ...]
    """Imported names the annotation uses."""
    typing_names: tuple[str, ...]
    """Names from ``typing`` the annotation uses (``Literal``, ``Any``)."""


class _Parser:
    def __init__(self, text: str, imported: Collection[str]) -> None:
        self.text = text
        self.imported = imported
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                break
            kind = match.lastgroup or "other"
            if kind == "other":
                raise PayloadTypeError(f"unexpected {match.group(kind)!r}", match.start(kind))
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            position = match.end()
        self.index = 0
        self.depth = 0
        self.names: list[str] = []
        self.typing_names: list[str] = []

    def offset(self) -> int:
        return self.tokens[self.index][2] if self.index < len(self.tokens) else len(self.text)

    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def open_bracket(self) -> None:
        """``[`` of a generic or a Literal: one level deeper, within :data:`MAX_TYPE_DEPTH`."""
        self.depth += 1
        if self.depth > MAX_TYPE_DEPTH:
            raise PayloadTypeTooLarge(
                f"the type nests brackets more than {MAX_TYPE_DEPTH} levels deep", self.offset()
            )
        self.expect("[")

    def close_bracket(self) -> None:
        self.expect("]")
        self.depth -= 1

    def expect(self, token: str) -> None:
        if self.peek() != token:
            found = "the end" if self.peek() is None else repr(self.peek())
            raise PayloadTypeError(f"expected {token!r}, found {found}", self.offset())
        self.index += 1

    def parse(self) -> ParsedType:
        if not self.tokens:
            raise PayloadTypeError("empty type", 0)
        alternatives = self.union()
        if self.peek() is not None:
            raise PayloadTypeError(f"unexpected {self.peek()!r}", self.offset())
        return ParsedType(
            annotation=" | ".join(alternatives),
            optional="None" in alternatives,
            names=tuple(dict.fromkeys(self.names)),
            typing_names=tuple(sorted(set(self.typing_names))),
        )

    def union(self) -> list[str]:
        alternatives = [self.atom()]
        while self.peek() == "|":
            self.index += 1
            alternatives.append(self.atom())
        return alternatives

    def atom(self) -> str:
        offset = self.offset()
        if self.index >= len(self.tokens):
            raise PayloadTypeError("type ends too early", offset)
        kind, token, _ = self.tokens[self.index]
        if kind != "name":
            raise PayloadTypeError(f"expected a type, found {token!r}", offset)
        self.index += 1
        if token in _BUILTINS:
            return token
        if token in _TYPING_NAMES:
            self.typing_names.append(token)
            return token
        if token == "list":
            self.open_bracket()
            inner = " | ".join(self.union())
            self.close_bracket()
            return f"list[{inner}]"
        if token == "dict":
            self.open_bracket()
            if self.peek() != "str":
                raise PayloadTypeError("dict keys must be 'str' (JSON objects)", self.offset())
            self.index += 1
            self.expect(",")
            inner = " | ".join(self.union())
            self.close_bracket()
            return f"dict[str, {inner}]"
        if token == "Literal":
            self.typing_names.append(token)
            self.open_bracket()
            literals = [self.literal()]
            while self.peek() == ",":
                self.index += 1
                literals.append(self.literal())
            self.close_bracket()
            return f"Literal[{', '.join(literals)}]"
        if token in self.imported:
            self.names.append(token)
            return token
        raise PayloadTypeError(
            f"{token!r} is not a payload type: use str, int, float, bool, None, object, Any, "
            "list[...], dict[str, ...], Literal[...] or a name declared in [imports]",
            offset,
        )

    def literal(self) -> str:
        offset = self.offset()
        if self.index >= len(self.tokens):
            raise PayloadTypeError("Literal ends too early", offset)
        kind, token, _ = self.tokens[self.index]
        self.index += 1
        if kind == "string":
            return string_literal(token[1:-1])
        if kind == "number":
            if len(token.lstrip("-")) > MAX_LITERAL_DIGITS:
                raise PayloadTypeTooLarge(
                    f"Literal integers have at most {MAX_LITERAL_DIGITS} digits", offset
                )
            return str(int(token))
        if kind == "name" and token in _LITERAL_CONSTANTS:
            return token
        raise PayloadTypeError(
            f"Literal values must be strings, integers, True, False or None, not {token!r}", offset
        )


def parse_payload_type(text: str, imported: Collection[str]) -> ParsedType:
    """Parse ``text``; raise :class:`PayloadTypeError` (with an offset) outside the grammar."""
    return _Parser(text, imported).parse()

"""The payload type grammar: a small, closed set of types an event field may have.

The parser builds a :class:`~model.PayloadType` tree; the Python annotation is printed from that
tree (so nothing from the spec is ever pasted into generated code), and so are the runtime's
validator data and the JSON Schema of the field. Unknown names must come from ``[imports]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from statewright_compiler.model import LiteralValue, PayloadType
from statewright_compiler.spec.limits import MAX_LITERAL_DIGITS, MAX_TYPE_DEPTH
from statewright_compiler.spec.literals import string_literal

__all__ = [
    "ParsedType",
    "PayloadTypeError",
    "PayloadTypeTooLarge",
    "annotation",
    "parse_payload_type",
    "runtime_shape",
]

_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<number>-?[0-9]+)"
    r"|(?P<string>'[^'\\\n]*'|\"[^\"\\\n]*\")|(?P<punct>[\[\],|])|(?P<other>\S))"
)
#: Spec name -> kind of the builtin types.
_BUILTINS = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "None": "none",
    "object": "object",
    "Any": "any",
}
#: Names from ``typing`` a payload type may use without importing them: the generated module
#: imports exactly the ones its payloads use.
_TYPING_KINDS = {"any": "Any", "literal": "Literal"}
_LITERAL_CONSTANTS: dict[str, LiteralValue] = {"True": True, "False": False, "None": None}
_ANNOTATIONS = {kind: name for name, kind in _BUILTINS.items()}


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
    type: PayloadType
    annotation: str
    """Canonical Python annotation text."""
    optional: bool
    """``None`` is one of the alternatives."""
    names: tuple[str, ...]
    """Imported names the annotation uses."""
    typing_names: tuple[str, ...]
    """Names from ``typing`` the annotation uses (``Literal``, ``Any``)."""


def annotation(node: PayloadType) -> str:
    """The Python annotation of a payload type."""
    if node.kind in _ANNOTATIONS:
        return _ANNOTATIONS[node.kind]
    if node.kind == "list":
        return f"list[{annotation(node.children[0])}]"
    if node.kind == "dict":
        return f"dict[str, {annotation(node.children[0])}]"
    if node.kind == "union":
        return " | ".join(annotation(child) for child in node.children)
    if node.kind == "literal":
        return f"Literal[{', '.join(_literal_text(value) for value in node.values)}]"
    return node.name


def runtime_shape(node: PayloadType) -> tuple[Any, ...]:
    """The type as the runtime's payload boundary reads it (see ``statewright._payloads``)."""
    if node.kind in ("list", "dict"):
        return (node.kind, runtime_shape(node.children[0]))
    if node.kind == "union":
        return ("union", tuple(runtime_shape(child) for child in node.children))
    if node.kind == "literal":
        return ("literal", node.values)
    if node.kind == "named":
        return ("named", f"{node.module}.{node.name}")
    return (node.kind,)


def _literal_text(value: LiteralValue) -> str:
    return string_literal(value) if isinstance(value, str) else repr(value)


def _walk(node: PayloadType) -> list[PayloadType]:
    nodes = [node]
    for child in node.children:
        nodes += _walk(child)
    return nodes


class _Parser:
    def __init__(self, text: str, imported: Mapping[str, str]) -> None:
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
        node = self.union()
        if self.peek() is not None:
            raise PayloadTypeError(f"unexpected {self.peek()!r}", self.offset())
        nodes = _walk(node)
        alternatives = node.children if node.kind == "union" else (node,)
        return ParsedType(
            type=node,
            annotation=annotation(node),
            optional=any(alternative.kind == "none" for alternative in alternatives),
            names=tuple(dict.fromkeys(n.name for n in nodes if n.kind == "named")),
            typing_names=tuple(
                sorted({_TYPING_KINDS[n.kind] for n in nodes if n.kind in _TYPING_KINDS})
            ),
        )

    def union(self) -> PayloadType:
        alternatives = [self.atom()]
        while self.peek() == "|":
            self.index += 1
            alternatives.append(self.atom())
        return (
            alternatives[0] if len(alternatives) == 1 else PayloadType("union", tuple(alternatives))
        )

    def atom(self) -> PayloadType:
        offset = self.offset()
        if self.index >= len(self.tokens):
            raise PayloadTypeError("type ends too early", offset)
        kind, token, _ = self.tokens[self.index]
        if kind != "name":
            raise PayloadTypeError(f"expected a type, found {token!r}", offset)
        self.index += 1
        if token in _BUILTINS:
            return PayloadType(_BUILTINS[token])
        if token == "list":
            self.open_bracket()
            items = self.union()
            self.close_bracket()
            return PayloadType("list", (items,))
        if token == "dict":
            self.open_bracket()
            if self.peek() != "str":
                raise PayloadTypeError("dict keys must be 'str' (JSON objects)", self.offset())
            self.index += 1
            self.expect(",")
            values = self.union()
            self.close_bracket()
            return PayloadType("dict", (values,))
        if token == "Literal":
            self.open_bracket()
            literals = [self.literal()]
            while self.peek() == ",":
                self.index += 1
                literals.append(self.literal())
            self.close_bracket()
            return PayloadType("literal", values=tuple(literals))
        if token in self.imported:
            return PayloadType("named", name=token, module=self.imported[token])
        raise PayloadTypeError(
            f"{token!r} is not a payload type: use str, int, float, bool, None, object, Any, "
            "list[...], dict[str, ...], Literal[...] or a name declared in [imports]",
            offset,
        )

    def literal(self) -> LiteralValue:
        offset = self.offset()
        if self.index >= len(self.tokens):
            raise PayloadTypeError("Literal ends too early", offset)
        kind, token, _ = self.tokens[self.index]
        self.index += 1
        if kind == "string":
            return token[1:-1]
        if kind == "number":
            if len(token.lstrip("-")) > MAX_LITERAL_DIGITS:
                raise PayloadTypeTooLarge(
                    f"Literal integers have at most {MAX_LITERAL_DIGITS} digits", offset
                )
            return int(token)
        if kind == "name" and token in _LITERAL_CONSTANTS:
            return _LITERAL_CONSTANTS[token]
        raise PayloadTypeError(
            f"Literal values must be strings, integers, True, False or None, not {token!r}", offset
        )


def parse_payload_type(text: str, imported: Mapping[str, str]) -> ParsedType:
    """Parse ``text`` (``imported``: name -> module of the ``[imports]`` names); raise
    :class:`PayloadTypeError` (with an offset) outside the grammar."""
    return _Parser(text, imported).parse()

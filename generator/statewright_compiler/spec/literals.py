"""Python literals for spec text: the only way spec strings reach generated code.

Every string from a spec is printed through :func:`string_literal` or :func:`docstring_literal`,
so quotes, backslashes, newlines, ``{{ }}`` or Unicode line separators cannot end a literal early.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "comment_text",
    "data_literal",
    "dict_literal",
    "docstring_literal",
    "string_literal",
    "tuple_literal",
    "value_literal",
]

_QUOTE_RUNS = re.compile(r'"{2,}|"$')


def string_literal(text: str) -> str:
    """A one-line literal: ``repr`` escapes quotes, backslashes and every non-printable char.

    Double-quoted where that needs no escape, as formatted Python code is.
    """
    literal = repr(text)
    if literal.startswith("'") and '"' not in text:
        return f'"{literal[1:-1]}"'
    return literal


def tuple_literal(items: Iterable[str]) -> str:
    """``()``, ``(a,)`` or ``(a, b)`` from expressions already rendered."""
    rendered = list(items)
    if len(rendered) == 1:
        return f"({rendered[0]},)"
    return f"({', '.join(rendered)})"


def data_literal(value: object) -> str:
    """A Python literal for data made of tuples, strings, integers, booleans and None."""
    if isinstance(value, tuple):
        return tuple_literal(data_literal(item) for item in value)
    if isinstance(value, str):
        return string_literal(value)
    if value is None or isinstance(value, bool | int):
        return repr(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def value_literal(value: object) -> str:
    """A Python literal for a TOML value (a data field's initial value): strings, integers,
    finite floats, booleans, lists and tables of them, and None."""
    if isinstance(value, str):
        return string_literal(value)
    if value is None or isinstance(value, bool | int | float):
        return repr(value)  # a float is finite: the shape pass refuses nan and inf
    if isinstance(value, list):
        return "[" + ", ".join(value_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return dict_literal((string_literal(key), value_literal(v)) for key, v in value.items())
    raise TypeError(f"no literal for {type(value).__name__}")


def dict_literal(items: Iterable[tuple[str, str]]) -> str:
    """``{key: value, ...}`` from keys and values already rendered."""
    return "{" + ", ".join(f"{key}: {value}" for key, value in items) + "}"


def _escape_char(char: str) -> str:
    if char == "\\":
        return "\\\\"
    if char == "\n" or char.isprintable():
        return char
    code = ord(char)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def docstring_literal(text: str, indent: str = "") -> str:
    """A triple-quoted literal that reads naturally but cannot be broken out of.

    Continuation lines are indented by ``indent`` (as a hand-written docstring would be;
    ``inspect.cleandoc`` removes it again).
    """
    lines = [line.rstrip() for line in text.strip().splitlines()]
    text = ("\n" + indent).join(lines).replace(indent + "\n", "\n") if indent else "\n".join(lines)
    body = "".join(_escape_char(char) for char in text)
    # A quote may stay bare only alone and not last: runs of two or more could close the
    # literal together with a neighbour, and a last one would touch the closing delimiter.
    body = _QUOTE_RUNS.sub(lambda run: '\\"' * len(run.group()), body)
    return f'"""{body}"""'


def comment_text(text: str) -> str:
    """Text safe inside a ``#`` comment: one line, every non-printable char escaped."""
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)

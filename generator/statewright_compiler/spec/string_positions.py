"""Positions inside a TOML string: where the n-th character of a string's value is written.

An expression's error has an offset in the string's *value* (escapes decoded, a multi-line
string's first newline and line-ending backslashes removed); a diagnostic needs the line and
column in the file. This walks the string's source from its opening quote, decoding as TOML does,
until it has passed ``offset`` characters of the value. It only runs on a document the TOML parser
accepted; anything unexpected answers the string's own position.
"""

from __future__ import annotations

from typing import Final

from statewright_compiler.spec.positions import Position

__all__ = ["position_in_string"]

#: Escapes of a basic string and how many characters of source each takes (after the ``\``).
_ESCAPE_LENGTHS: Final = {"u": 5, "U": 9, "x": 3}


def _index(text: str, position: Position) -> int:
    """The index in ``text`` of a 1-based line and column."""
    index = 0
    for _ in range(position.line - 1):
        found = text.find("\n", index)
        if found < 0:
            return len(text)
        index = found + 1
    return index + position.column - 1


def position_in_string(text: str, start: Position, offset: int) -> Position:
    """Where character ``offset`` of the value of the string whose opening quote is at
    ``start`` is written in ``text`` (the whole document)."""
    index = _index(text, start)
    if index >= len(text) or text[index] not in "\"'":
        return start
    quote = text[index]
    multi_line = text.startswith(quote * 3, index)
    index += 3 if multi_line else 1
    if multi_line and text.startswith("\n", index):
        index += 1
    elif multi_line and text.startswith("\r\n", index):
        index += 2
    basic = quote == '"'
    remaining = offset
    while index < len(text):
        char = text[index]
        following = text[index + 1 : index + 2]
        if basic and multi_line and char == "\\" and following in (" ", "\t", "\r", "\n"):
            index = _skip_line_ending_backslash(text, index + 1)  # none of the value's chars
            continue
        if remaining == 0:
            break
        if basic and char == "\\":
            index += 1 + _ESCAPE_LENGTHS.get(following, 1)
        elif char == "\r" and text.startswith("\r\n", index):
            index += 2
        else:
            index += 1
        remaining -= 1
    before = text.rfind("\n", 0, index) + 1
    return Position(text.count("\n", 0, index) + 1, index - before + 1)


def _skip_line_ending_backslash(text: str, index: int) -> int:
    """Past the whitespace and newlines a line-ending backslash removes."""
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index

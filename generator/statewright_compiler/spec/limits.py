"""Resource limits on spec input: what a spec may not exceed, so that no input can exhaust the
compiler (recursion, memory, time) or produce a module Python cannot import.

Each limit is far above what a hand-written machine needs, and each is reported as a
``limit-exceeded`` diagnostic at the position where it is crossed, never as a traceback.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "MAX_GUARD_DEPTH",
    "MAX_LITERAL_DIGITS",
    "MAX_SPEC_BYTES",
    "MAX_TOML_DEPTH",
    "MAX_TYPE_DEPTH",
    "LimitExceeded",
    "toml_nesting_error",
]

#: Size of a spec file. The largest seed is 30 KB; a 10,000-transition machine is about 300 KB.
MAX_SPEC_BYTES: Final = 8 * 1024 * 1024
#: Arrays and inline tables inside one another (TOML's parser recurses per level).
MAX_TOML_DEPTH: Final = 32
#: Parentheses and ``not`` inside one another in a guard expression.
MAX_GUARD_DEPTH: Final = 32
#: ``list[...]``/``dict[str, ...]``/``Literal[...]`` inside one another in a payload type.
#: Python's parser refuses more than 200 nested brackets in the generated code.
MAX_TYPE_DEPTH: Final = 16
#: Digits of an integer in ``Literal[...]`` (64-bit integers have at most 19).
MAX_LITERAL_DIGITS: Final = 19


class LimitExceeded(ValueError):
    """A limit above was crossed at ``offset`` (0-based, in the text being parsed)."""

    code = "limit-exceeded"

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


#: What the nesting scan stops at; it jumps over everything else.
_NESTING_TOKEN: Final = re.compile(r"[\[\]{}#\"']")
#: A one-line string's body after its opening quote (a backslash escapes the next character).
_ONE_LINE_BODY: Final = {
    '"': re.compile(r'(?:[^"\\\n]|\\.)*', re.DOTALL),
    "'": re.compile(r"[^'\n]*"),
}


def toml_nesting_error(text: str) -> LimitExceeded | None:
    """The first place where arrays and inline tables nest deeper than :data:`MAX_TOML_DEPTH`.

    A linear scan that steps over strings and comments; it runs before the TOML parser, which
    would recurse once per level and fail with ``RecursionError`` on a deep enough input.
    """
    depth = 0
    index = 0
    length = len(text)
    while (found := _NESTING_TOKEN.search(text, index)) is not None:
        index = found.start()
        char = text[index]
        if char in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return LimitExceeded(
                    f"arrays and tables nest more than {MAX_TOML_DEPTH} levels deep", index
                )
        elif char in "]}":
            depth = max(depth - 1, 0)
        elif char == "#":
            end = text.find("\n", index)
            index = length if end < 0 else end
            continue
        elif char in "\"'":
            index = _string_end(text, index)
            continue
        index += 1
    return None


def _string_end(text: str, start: int) -> int:
    """Index just after the TOML string starting at ``start`` (end of text if unterminated)."""
    quote = text[start]
    triple = text.startswith(quote * 3, start)
    if not triple:  # up to its closing quote, or to the end of its line when it has none
        body = _ONE_LINE_BODY[quote].match(text, start + 1)
        assert body is not None  # the pattern matches the empty string too
        end = body.end()
        return end + 1 if text.startswith(quote, end) else min(end, len(text))
    index = start + 3
    closing = quote * 3
    while index < len(text):
        if quote == '"' and text[index] == "\\":
            index += 2
            continue
        if text.startswith(closing, index):
            end = index + 3
            while text.startswith(quote, end) and end - index < 5:
                end += 1  # up to two quotes before the closing ones belong to the string
            return end
        index += 1
    return len(text)

"""Source positions for a TOML document that ``tomllib`` has already accepted.

``tomllib`` (and ``tomli``, the same parser) returns plain values without positions, but every
diagnostic must point at ``line:col``. This module walks the same text once more, without
building values, and records where each key and each value starts, keyed by its path in the
parsed document: ``("transitions", 3, "to")`` or ``("states", "idle", "tags", 1)``.

It relies on the input being valid TOML (it runs after the parser) and so can stay small.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from statewright_compiler.spec.toml_compat import tomllib

__all__ = ["KeyPath", "Position", "scan_positions"]

KeyPath = tuple[str | int, ...]

# What the scanner skips or reads in one step (a regular expression each, not a loop per
# character: a spec with 200,000 tags is scanned in a fraction of a second).
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]*")
_SCALAR = re.compile(r"[^,\]}#\n\r]*")
_BLANK = re.compile(r"(?:[ \t]+|#[^\n]*)*")
_BLANK_LINES = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
#: A one-line string's content after its opening quote, up to its closing quote.
_ONE_LINE = {'"': re.compile(r'((?:[^"\\]|\\.)*)"', re.DOTALL), "'": re.compile(r"([^']*)'")}


@dataclass(frozen=True)
class Position:
    """1-based line and column (in characters) of a key's or a value's first character."""

    line: int
    column: int


@dataclass
class _Positions:
    values: dict[KeyPath, Position]
    keys: dict[KeyPath, Position]


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.line = 1
        self.line_start = 0
        self.result = _Positions(values={}, keys={})
        #: How many elements each array of tables has so far, by its concrete path.
        self.table_array_lengths: dict[KeyPath, int] = {}

    # -- low level -------------------------------------------------------------------------------
    def position(self) -> Position:
        return Position(self.line, self.index - self.line_start + 1)

    def peek(self, offset: int = 0) -> str:
        index = self.index + offset
        return self.text[index] if index < len(self.text) else ""

    def advance(self, count: int = 1) -> None:
        end = self.index + count
        newlines = self.text.count("\n", self.index, end)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.index, end) + 1
        self.index = end

    def skip(self, pattern: re.Pattern[str]) -> str:
        """Advance over what ``pattern`` matches here, returning it."""
        match = pattern.match(self.text, self.index)
        assert match is not None  # every pattern here matches the empty string at least
        self.advance(match.end() - self.index)
        return match.group()

    def skip_blank(self, *, newlines: bool) -> None:
        """Skip spaces, tabs and comments; also newlines when ``newlines`` is true."""
        self.skip(_BLANK_LINES if newlines else _BLANK)

    # -- keys ------------------------------------------------------------------------------------
    def read_key(self) -> list[tuple[str, Position]]:
        """Read a possibly dotted key, returning each part with its position."""
        parts: list[tuple[str, Position]] = []
        while True:
            self.skip_blank(newlines=False)
            start = self.position()
            char = self.peek()
            if char in "\"'":
                parts.append((self.read_string(), start))
            else:
                parts.append((self.skip(_BARE_KEY), start))
            self.skip_blank(newlines=False)
            if self.peek() != ".":
                return parts
            self.advance()

    # -- values ----------------------------------------------------------------------------------
    def read_string(self) -> str:
        """Read one string of any of the four TOML kinds and return its (unescaped) content."""
        quote = self.peek()
        if self.text.startswith(quote * 3, self.index):
            end = self.index + 3
            while not self.text.startswith(quote * 3, end):
                end += 2 if quote == '"' and self.text[end] == "\\" else 1
            # up to two more quotes right before the closing delimiter belong to the content
            while self.text.startswith(quote, end + 3):
                end += 1
            content = self.text[self.index + 3 : end]
            self.advance(end + 3 - self.index)
            return content
        self.advance()
        content = self.skip(_ONE_LINE[quote])[:-1]
        return _unescape_basic(content) if quote == '"' else content

    def read_value(self, path: KeyPath) -> None:
        self.skip_blank(newlines=False)
        self.result.values[path] = self.position()
        char = self.peek()
        if char in "\"'":
            self.read_string()
        elif char == "[":
            self.read_array(path)
        elif char == "{":
            self.read_inline_table(path)
        else:
            self.skip(_SCALAR)

    def read_array(self, path: KeyPath) -> None:
        self.advance()  # [
        index = 0
        while True:
            self.skip_blank(newlines=True)
            if self.peek() == "]":
                self.advance()
                return
            self.read_value((*path, index))
            index += 1
            self.skip_blank(newlines=True)
            if self.peek() == ",":
                self.advance()

    def read_inline_table(self, path: KeyPath) -> None:
        self.advance()  # {
        while True:
            self.skip_blank(newlines=True)
            if self.peek() == "}":
                self.advance()
                return
            self.read_key_value(path)
            self.skip_blank(newlines=True)
            if self.peek() == ",":
                self.advance()

    def read_key_value(self, table: KeyPath) -> None:
        parts = self.read_key()
        path = table
        for name, position in parts:
            path = (*path, name)
            self.result.keys.setdefault(path, position)
        self.skip_blank(newlines=False)
        self.advance()  # =
        self.read_value(path)

    # -- tables ----------------------------------------------------------------------------------
    def resolve(self, parts: list[tuple[str, Position]], *, is_array: bool) -> KeyPath:
        """Turn a header's key parts into a concrete path, indexing arrays of tables."""
        path: KeyPath = ()
        for number, (name, position) in enumerate(parts):
            path = (*path, name)
            last = number == len(parts) - 1
            if last and is_array:
                count = self.table_array_lengths.get(path, 0)
                self.table_array_lengths[path] = count + 1
                self.result.keys.setdefault(path, position)
                path = (*path, count)
                self.result.keys[path] = position
                self.result.values[path] = position
            else:
                self.result.keys.setdefault(path, position)
                self.result.values.setdefault(path, position)
                if path in self.table_array_lengths:
                    path = (*path, self.table_array_lengths[path] - 1)
        return path

    def scan(self) -> _Positions:
        table: KeyPath = ()
        while True:
            self.skip_blank(newlines=True)
            if self.index >= len(self.text):
                return self.result
            if self.peek() == "[":
                is_array = self.peek(1) == "["
                self.advance(2 if is_array else 1)
                parts = self.read_key()
                self.advance(2 if is_array else 1)
                table = self.resolve(parts, is_array=is_array)
            else:
                self.read_key_value(table)


def _unescape_basic(content: str) -> str:
    """Decode the escapes that may appear in a quoted key (enough to name it correctly)."""
    if "\\" not in content:
        return content
    return str(tomllib.loads(f'k = "{content}"')["k"])


def scan_positions(text: str) -> tuple[dict[KeyPath, Position], dict[KeyPath, Position]]:
    """Return ``(value_positions, key_positions)`` for a document ``tomllib`` accepted."""
    result = _Scanner(text).scan()
    return result.values, result.keys

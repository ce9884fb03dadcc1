"""Step 5 of the pipeline: lay generated source out in lines of at most :data:`WIDTH` columns.

The compiler formats its own output rather than running a formatter: the user may have another
version of ruff or Black (or none), and the bytes of a generated module must depend only on the
spec and on statewright's version. Generated modules then say ``# fmt: off`` and ``# ruff: noqa``
so that the user's formatter and linter leave them alone.

Templates print every statement on one logical line. Lines that are too long are split the way
Black and ruff split them, so the output reads like formatted code:

* at a bracket pair ("right-hand split"): the rightmost pair whose opening line and closing line
  fit, else the rightmost pair (a ``def`` or ``class`` line: its first pair, as Black does); the
  part between the brackets goes on its own, deeper line;
* a part that still does not fit is split at its top-level commas, one item per line, each
  followed by a comma (the "magic trailing comma" that keeps ruff and Black from joining it
  again); without commas, at ``or``, ``and`` or ``|`` inside brackets, the operator leading;
* every resulting line is split again the same way if it is still too long.

A ``case`` pattern of alternatives gets the parentheses that make such a split legal. Nothing
inside a string is ever touched, and lines inside multi-line strings (docstrings with spec text)
are kept verbatim. The split never changes the meaning of the code: a test compares the syntax
trees before and after for random specs.

A line is tokenised once. Pieces are index ranges into its tokens, and what the splitter asks of
a piece (its text, its bracket pairs, its top-level delimiters) is read from tables built once per
line, so splitting a line ``k`` levels deep does not copy or re-scan its tokens ``k`` times.
"""

from __future__ import annotations

import keyword
import re
from bisect import bisect_left
from collections.abc import Iterable
from functools import cached_property
from itertools import accumulate, repeat
from typing import Final

__all__ = ["WIDTH", "format_source"]

#: Black's and ruff's default line length, so that generated code looks at home anywhere.
WIDTH: Final = 88
_INDENT: Final = "    "

_STRING_BODY = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
#: A token's kind shows in its text: a string ends with a quote (no other token holds one), a
#: comment starts with ``#``, blanks are blank, a bracket or a comma is that one character.
_TOKEN = re.compile(
    rf"""[rRbBuU]{{0,2}}(?:\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|{_STRING_BODY})  # a string
    |[(\[{{]  # an opening bracket
    |[)\]}}]  # a closing bracket
    |,
    |\#.*  # a comment
    |[ \t]+  # blanks
    |[A-Za-z0-9_.]+|[^\sA-Za-z0-9_."'()\[\]{{}},]+  # a word: a name, a number or an operator""",
    re.VERBOSE,
)
_OPENING: Final = frozenset("([{")
_CLOSING: Final = frozenset(")]}")
_DEPTH_CHANGE: Final = {**dict.fromkeys(_OPENING, 1), **dict.fromkeys(_CLOSING, -1)}
#: Where a line may be split inside brackets, strongest first: after commas, then before
#: ``and``/``or``, then before ``|`` (the operator then leads its line).
_COMMA: Final = (",",)
_DELIMITERS: Final = (_COMMA, ("or", "and"), ("|",))
_OPERATORS: Final = ("or", "and", "|")
#: The token texts whose top-level places the splitter looks up: delimiters, and the ``:`` and
#: ``=`` that end an assignment's or annotation's target.
_INDEXED: Final = frozenset({",", "or", "and", "|", ":", "="})
#: String literals and comments: what the scan for multi-line strings must step over whole.
_LITERAL_OR_COMMENT = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*'
)


class _Tokens:
    """The tokens of one line (or of a piece the splitter made up) and, computed once and only
    when asked for, what the splitter asks of any range ``[start, end)`` of them.

    Depths count brackets from the first token; a range's own bracket depth is the difference
    from its start's, and a bracket pair inside a range is matched exactly as in the whole line
    (brackets between a matched pair are balanced), so answers for a range need no re-scan.
    """

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.source = "".join(texts)
        #: Where each token starts in ``source`` (and where the last one ends).
        self.starts = list(accumulate(map(len, texts), initial=0))

    @cached_property
    def depths(self) -> list[int]:
        """The bracket depth before each token (and after the last one)."""
        changes = map(_DEPTH_CHANGE.get, self.texts, repeat(0))
        return list(accumulate(changes, initial=0))

    @cached_property
    def closing(self) -> dict[int, int]:
        """The index of the bracket closing each opening one that is closed on this line."""
        closing: dict[int, int] = {}
        stack: list[int] = []
        for index in [i for i, text in enumerate(self.texts) if text in _DEPTH_CHANGE]:
            if self.texts[index] in _OPENING:
                stack.append(index)
            elif stack:  # else the opening bracket is on an earlier line
                closing[stack.pop()] = index
        return closing

    @cached_property
    def places(self) -> dict[tuple[str, int], list[int]]:
        """The indices of each indexed text at each depth, in order."""
        places: dict[tuple[str, int], list[int]] = {}
        depths = self.depths
        for index in [i for i, text in enumerate(self.texts) if text in _INDEXED]:
            places.setdefault((self.texts[index], depths[index]), []).append(index)
        return places

    def text(self, start: int, end: int) -> str:
        return self.source[self.starts[start] : self.starts[end]].strip()

    def first_word(self, start: int, end: int) -> int:
        """The index of the first token in the range that is not blank, else ``end``."""
        while start < end and self.texts[start].isspace():
            start += 1
        return start

    def top_level(self, start: int, end: int, texts: Iterable[str]) -> list[int]:
        """The indices of the tokens in the range outside all its brackets whose text is one of
        ``texts`` (all indexed), in order."""
        depth, places = self.depths[start], self.places
        found: list[int] = []
        for text in texts:
            at = places.get((text, depth), [])
            found += at[bisect_left(at, start) : bisect_left(at, end)]
        return sorted(found)

    def bracket_pairs(self, start: int, end: int) -> list[tuple[int, int]]:
        """Matched bracket pairs outside all other brackets of the range, with something between
        them, left to right."""
        texts, pairs, index = self.texts, [], start
        while index < end:
            if texts[index] in _OPENING:
                closing = self.closing.get(index, end)
                if closing >= end:
                    break  # open to the end of the range: no pair follows at its top level
                if not all(texts[i].isspace() for i in range(index + 1, closing)):
                    pairs.append((index, closing))
                index = closing
            index += 1
        return pairs


#: A piece of a line: its tokens and the range ``[start, end)`` of them it is.
_Piece = tuple[_Tokens, int, int]


def _tokens(line: str) -> _Tokens | None:
    """The tokens of one physical line, or None when it is not one we can split safely."""
    tokens = _Tokens(_TOKEN.findall(line))
    if tokens.starts[-1] != len(line):
        return None  # a character no token takes: the matches skipped it
    return tokens


def _text(piece: _Piece) -> str:
    tokens, start, end = piece
    return tokens.text(start, end)


def _split_at(piece: _Piece, texts: tuple[str, ...]) -> list[_Piece]:
    """Split at top-level tokens whose text is in ``texts``; each separator starts a piece.

    A separator that already starts the piece (an operator leading its line) stays put.
    """
    tokens, start, end = piece
    first = tokens.first_word(start, end)
    bounds = [start, *(i for i in tokens.top_level(start, end, texts) if i != first), end]
    return [(tokens, bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


def _with_comma(piece: _Piece) -> _Piece:
    """``piece`` followed by a comma: the one after it on its line, else a copy with one."""
    tokens, start, end = piece
    if end < len(tokens.texts) and tokens.texts[end] == ",":
        return tokens, start, end + 1
    texts = [*tokens.texts[start:end], ","]
    return _Tokens(texts), 0, len(texts)


def _is_display(tokens: _Tokens, start: int, opening: int) -> bool:
    """Whether the bracket at ``opening`` starts a tuple, list, set or dict literal (not a call,
    a subscript or a parameter list, which follow a name or another bracket)."""
    before = opening - 1
    while before >= start and tokens.texts[before].isspace():
        before -= 1
    if before < start:
        return True
    previous = tokens.texts[before]
    if previous in _CLOSING:
        return False
    return not (previous.isidentifier() and not keyword.iskeyword(previous))


def _with_invisible_parentheses(piece: _Piece) -> _Piece | None:
    """Parenthesise the expression of ``case X:``, ``return X``, ``name: X`` or ``name = X`` when
    ``X`` has top-level operators, so that it can be split at them (as Black and ruff do); None
    when there is nothing to parenthesise."""
    tokens, start, end = piece
    texts = tokens.texts
    first = tokens.first_word(start, end)
    if first == end:
        return None
    last = end - 1
    while texts[last].isspace():
        last -= 1
    if texts[first] in {"case", "return"}:
        inner = first + 1
    else:
        boundary = tokens.top_level(start, end, (":", "="))
        if not boundary:
            return None
        inner = boundary[0] + 1  # at the depth of ``start``: a boundary is no bracket
    outer = last + 1
    if texts[last] in {":", ","} and last >= inner:
        outer = last
    default = tokens.top_level(inner, outer, ("=",))
    if default:
        outer = default[0]  # ``name: A | B = None``: the annotation ends at its default
    while outer > inner and texts[outer - 1].isspace():
        outer -= 1
    if not tokens.top_level(inner, outer, _OPERATORS) or not tokens.text(inner, outer):
        return None
    texts = [*texts[start:inner], " ", "(", *texts[inner:outer], ")", *texts[outer:end]]
    return _Tokens(texts), 0, len(texts)


class _Splitter:
    def __init__(self, width: int) -> None:
        self.width = width

    def fits(self, indent: str, text: str) -> bool:
        return len(indent) + len(text) <= self.width

    def lines(self, piece: _Piece, indent: str, *, in_brackets: bool) -> list[str]:
        """``piece`` on one line if it fits, else split (inside brackets: at delimiters first,
        as Black does; then at brackets)."""
        text = _text(piece)
        if self.fits(indent, text):
            return [indent + text]
        tokens, start, end = piece
        if in_brackets and tokens.top_level(start, end, _COMMA):
            pieces = _split_at(piece, _COMMA)
            if sum(1 for item in pieces if _text(item) not in {"", ","}) > 1:
                return self.delimited(pieces, indent, comma=True)
        if tokens.top_level(start, end, _OPERATORS):
            parenthesised = _with_invisible_parentheses(piece)
            if parenthesised is not None:
                split = self.bracket_split(parenthesised, indent, in_brackets=in_brackets)
                if split is not None:
                    return split
        for texts in _DELIMITERS[1:] if in_brackets else ():
            pieces = _split_at(piece, texts)
            if len(pieces) > 1:
                return self.delimited(pieces, indent, comma=False)
        split = self.bracket_split(piece, indent, in_brackets=in_brackets)
        return [indent + text] if split is None else split

    def delimited(self, pieces: list[_Piece], indent: str, *, comma: bool) -> list[str]:
        """One piece per line; commas end their piece (a trailing one is added), operators
        start theirs."""
        if comma:
            # The separator opens each later piece; move it to the end of the one before.
            pieces = [pieces[0], *((tokens, start + 1, end) for tokens, start, end in pieces[1:])]
            if not _text(pieces[-1]):
                pieces.pop()  # a trailing comma was there already
            pieces = [_with_comma(piece) for piece in pieces]
        lines: list[str] = []
        for piece in pieces:
            lines += self.lines(piece, indent, in_brackets=True)
        return lines

    def bracket_split(self, piece: _Piece, indent: str, *, in_brackets: bool) -> list[str] | None:
        tokens, start, end = piece
        pairs = tokens.bracket_pairs(start, end)
        if not pairs:
            return None
        first = tokens.first_word(start, end)
        second = tokens.first_word(first + 1, end)
        is_def = tokens.texts[first] == "def" or (
            tokens.texts[first] == "async" and second < end and tokens.texts[second] == "def"
        )
        # Black's "left-hand split": a definition breaks at its parameter (or base) list.
        left_hand = is_def or tokens.texts[first] == "class"
        candidates = pairs[:1] if left_hand else list(reversed(pairs))
        opening, closing = candidates[0]
        for candidate_opening, candidate_closing in candidates:
            head = tokens.text(start, candidate_opening + 1)
            tail = tokens.text(candidate_closing, end)
            if self.fits(indent, head) and self.fits(indent, tail):
                opening, closing = candidate_opening, candidate_closing
                break
        body: _Piece = (tokens, opening + 1, closing)
        items = _split_at(body, _COMMA)
        if is_def and opening == pairs[0][0] and len(items) == 1 and _text(body):
            # Black gives a split parameter list without commas (one parameter) a trailing one.
            body = _with_comma(body)
        if _is_display(tokens, start, opening) and sum(1 for i in items if _text(i) != ",") > 1:
            # A collection literal, once split from its brackets, has one item per line.
            body_lines = self.delimited(items, indent + _INDENT, comma=True)
        else:
            body_lines = self.lines(body, indent + _INDENT, in_brackets=True)
        return [
            *self.lines((tokens, start, opening + 1), indent, in_brackets=in_brackets),
            *body_lines,
            *self.lines((tokens, closing, end), indent, in_brackets=in_brackets),
        ]


def format_source(source: str, width: int = WIDTH) -> str:
    """``source`` with every splittable line longer than ``width`` split (see the module doc)."""
    splitter = _Splitter(width)
    verbatim = _multi_line_string_lines(source)
    output: list[str] = []
    for number, line in enumerate(source.split("\n")):
        tokens = None if len(line) <= width or number in verbatim else _tokens(line)
        if tokens is None:
            output.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        end = len(tokens.texts)
        comment = None
        if end and tokens.texts[-1].startswith("#"):
            comment, end = tokens.texts[-1], end - 1
        if not tokens.text(0, end):  # a comment alone on its line: nothing to split
            output.append(line)
            continue
        lines = splitter.lines((tokens, 0, end), indent, in_brackets=False)
        if comment is not None:
            # A trailing comment stays on the first line (where a ``type: ignore`` applies).
            lines[0] += "  " + comment
        output += lines
    return "\n".join(output)


def _multi_line_string_lines(source: str) -> set[int]:
    """0-based numbers of the lines a multi-line string starts on, runs through or ends on."""
    lines: set[int] = set()
    for match in _LITERAL_OR_COMMENT.finditer(source):
        if "\n" in match.group():
            first = source.count("\n", 0, match.start())
            lines.update(range(first, first + match.group().count("\n") + 1))
    return lines

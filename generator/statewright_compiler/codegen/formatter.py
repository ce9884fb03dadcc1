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
"""

from __future__ import annotations

import keyword
import re
from typing import Final, NamedTuple

__all__ = ["WIDTH", "format_source"]

#: Black's and ruff's default line length, so that generated code looks at home anywhere.
WIDTH: Final = 88
_INDENT: Final = "    "

_STRING_BODY = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
_TOKEN = re.compile(
    rf"""(?P<string>[rRbBuU]{{0,2}}(?:\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|{_STRING_BODY}))
    |(?P<open>[(\[{{])
    |(?P<close>[)\]}}])
    |(?P<comma>,)
    |(?P<comment>\#.*)
    |(?P<space>[ \t]+)
    |(?P<word>[A-Za-z0-9_.]+|[^\sA-Za-z0-9_."'()\[\]{{}},]+)""",
    re.VERBOSE,
)
#: Where a line may be split inside brackets, strongest first: after commas, then before
#: ``and``/``or``, then before ``|`` (the operator then leads its line).
_DELIMITERS: Final = (frozenset({","}), frozenset({"or", "and"}), frozenset({"|"}))
_OPERATORS: Final = frozenset({"or", "and", "|"})
#: String literals and comments: what the scan for multi-line strings must step over whole.
_LITERAL_OR_COMMENT = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*'
)


class _Token(NamedTuple):
    kind: str
    text: str


def _tokens(line: str) -> list[_Token] | None:
    """The tokens of one physical line, or None when it is not one we can split safely."""
    tokens = [_Token(match.lastgroup or "", match.group()) for match in _TOKEN.finditer(line)]
    if sum(len(token.text) for token in tokens) != len(line):
        return None  # a character no token takes: the matches skipped it
    return tokens


def _text(tokens: list[_Token]) -> str:
    return "".join([token.text for token in tokens]).strip()


def _top_level(tokens: list[_Token]) -> list[int]:
    """The bracket depth before each token (0 = outside every bracket of this piece)."""
    depths, depth = [], 0
    for kind, _ in tokens:
        if kind == "close":
            depth -= 1
        depths.append(depth)
        if kind == "open":
            depth += 1
    return depths


def _bracket_pairs(tokens: list[_Token]) -> list[tuple[int, int]]:
    """Matched top-level bracket pairs with something between them, left to right."""
    pairs, stack = [], []
    for index, token in enumerate(tokens):
        if token.kind == "open":
            stack.append(index)
        elif token.kind == "close" and stack:
            opening = stack.pop()
            if not stack and any(tokens[i].kind != "space" for i in range(opening + 1, index)):
                pairs.append((opening, index))
        elif token.kind == "close":
            stack.clear()  # the opening bracket is on an earlier line: not a pair of this piece
    return pairs


def _fits(tokens: list[_Token], room: int) -> bool:
    """Whether ``_text(tokens)`` is at most ``room`` long, reading no further than that."""
    length = end = 0  # end: the length up to the last word read (trailing space is stripped)
    for kind, text in tokens:
        if kind == "space":
            if end:  # leading space is stripped too
                length += len(text)
            continue
        length += len(text)
        end = length
        if end > room:
            return False
    return True


def _top_level_texts(tokens: list[_Token]) -> set[str]:
    """The texts of the tokens outside every bracket of ``tokens``."""
    texts, depth = set(), 0
    for kind, text in tokens:
        if kind == "close":
            depth -= 1
        elif kind == "open":
            depth += 1
        elif depth == 0:
            texts.add(text)
    return texts


def _split_at(tokens: list[_Token], kinds: frozenset[str]) -> list[list[_Token]]:
    """Split at top-level tokens whose text is in ``kinds``; each separator starts a piece.

    A separator that already starts ``tokens`` (an operator leading its line) stays put.
    """
    first = next((index for index, token in enumerate(tokens) if token.kind != "space"), 0)
    pieces: list[list[_Token]] = [[]]
    piece = pieces[0]
    depth = 0
    for index, token in enumerate(tokens):
        kind = token.kind
        if kind == "close":
            depth -= 1
        elif kind == "open":
            depth += 1
        elif depth == 0 and token.text in kinds and index != first:
            piece = [token]
            pieces.append(piece)
            continue
        piece.append(token)
    return pieces


def _is_display(tokens: list[_Token], opening: int) -> bool:
    """Whether the bracket at ``opening`` starts a tuple, list, set or dict literal (not a call,
    a subscript or a parameter list, which follow a name or another bracket)."""
    before = [token for token in tokens[:opening] if token.kind != "space"]
    if not before:
        return True
    previous = before[-1]
    if previous.kind == "close":
        return False
    return not (previous.text.isidentifier() and not keyword.iskeyword(previous.text))


def _words(tokens: list[_Token]) -> list[int]:
    return [index for index, token in enumerate(tokens) if token.kind != "space"]


def _with_invisible_parentheses(tokens: list[_Token]) -> list[_Token]:
    """Parenthesise the expression of ``case X:``, ``return X``, ``name: X`` or ``name = X`` when
    ``X`` has top-level operators, so that it can be split at them (as Black and ruff do)."""
    words = _words(tokens)
    if not words:
        return tokens
    depths = _top_level(tokens)
    first = words[0]
    if tokens[first].text in {"case", "return"}:
        start = first + 1
    else:
        boundary = [i for i in words if depths[i] == 0 and tokens[i].text in {":", "="}]
        if not boundary:
            return tokens
        start = boundary[0] + 1
    end = words[-1] + 1
    if tokens[words[-1]].text in {":", ","} and words[-1] >= start:
        end = words[-1]
    default = [i for i in words if start <= i < end and depths[i] == 0 and tokens[i].text == "="]
    if default:
        end = default[0]  # ``name: A | B = None``: the annotation ends at its default
    while end > start and tokens[end - 1].kind == "space":
        end -= 1
    inside = [i for i in range(start, end) if depths[i] == 0 and tokens[i].text in _OPERATORS]
    if not inside or not _text(tokens[start:end]):
        return tokens
    return [
        *tokens[:start],
        _Token("space", " "),
        _Token("open", "("),
        *tokens[start:end],
        _Token("close", ")"),
        *tokens[end:],
    ]


class _Splitter:
    def __init__(self, width: int) -> None:
        self.width = width

    def fits(self, indent: str, text: str) -> bool:
        return len(indent) + len(text) <= self.width

    def lines(self, tokens: list[_Token], indent: str, *, in_brackets: bool) -> list[str]:
        """``tokens`` on one line if they fit, else split (inside brackets: at delimiters
        first, as Black does; then at brackets)."""
        if _fits(tokens, self.width - len(indent)):
            return [indent + _text(tokens)]
        top = _top_level_texts(tokens)  # no split at a delimiter the piece has not got
        delimiters = _DELIMITERS if in_brackets else ()
        for kinds in delimiters[:1]:
            if kinds & top:
                pieces = _split_at(tokens, kinds)
                if sum(1 for piece in pieces if _text(piece) not in {"", ","}) > 1:
                    return self.delimited(pieces, indent, comma=True)
        parenthesised = _with_invisible_parentheses(tokens) if _OPERATORS & top else tokens
        if parenthesised is not tokens:
            split = self.bracket_split(parenthesised, indent, in_brackets=in_brackets)
            if split is not None:
                return split
        for kinds in delimiters[1:]:
            if kinds & top:
                pieces = _split_at(tokens, kinds)
                if len(pieces) > 1:
                    return self.delimited(pieces, indent, comma=False)
        split = self.bracket_split(tokens, indent, in_brackets=in_brackets)
        return [indent + _text(tokens)] if split is None else split

    def delimited(self, pieces: list[list[_Token]], indent: str, *, comma: bool) -> list[str]:
        """One piece per line; commas end their piece (a trailing one is added), operators
        start theirs."""
        if comma:
            # The separator opens each later piece; move it to the end of the one before.
            pieces = [pieces[0], *(piece[1:] for piece in pieces[1:])]
            if not _text(pieces[-1]):
                pieces.pop()  # a trailing comma was there already
            pieces = [[*piece, _Token("comma", ",")] for piece in pieces]
        lines: list[str] = []
        for piece in pieces:
            lines += self.lines(piece, indent, in_brackets=True)
        return lines

    def bracket_split(
        self, tokens: list[_Token], indent: str, *, in_brackets: bool
    ) -> list[str] | None:
        pairs = _bracket_pairs(tokens)
        if not pairs:
            return None
        words = [token.text for token in tokens if token.kind != "space"]
        is_def = words[0] == "def" or words[:2] == ["async", "def"]
        # Black's "left-hand split": a definition breaks at its parameter (or base) list.
        left_hand = is_def or words[0] == "class"
        candidates = pairs[:1] if left_hand else list(reversed(pairs))
        opening, closing = candidates[0]
        for candidate_opening, candidate_closing in candidates:
            head = _text(tokens[: candidate_opening + 1])
            tail = _text(tokens[candidate_closing:])
            if self.fits(indent, head) and self.fits(indent, tail):
                opening, closing = candidate_opening, candidate_closing
                break
        body = tokens[opening + 1 : closing]
        items = _split_at(body, frozenset({","}))
        if is_def and opening == pairs[0][0] and len(items) == 1 and _text(body).strip():
            # Black gives a split parameter list without commas (one parameter) a trailing one.
            body = [*body, _Token("comma", ",")]
        if _is_display(tokens, opening) and sum(1 for item in items if _text(item) != ",") > 1:
            # A collection literal, once split from its brackets, has one item per line.
            body_lines = self.delimited(items, indent + _INDENT, comma=True)
        else:
            body_lines = self.lines(body, indent + _INDENT, in_brackets=True)
        return [
            *self.lines(tokens[: opening + 1], indent, in_brackets=in_brackets),
            *body_lines,
            *self.lines(tokens[closing:], indent, in_brackets=in_brackets),
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
        comment = tokens.pop().text if tokens and tokens[-1].kind == "comment" else None
        if not _text(tokens):  # a comment alone on its line: nothing to split
            output.append(line)
            continue
        lines = splitter.lines(tokens, indent, in_brackets=False)
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

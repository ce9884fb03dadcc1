"""Spec text in Markdown: the one place that decides how a string from a spec enters a docs page.

Every spec string goes through exactly one of these, chosen by what the page shows it as:

* :func:`code` - a code span showing the text exactly (names, values, types, guards, paths);
* :func:`literal` - plain text shown exactly (labels, metadata keys and values: in table cells
  and titles, where block syntax cannot start);
* :func:`prose` - a description: inline Markdown works (code spans, emphasis, links to http(s),
  mailto or relative targets), raw HTML and block syntax never do.

Each takes ``table``: a table cell holds no line break and no unescaped ``|``. Whatever the text,
no spec string can produce raw HTML, end a table row or a code span early, or open a block that
swallows the rest of the page; tests render pages with two real CommonMark renderers to check.
Every function is linear in the length of the text (no backtracking regular expressions).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from typing import Final

__all__ = ["code", "literal", "paragraph", "prose", "visible"]

#: The characters that mean something inline (code, emphasis, links, strike-through, table cells):
#: literal text escapes them with a backslash; other punctuation reads the same either way.
_INLINE_SYNTAX: Final = frozenset("\\`*_[]|~")
#: HTML's own characters become entities, so a page's source holds no ``<`` it did not write.
_ENTITIES: Final = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
#: Our own markup for a line break inside a table cell (the only HTML a page contains).
LINE_BREAK: Final = "<br>"
#: Link destinations prose may use: the web, mail, or a relative path.
_SAFE_SCHEME: Final = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{0,31}:")
#: Destinations longer than this are not checked, so not linked (keeps the scan linear).
_LONGEST_DESTINATION: Final = 2048
#: A line starting like this would open a heading, list, quote, fence, rule, setext underline or
#: link reference definition. Anchored and without nested repetition, so it runs in linear time.
_BLOCK_START = re.compile(
    r"#{1,6}(?:[ \t]|$)|[*+\-](?:[ \t]|$)|`{3}|~{3}|=+[ \t]*$|-+[ \t]*$"
    r"|[*_\-](?:[ \t]*[*_\-]){2,}[ \t]*$|[0-9]{1,9}[.)](?:[ \t]|$)|\[[^\]]*\]:"
)


def _visible(char: str) -> str:
    """A control character as text one can read (it would otherwise vanish or break a line)."""
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def _is_control(char: str) -> bool:
    """Characters that would vanish, act invisibly or break a line (tabs are ordinary text)."""
    return (
        char != "\t" and unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"} and char != "\u200d"
    )


def visible(text: str) -> str:
    """``text`` with its control characters written as escapes (``\\x00``): what a page shows."""
    return "".join(_visible(char) if _is_control(char) else char for char in text)


def code(text: str, *, table: bool = False) -> str:
    """A code span that shows ``text`` exactly, whatever backticks or spaces it holds."""
    text = visible(text)
    if not text:
        return ""
    if table and "\\|" in text:
        # A backslash before a pipe reads differently in GitHub's and CommonMark's tables
        # (escaped or not); shown as literal text instead, it reads the same in both.
        return literal(text, table=True)
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end when both ends have one: pad so that it strips
    # the padding, and so that a backtick at either end cannot join the fence.
    padded = (
        text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " " and text.strip())
    )
    body = f" {text} " if padded else text
    if table:
        body = body.replace("|", "\\|")  # GFM removes the backslash before reading the span
    return f"{fence}{body}{fence}"


def literal(text: str, *, table: bool = False) -> str:
    """``text`` as plain text shown exactly: every Markdown character is escaped."""
    return LINE_BREAK.join(_literal_line(line) for line in text.splitlines() or [""])


def _literal_line(line: str) -> str:
    out = []
    for index, char in enumerate(line):
        # Between two letters or digits ("validate_input") "_" cannot start emphasis.
        if (
            char == "_"
            and 0 < index < len(line) - 1
            and line[index - 1].isalnum()
            and line[index + 1].isalnum()
        ):
            out.append(char)
            continue
        if char in _ENTITIES:
            out.append(_ENTITIES[char])
        elif char in _INLINE_SYNTAX or _starts_autolink(line, index):
            out.append("\\" + char)
        elif _is_control(char):
            out.append(_visible(char).replace("\\", "\\\\"))
        else:
            out.append(char)
    return "".join(out)


def _starts_autolink(line: str, index: int) -> bool:
    """Whether the character at ``index`` lets GitHub-flavoured Markdown turn plain text into a
    link (``http://``, ``www.``, ``name@host``); escaped, the text stays exactly as written."""
    char = line[index]
    if char == ":":
        return line.startswith("//", index + 1)
    return char == "@" or (char == "." and line[max(index - 3, 0) : index].lower() == "www")


def prose(text: str, *, table: bool = False) -> str:
    """A description as inline Markdown: code spans, emphasis and safe links work; raw HTML,
    block syntax and (in a table) line breaks and cell separators are neutralised."""
    lines = [_prose_line(line.strip(), table=table) for line in text.strip().splitlines()]
    return LINE_BREAK.join(lines) if table else "\n".join(lines)


def paragraph(text: str) -> str:
    """A description as Markdown paragraphs of inline text (see :func:`prose`)."""
    return prose(text)


#: An escaped backtick: literal text to CommonMark. Written as an entity instead, it cannot be
#: read as the start of a code span by anyone (the scan below included).
_ESCAPED_BACKTICK = re.compile(r"(?<!\\)((?:\\\\)*)\\`")


def _prose_line(line: str, *, table: bool) -> str:
    line = _ESCAPED_BACKTICK.sub(lambda match: match.group(1) + "&#96;", line)
    out: list[str] = []
    position = 0
    for start, end, span in _code_spans(line):
        out.append(_prose_text(line[position:start], table=table))
        out.append(span.replace("|", "\\|") if table else span)
        position = end
    out.append(_prose_text(line[position:], table=table))
    escaped = "".join(out)
    block = _BLOCK_START.match(escaped)
    if block:
        # Escape the marker: its first character, or the "." / ")" after a list number.
        cut = len(escaped) - len(escaped.lstrip("0123456789"))
        escaped = escaped[:cut] + "\\" + escaped[cut:]
    return escaped


def _prose_text(text: str, *, table: bool) -> str:
    """Text outside code spans: no HTML, no unsafe link, no unescaped pipe in a table."""
    out: list[str] = []
    backslashes = 0
    for index, char in enumerate(text):
        if char == "<":
            out.append("&lt;")
        elif char == ">":
            out.append("&gt;")
        elif char == "|" and backslashes % 2 == 0:
            # Escaped in paragraphs too: lines of a description must not form a table.
            out.append("\\|")
        elif char == "]" and backslashes % 2 == 0 and _unsafe_destination(text, index + 1):
            out.append("\\]")  # no longer closes a link text: the destination stays plain text
        elif _is_control(char):
            out.append(_visible(char).replace("\\", "\\\\"))
        else:
            out.append(char)
        backslashes = backslashes + 1 if char == "\\" else 0
    return "".join(out)


def _unsafe_destination(text: str, start: int) -> bool:
    """Whether ``](`` at ``start`` opens a link destination that is not plainly safe.

    Safe: ``http://``, ``https://``, ``mailto:``, or a relative path, fragment or query (no
    ``:`` before its first ``/``, ``?`` or ``#``). Anything with ``&`` or ``\\`` is unsafe too:
    CommonMark decodes entities and escapes in destinations (``&#106;avascript:``).
    """
    if not text.startswith("(", start):
        return False
    index = start + 1
    while index < len(text) and text[index] in " \t<":
        index += 1
    end = index
    limit = min(len(text), index + _LONGEST_DESTINATION)
    while end < limit and text[end] not in " \t)>":
        end += 1
    if end == limit and limit < len(text):
        return True  # too long to judge here (and to stay linear): not a link
    destination = text[index:end]
    if "&" in destination or "\\" in destination:
        return True
    scheme = _SCHEME.match(destination)
    if scheme is None:
        return False
    first_separator = min((destination.find(c) for c in "/?#" if c in destination), default=-1)
    if 0 <= first_separator < scheme.end():
        return False  # "docs/a:b.md": a relative path with a colon later on
    return scheme.group()[:-1].lower() not in _SAFE_SCHEME


def _code_spans(line: str) -> list[tuple[int, int, str]]:
    """``(start, end, text)`` of each code span in ``line``, as CommonMark finds them: a run of
    backticks is closed by the next run of the same length (else it is literal text)."""
    runs: list[tuple[int, int]] = []  # (start, length)
    index = 0
    while index < len(line):
        if line[index] == "`":
            start = index
            while index < len(line) and line[index] == "`":
                index += 1
            runs.append((start, index - start))
        else:
            index += 1
    by_length: dict[int, list[int]] = {}
    for number, (_, length) in enumerate(runs):
        by_length.setdefault(length, []).append(number)
    spans = []
    number = 0
    while number < len(runs):
        start, length = runs[number]
        candidates = by_length[length]
        later = bisect.bisect_right(candidates, number)
        if later == len(candidates):
            number += 1
            continue
        closing = candidates[later]
        end = runs[closing][0] + length
        spans.append((start, end, line[start:end]))
        number = closing + 1
    return spans

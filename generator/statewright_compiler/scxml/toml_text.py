"""TOML literals for text from outside: the only way imported text reaches a written spec.

Every string goes through :func:`toml_string` (a basic string with every quote, backslash and
control character escaped) and every key through :func:`toml_key`, so an SCXML id or log text
holding quotes, newlines or ``]]>`` can only ever be data, never TOML structure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["LINE_LENGTH", "inline_table", "toml_array", "toml_key", "toml_string"]

_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES: Final = {
    '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r",
}  # fmt: skip
#: Lines longer than this are broken where TOML allows (arrays; inline tables cannot be).
LINE_LENGTH: Final = 100


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    # TOML forbids raw control characters; escaping every non-printable one also keeps line
    # and paragraph separators from reaching editors as line breaks.
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def toml_string(text: str) -> str:
    """A one-line TOML basic string holding exactly ``text``."""
    return '"' + "".join(_escape(char) for char in text) + '"'


def toml_key(key: str) -> str:
    """A bare key where TOML allows one, else a quoted key."""
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def inline_table(items: Iterable[tuple[str, str]]) -> str:
    """``{ key = value, ... }`` from keys and values already rendered."""
    body = ", ".join(f"{toml_key(key)} = {value}" for key, value in items)
    return f"{{ {body} }}" if body else "{}"


def toml_array(items: Iterable[str], *, prefix: int | None = None, split: bool = False) -> str:
    """``[a, b]`` on one line, unless ``split`` or it would not fit after ``prefix`` characters
    (None: keep it on one line, as inside an inline table); else one item a line."""
    rendered = list(items)
    line = "[" + ", ".join(rendered) + "]"
    fits = prefix is None or prefix + len(line) <= LINE_LENGTH
    if len(rendered) < 2 or (fits and not split):
        return line
    body = "".join(f"  {item},\n" for item in rendered)
    return f"[\n{body}]"

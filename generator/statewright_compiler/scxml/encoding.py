"""Which encoding an SCXML file is in, and its text: every problem a diagnostic, never expat's.

expat decodes what it knows (UTF-8, UTF-16, ISO-8859-1, US-ASCII) and asks Python for the rest,
which fails with a raw ``LookupError`` or ``ValueError`` for an unknown name, a multi-byte
encoding or a codec that is not a character set, and silently reads a UTF-8 file that declares
ISO-8859-1 as mojibake. So the bytes are decoded here, as XML 1.0 says (appendix F): a byte
order mark, else the first bytes of a wide Unicode encoding, else the XML declaration's
``encoding``, else UTF-8; expat then parses text.

Read: Unicode (UTF-8, UTF-16, UTF-32) and the encodings that write ASCII as ASCII (ISO-8859-*,
windows-125*, KOI8-*, Shift_JIS, EUC-*, GB18030, Big5...), so that the declaration reads the same
in the bytes as in the text. Refused: an unknown name, UTF-7 and the stateful encodings (markup
could hide in shifted bytes), EBCDIC, and Python's codecs that are not character sets.
"""

from __future__ import annotations

import codecs
import re
from typing import Final

from statewright_compiler.diagnostics import Diagnostic, SpecError

__all__ = ["decode_xml"]

#: Byte order marks, UTF-32's before UTF-16's (``FF FE 00 00`` starts with ``FF FE``).
_MARKS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: A first ``<`` in a wide encoding without a byte order mark.
_WIDE_STARTS: Final = (
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00<", "utf-16-be"),
    (b"<\x00", "utf-16-le"),
)
#: What each encoding a file's first bytes show may be declared as (Python's names).
_DECLARABLE: Final = {
    "utf-8": frozenset({"utf-8", "utf-8-sig"}),
    "utf-16-le": frozenset({"utf-16", "utf-16-le"}),
    "utf-16-be": frozenset({"utf-16", "utf-16-be"}),
    "utf-32-le": frozenset({"utf-32", "utf-32-le"}),
    "utf-32-be": frozenset({"utf-32", "utf-32-be"}),
}
_WIDE: Final = frozenset({"utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"})
_SHOWN: Final = {
    "utf-8": "UTF-8",
    "utf-16-le": "UTF-16 (little-endian)",
    "utf-16-be": "UTF-16 (big-endian)",
    "utf-32-le": "UTF-32 (little-endian)",
    "utf-32-be": "UTF-32 (big-endian)",
}
#: Python codecs that read ASCII as ASCII yet are no character sets: escape sequences turn into
#: characters, or the text is a domain name.
_NOT_CHARACTER_SETS: Final = frozenset(
    {"unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined"}
)
_UNSUPPORTED: Final = (
    "encoding {name!r} is not supported: statewright reads Unicode (UTF-8, UTF-16, UTF-32) "
    "and encodings that write ASCII as ASCII"
)
_CONVERT: Final = 'save the file as UTF-8 and declare encoding="UTF-8" (or none)'
#: The XML declaration up to its encoding's value (XML 1.0, productions 23-24 and 80-81).
_DECLARATION: Final = re.compile(
    r"<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:\"[^\"<]*\"|'[^'<]*')"
    r"[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*[\"']([A-Za-z][A-Za-z0-9._-]{0,99})[\"']"
)


def decode_xml(data: bytes, shown: str) -> str:
    """The text of an XML file's bytes; an encoding problem raises :class:`SpecError`."""
    found, mark = _first_bytes(data)
    body = data[mark:]
    head = body[:1024].decode(found or "latin-1", errors="replace")
    declaration = _DECLARATION.match(head)
    declared = declaration.group(1) if declaration else None
    at = _position(head, declaration.start(1)) if declaration else (1, 1)
    shows = "as its byte order mark says" if mark else "as its first bytes show"
    mismatch = "correct the declaration, or save the file in the encoding it declares"
    encoding = found or "utf-8"
    if declared is not None:
        try:
            named = codecs.lookup(declared).name
        except LookupError:
            raise _refused(shown, at, f"unknown encoding {declared!r}", _CONVERT) from None
        if found is not None and named not in _DECLARABLE[found]:
            message = (
                f"the file is {_SHOWN[found]}, {shows}, but its XML declaration says "
                f"encoding {declared!r}"
            )
            raise _refused(shown, at, message, mismatch)
        if found is None and named in _WIDE:
            message = (
                f"the XML declaration says encoding {declared!r}, but the file is not: it has "
                "no byte order mark and its first characters are single bytes"
            )
            raise _refused(shown, at, message, mismatch)
        if found is None and not _writes_ascii_as_ascii(named):
            raise _refused(shown, at, _UNSUPPORTED.format(name=declared), _CONVERT)
        encoding = found or named
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as error:
        try:
            valid = body[: error.start].decode(encoding, errors="replace")
        except (ValueError, LookupError):  # a codec without "replace": count bytes instead
            valid = body[: error.start].decode("latin-1")
        bad = " ".join(f"{byte:#04x}" for byte in body[error.start : error.end][:4])
        if declared is not None:
            which = f"not {declared}, the encoding its XML declaration names"
        elif found is not None:
            which = f"not {_SHOWN[found].split(' (')[0]}, {shows}"
        else:
            which = "not UTF-8 (a file that declares no encoding is UTF-8)"
        message = f"bytes that are {which}: {bad} ({error.reason})"
        raise _refused(shown, _position(valid, len(valid)), message, _CONVERT) from None


def _refused(shown: str, at: tuple[int, int], message: str, hint: str) -> SpecError:
    return SpecError([Diagnostic("scxml-syntax", shown, at[0], at[1], message, hint)])


def _first_bytes(data: bytes) -> tuple[str | None, int]:
    """The encoding the first bytes show (None: an ASCII-compatible one, named by the
    declaration or UTF-8) and the length of the byte order mark (0: none)."""
    for mark, encoding in _MARKS:
        if data.startswith(mark):
            return encoding, len(mark)
    for start, encoding in _WIDE_STARTS:
        if data.startswith(start):
            return encoding, 0
    return None, 0


def _writes_ascii_as_ascii(encoding: str) -> bool:
    """Whether each ASCII byte decodes, alone, to itself: what reading the declaration from the
    bytes assumes. False for UTF-7 (``+`` shifts), stateful and EBCDIC encodings, and codecs
    that are not character sets (``base64`` cannot decode to text at all)."""
    if encoding in _NOT_CHARACTER_SETS:
        return False
    try:
        return all(bytes([byte]).decode(encoding) == chr(byte) for byte in range(0x80))
    except (ValueError, LookupError):  # UnicodeError is a ValueError ("undefined" raises it)
        return False


def _position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``text[offset]``; a line ends as XML says (CR LF, CR, LF)."""
    before = text[:offset].replace("\r\n", "\n").replace("\r", "\n")
    return before.count("\n") + 1, len(before) - before.rfind("\n")

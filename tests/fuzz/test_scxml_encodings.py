"""SCXML documents with hostile encodings: a diagnostic or a chart that imports, nothing else.

Each case takes one of the importer's valid charts (``tests/scxml/valid``) and writes it the
way a hostile or careless tool would: in an encoding chosen at random (Unicode with and without
a byte order mark, single-byte and multi-byte legacy encodings, UTF-7, EBCDIC, stateful ones),
under an XML declaration that names that encoding, another one, an alias, an unknown or
malformed name, or none; with a byte order mark that fits, one of another encoding, two, or
one in the middle; then with bytes corrupted: invalid sequences, encoded surrogates, a
character cut in half, a tail in another encoding, NUL bytes, the file cut at an odd length.
Then ``import_scxml`` must return diagnostics at real positions (line and column from 1) or a
spec, never raise; every spec it returns compiles.
"""

from __future__ import annotations

import codecs
import random
from pathlib import Path
from typing import Final

from statewright_compiler.check.validate import validate_source
from statewright_compiler.scxml.importer import import_scxml
from statewright_compiler.spec.load import parse_spec_text

from tests.conftest import REPO
from tests.fuzz import budget, seed

CHARTS: Final = sorted((REPO / "tests" / "scxml" / "valid").glob("*.scxml"))
#: (Python codec, names a declaration may give it)
ENCODINGS: Final = (
    ("utf-8", ("UTF-8", "utf8", "UTF-8-SIG")),
    ("utf-16-le", ("UTF-16", "UTF-16LE")),
    ("utf-16-be", ("UTF-16", "UTF-16BE")),
    ("utf-32-le", ("UTF-32", "UTF-32LE")),
    ("utf-32-be", ("UTF-32", "UTF-32BE")),
    ("latin-1", ("ISO-8859-1", "latin1", "l1")),
    ("cp1252", ("windows-1252",)),
    ("koi8-r", ("KOI8-R",)),
    ("shift_jis", ("Shift_JIS", "x-sjis")),
    ("euc-jp", ("EUC-JP",)),
    ("gb18030", ("GB18030",)),
    ("big5", ("Big5",)),
    ("utf-7", ("UTF-7",)),
    ("cp500", ("IBM500", "cp500")),
    ("iso2022_jp", ("ISO-2022-JP",)),
    ("hz", ("HZ-GB-2312",)),
    ("ascii", ("US-ASCII",)),
)
#: Names no encoding has, or that no declaration may hold.
BAD_NAMES: Final = (
    "no-such-encoding", "base64", "rot13", "zlib", "unicode_escape", "raw_unicode_escape",
    "idna", "punycode", "undefined", "x" * 200, "UTF_8\u00e9", "", " UTF-8", "UTF-8 ", "1UTF",
)  # fmt: skip
MARKS: Final = (
    codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
)  # fmt: skip
#: Byte sequences invalid in many encodings.
BAD_BYTES: Final = (
    b"\xff", b"\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\x00", b"\x1b$B",
    b"~{", b"+AGE", b"\x82", b"\xf4\x90\x80\x80", b"\xd8\x00", b"\x00\xd8",
)  # fmt: skip
#: Text the chart may carry, to exercise what each encoding cannot write.
WORDS: Final = ("café", "状態", "naïve€", "😀", "\u0394", "x", "\u200b", "\ufeff")


def declaration(name: str | None, quote: str) -> str:
    if name is None:
        return ""
    return f"<?xml version={quote}1.0{quote} encoding={quote}{name}{quote}?>\n"


def hostile_document(chooser: random.Random, text: str) -> bytes:
    """``text`` (an SCXML chart without a declaration) written in a hostile way."""
    word = chooser.choice(WORDS)
    text = text.replace("</scxml>", f"<!-- {word} --></scxml>", 1)
    codec, names = chooser.choice(ENCODINGS)
    kind = chooser.randrange(6)
    if kind == 0:
        name: str | None = None
    elif kind in (1, 2):
        name = chooser.choice(names)
    elif kind == 3:
        name = chooser.choice(chooser.choice(ENCODINGS)[1])  # another encoding's
    elif kind == 4:
        name = chooser.choice(BAD_NAMES)
    else:
        name = chooser.choice(names).lower()
    head = declaration(name, chooser.choice("\"'"))
    data = (head + text).encode(codec, errors=chooser.choice(["replace", "xmlcharrefreplace"]))
    if codec.startswith("utf-16") or codec.startswith("utf-32") or chooser.random() < 0.2:
        mark = chooser.random()
        if mark < 0.5:
            data = codecs.lookup(codec).encode("\ufeff")[0] + data if "utf" in codec else data
        elif mark < 0.7:
            data = chooser.choice(MARKS) + data
        elif mark < 0.8:
            data = chooser.choice(MARKS) + chooser.choice(MARKS) + data
    for _ in range(chooser.choice([0, 0, 1, 1, 2, 3])):
        data = corrupt(chooser, data)
    return data


def corrupt(chooser: random.Random, data: bytes) -> bytes:
    position = chooser.randrange(len(data) + 1)
    kind = chooser.randrange(6)
    if kind == 0:  # invalid bytes
        return data[:position] + chooser.choice(BAD_BYTES) + data[position:]
    if kind == 1:  # a byte flipped
        index = min(position, len(data) - 1)
        return data[:index] + bytes([data[index] ^ chooser.randrange(1, 256)]) + data[index + 1 :]
    if kind == 2:  # cut, maybe in the middle of a character
        return data[: max(position, 1)]
    if kind == 3:  # a tail in another encoding
        codec = chooser.choice(ENCODINGS)[0]
        tail = f"<!-- {chooser.choice(WORDS)} -->".encode(codec, errors="replace")
        return data[:position] + tail + data[position:]
    if kind == 4:  # a byte order mark in the middle
        return data[:position] + chooser.choice(MARKS) + data[position:]
    return data[:position] + b"\x00" * chooser.randint(1, 3) + data[position:]


def test_hostile_encodings_get_diagnostics_or_charts_that_compile(tmp_path: Path) -> None:
    chooser = random.Random(seed())
    texts = []
    for chart in CHARTS:
        text = chart.read_text(encoding="utf-8")
        texts.append(text.split("?>", 1)[1].lstrip() if text.startswith("<?xml") else text)
    imported = refused = 0
    path = tmp_path / "hostile.scxml"
    for case in range(budget()):
        data = hostile_document(chooser, chooser.choice(texts))
        path.write_bytes(data)
        where = f"seed {seed()}, case {case}: {data[:200]!r}"
        try:
            spec, diagnostics = import_scxml(path, "hostile.scxml")
        except Exception as error:  # pragma: no cover - what the fuzzer is looking for
            raise AssertionError(f"{where}: {type(error).__name__}: {error}") from error
        assert all(d.line >= 1 and d.column >= 1 for d in diagnostics), (where, diagnostics)
        if spec is None:
            assert any(d.is_error for d in diagnostics), where
            refused += 1
            continue
        imported += 1
        validate_source(parse_spec_text(spec.text, "hostile.toml"))
    # Both outcomes happen: the fuzzer is not only feeding the importer garbage.
    assert imported and refused, (imported, refused)

"""How ``import-scxml`` reads an SCXML file's bytes: every encoding problem is one
``scxml-syntax`` diagnostic at the bytes or the declaration at fault, never a traceback.

A file is read as XML 1.0 says (appendix F): a byte order mark, else the XML declaration's
``encoding``, else UTF-8. Unicode (UTF-8, UTF-16, UTF-32) and the encodings that write ASCII as
ASCII (ISO-8859-*, windows-125*, Shift_JIS, EUC-*, GB18030, Big5...) are read; UTF-7, EBCDIC
and Python's own codecs that are not character sets are refused, and so is an unknown name. A
byte order mark and a declaration that disagree, or bytes that are not the encoding in force,
are errors (silently reading ``café`` as ``cafÃ©`` is what this prevents).
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.spec.load import parse_spec_text
from statewright_compiler.spec.toml_compat import tomllib

from tests.conftest import run_cli

ROOT = '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">'
CHART = ROOT + '<state id="{name}"><transition event="go" target="{name}"/></state></scxml>\n'


def declaration(encoding: str) -> str:
    return f'<?xml version="1.0" encoding="{encoding}"?>\n'


def chart(name: str = "café", encoding: str | None = None) -> str:
    return (declaration(encoding) if encoding else "") + CHART.format(name=name)


def import_bytes(data: bytes, tmp_path: Path) -> tuple[int, str, str]:
    (tmp_path / "lamp.scxml").write_bytes(data)
    result = run_cli(["import-scxml", "lamp.scxml"], cwd=tmp_path)
    assert "Traceback" not in result.stderr
    return result.code, result.stdout, result.stderr


#: Files that import: (bytes, the state's id as SCXML names it).
READABLE = {
    "utf-8 without a declaration": (chart().encode("utf-8"), "café"),
    "utf-8 declared": (chart(encoding="UTF-8").encode("utf-8"), "café"),
    "utf-8 with a byte order mark": (codecs.BOM_UTF8 + chart().encode("utf-8"), "café"),
    "utf-8 with a mark and declared": (
        codecs.BOM_UTF8 + chart(encoding="utf-8").encode("utf-8"),
        "café",
    ),
    "utf-16 with a mark": (chart(encoding="UTF-16").encode("utf-16-le"), "café"),
    "utf-16 little-endian with a mark, no declaration": (
        codecs.BOM_UTF16_LE + chart().encode("utf-16-le"),
        "café",
    ),
    "utf-16 big-endian with a mark": (
        codecs.BOM_UTF16_BE + chart(encoding="UTF-16").encode("utf-16-be"),
        "café",
    ),
    "utf-16le declared, no mark": (chart(encoding="UTF-16LE").encode("utf-16-le"), "café"),
    "utf-16be declared, no mark": (chart(encoding="UTF-16BE").encode("utf-16-be"), "café"),
    "utf-32 with a mark": (
        codecs.BOM_UTF32_LE + chart(encoding="UTF-32").encode("utf-32-le"),
        "café",
    ),
    "iso-8859-1": (chart(encoding="ISO-8859-1").encode("latin-1"), "café"),
    "windows-1252": (chart("naïve€", encoding="windows-1252").encode("cp1252"), "naïve€"),
    "shift_jis": (chart("状態", encoding="Shift_JIS").encode("shift_jis"), "状態"),
    "euc-jp": (chart("状態", encoding="EUC-JP").encode("euc-jp"), "状態"),
    "gb18030": (chart("状态", encoding="GB18030").encode("gb18030"), "状态"),
    "us-ascii": (chart("cafe", encoding="US-ASCII").encode("ascii"), "cafe"),
}


@pytest.mark.parametrize("case", READABLE, ids=list(READABLE))
def test_readable_encodings_import_to_specs_that_compile(case: str, tmp_path: Path) -> None:
    data, name = READABLE[case]
    code, stdout, stderr = import_bytes(data, tmp_path)
    assert code == 0, stderr
    states = tomllib.loads(stdout)["states"]
    assert [state.get("value", key) for key, state in states.items()] == [name]
    validate_source(parse_spec_text(stdout, "lamp.toml"))


#: Files that do not: (bytes, the one diagnostic).
REFUSED = {
    "utf-7": (
        chart(encoding="UTF-7").encode("utf-7"),
        "lamp.scxml:1:31: error[scxml-syntax]: encoding 'UTF-7' is not supported: statewright "
        "reads Unicode (UTF-8, UTF-16, UTF-32) and encodings that write ASCII as ASCII",
    ),
    "shift_jis in utf-16": (
        chart("状態", encoding="Shift_JIS").encode("utf-16"),
        "lamp.scxml:1:31: error[scxml-syntax]: the file is UTF-16 (little-endian), as its byte "
        "order mark says, but its XML declaration says encoding 'Shift_JIS'",
    ),
    "unknown name": (
        chart(encoding="no-such-encoding").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: unknown encoding 'no-such-encoding'",
    ),
    "a codec that is not a character set": (
        chart(encoding="base64").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: encoding 'base64' is not supported: statewright "
        "reads Unicode (UTF-8, UTF-16, UTF-32) and encodings that write ASCII as ASCII",
    ),
    "python's escape codec": (
        chart(encoding="raw_unicode_escape").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: encoding 'raw_unicode_escape' is not supported: "
        "statewright reads Unicode (UTF-8, UTF-16, UTF-32) and encodings that write ASCII as "
        "ASCII",
    ),
    "a codec for domain names": (
        chart(encoding="idna").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: encoding 'idna' is not supported: statewright "
        "reads Unicode (UTF-8, UTF-16, UTF-32) and encodings that write ASCII as ASCII",
    ),
    "a codec that only fails": (
        chart(encoding="undefined").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: encoding 'undefined' is not supported: statewright "
        "reads Unicode (UTF-8, UTF-16, UTF-32) and encodings that write ASCII as ASCII",
    ),
    "ebcdic": (
        chart(encoding="cp500").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: encoding 'cp500' is not supported: statewright "
        "reads Unicode (UTF-8, UTF-16, UTF-32) and encodings that write ASCII as ASCII",
    ),
    "utf-8 mark, latin-1 declared": (
        codecs.BOM_UTF8 + chart(encoding="ISO-8859-1").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: the file is UTF-8, as its byte order mark says, "
        "but its XML declaration says encoding 'ISO-8859-1'",
    ),
    "utf-16 mark, utf-8 declared": (
        codecs.BOM_UTF16_BE + chart(encoding="UTF-8").encode("utf-16-be"),
        "lamp.scxml:1:31: error[scxml-syntax]: the file is UTF-16 (big-endian), as its byte "
        "order mark says, but its XML declaration says encoding 'UTF-8'",
    ),
    "utf-16 little-endian mark, big-endian declared": (
        codecs.BOM_UTF16_LE + chart(encoding="UTF-16BE").encode("utf-16-le"),
        "lamp.scxml:1:31: error[scxml-syntax]: the file is UTF-16 (little-endian), as its byte "
        "order mark says, but its XML declaration says encoding 'UTF-16BE'",
    ),
    "utf-16 declared, single bytes": (
        chart(encoding="UTF-16").encode("utf-8"),
        "lamp.scxml:1:31: error[scxml-syntax]: the XML declaration says encoding 'UTF-16', but "
        "the file is not: it has no byte order mark and its first characters are single bytes",
    ),
    "utf-16 without a mark, utf-8 declared": (
        chart(encoding="UTF-8").encode("utf-16-le"),
        "lamp.scxml:1:31: error[scxml-syntax]: the file is UTF-16 (little-endian), as its first "
        "bytes show, but its XML declaration says encoding 'UTF-8'",
    ),
    "latin-1 bytes, no declaration": (
        chart().encode("latin-1"),
        "lamp.scxml:1:76: error[scxml-syntax]: bytes that are not UTF-8 (a file that declares "
        "no encoding is UTF-8): 0xe9 (invalid continuation byte)",
    ),
    "latin-1 bytes, utf-8 declared": (
        chart(encoding="UTF-8").encode("latin-1"),
        "lamp.scxml:2:76: error[scxml-syntax]: bytes that are not UTF-8, the encoding its XML "
        "declaration names: 0xe9 (invalid continuation byte)",
    ),
    "mixed: utf-8 then latin-1": (
        chart().encode("utf-8") + "<!-- é -->\n".encode("latin-1"),
        "lamp.scxml:2:6: error[scxml-syntax]: bytes that are not UTF-8 (a file that declares "
        "no encoding is UTF-8): 0xe9 (invalid continuation byte)",
    ),
    "an encoded surrogate": (
        chart("x\udcff", encoding="UTF-8").encode("utf-8", "surrogatepass"),
        "lamp.scxml:2:74: error[scxml-syntax]: bytes that are not UTF-8, the encoding its XML "
        "declaration names: 0xed (invalid continuation byte)",
    ),
    "shift_jis cut in the middle of a character": (
        chart(encoding="Shift_JIS").encode("latin-1").replace(b"\xe9", b"\x82"),
        "lamp.scxml:2:76: error[scxml-syntax]: bytes that are not Shift_JIS, the encoding its "
        "XML declaration names: 0x82 (illegal multibyte sequence)",
    ),
    "utf-16 with an odd number of bytes": (
        chart(encoding="UTF-16").encode("utf-16") + b"\x0a",
        "lamp.scxml:3:1: error[scxml-syntax]: bytes that are not UTF-16, the encoding its XML "
        "declaration names: 0x0a (truncated data)",
    ),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_encoding_problems_are_one_diagnostic(case: str, tmp_path: Path) -> None:
    data, expected = REFUSED[case]
    code, stdout, stderr = import_bytes(data, tmp_path)
    assert code == 1
    assert stdout == ""
    assert [line for line in stderr.splitlines() if ": error[" in line] == [expected]

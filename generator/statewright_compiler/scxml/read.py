"""Reading an SCXML file into an element tree that remembers where each element is written.

``xml.etree`` forgets positions and ``xml.dom.minidom`` expands entities; expat tells us the line
and column of every element, and lets us refuse a document type declaration outright: SCXML
needs none, and a DTD is how an XML file declares the entities of a "billion laughs" bomb or
reaches for external files. Hostile input fails here with a diagnostic, never a traceback, and
within the same size limit as a spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from xml.parsers import expat

from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.scxml.encoding import decode_xml
from statewright_compiler.spec.limits import MAX_SPEC_BYTES

__all__ = ["MAX_XML_DEPTH", "SCXML_NAMESPACE", "Element", "parse_xml", "read_xml"]

SCXML_NAMESPACE: Final = "http://www.w3.org/2005/07/scxml"
#: Elements inside one another: far deeper than any chart, and well inside Python's recursion
#: limit for the passes that walk the tree.
MAX_XML_DEPTH: Final = 100
#: expat reports namespaced names as ``uri<separator>local``; a space cannot occur in either.
_SEPARATOR: Final = " "


@dataclass(frozen=True)
class Element:
    """One XML element: its namespace (``""`` when none), local name, attributes in document
    order (namespaced ones as ``{uri}local``), child elements, the non-blank text directly
    inside it, and the 1-based line and column of its start tag (and of that text)."""

    namespace: str
    name: str
    attributes: tuple[tuple[str, str], ...]
    children: tuple[Element, ...]
    text: str
    line: int
    column: int
    text_line: int = 0
    text_column: int = 0

    def get(self, attribute: str) -> str | None:
        for name, value in self.attributes:
            if name == attribute:
                return value
        return None

    @property
    def tag(self) -> str:
        """How diagnostics name it: ``<state>``, or ``<{uri}thing>`` outside SCXML."""
        if self.namespace in ("", SCXML_NAMESPACE):
            return f"<{self.name}>"
        return f"<{{{self.namespace}}}{self.name}>"


@dataclass
class _Open:
    """An element whose end tag has not been read yet."""

    namespace: str
    name: str
    attributes: tuple[tuple[str, str], ...]
    line: int
    column: int
    children: list[Element] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    text_line: int = 0
    text_column: int = 0


class _Refused(Exception):
    """Raised from an expat handler to stop parsing with a diagnostic."""

    def __init__(self, code: str, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.code = code
        self.line = line
        self.column = column


def _split(name: str) -> tuple[str, str]:
    namespace, _, local = name.rpartition(_SEPARATOR)
    return namespace, local


def _attribute_name(name: str) -> str:
    namespace, local = _split(name)
    return f"{{{namespace}}}{local}" if namespace else local


class _TreeBuilder:
    """expat's handlers: a stack of open elements; the root once the document is read."""

    def __init__(self, parser: expat.XMLParserType) -> None:
        self.parser = parser
        self.stack: list[_Open] = []
        self.root: Element | None = None

    def position(self) -> tuple[int, int]:
        return self.parser.CurrentLineNumber, self.parser.CurrentColumnNumber + 1

    def refuse_doctype(self, *_: object) -> int:
        """Stops the parse (the return type is what expat's external entity handler has)."""
        line, column = self.position()
        raise _Refused(
            "scxml-syntax",
            "a document type declaration (<!DOCTYPE ...>) is not allowed: SCXML needs none, "
            "and it could declare entities that expand without bound",
            line,
            column,
        )

    def start(self, name: str, attributes: list[str]) -> None:
        line, column = self.position()
        if len(self.stack) >= MAX_XML_DEPTH:
            raise _Refused(
                "limit-exceeded",
                f"elements nest more than {MAX_XML_DEPTH} levels deep",
                line,
                column,
            )
        namespace, local = _split(name)
        pairs = tuple(
            (_attribute_name(attributes[index]), attributes[index + 1])
            for index in range(0, len(attributes), 2)
        )
        self.stack.append(_Open(namespace, local, pairs, line, column))

    def end(self, name: str) -> None:
        done = self.stack.pop()
        text = "".join(done.text).strip()
        element = Element(
            done.namespace,
            done.name,
            done.attributes,
            tuple(done.children),
            text,
            done.line,
            done.column,
            done.text_line if text else 0,
            done.text_column if text else 0,
        )
        if self.stack:
            self.stack[-1].children.append(element)
        else:
            self.root = element

    def characters(self, data: str) -> None:
        if not self.stack:
            return
        current = self.stack[-1]
        if not current.text_line and data.strip():
            line, column = self.position()
            # The position is where this chunk starts; point at its first non-blank character.
            leading = data[: len(data) - len(data.lstrip())]
            newlines = leading.count("\n")
            if newlines:
                line += newlines
                column = len(leading) - leading.rfind("\n")
            else:
                column += len(leading)
            current.text_line, current.text_column = line, column
        current.text.append(data)


def parse_xml(data: bytes, shown: str) -> Element:
    """The root element of ``data``; malformed or hostile XML raises :class:`SpecError`.

    The bytes are decoded first (:mod:`encoding`), so expat reads text as UTF-8 and ignores the
    declared encoding it could not have read."""
    text = decode_xml(data, shown)
    parser = expat.ParserCreate(namespace_separator=_SEPARATOR)
    # Unbuffered, so that each chunk of text is reported with the position where it starts.
    parser.buffer_text = False
    parser.ordered_attributes = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    builder = _TreeBuilder(parser)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.characters
    parser.StartDoctypeDeclHandler = builder.refuse_doctype
    # Without a DTD these cannot fire; refusing them too keeps the guarantee local.
    parser.EntityDeclHandler = builder.refuse_doctype
    parser.ExternalEntityRefHandler = builder.refuse_doctype
    try:
        parser.Parse(text, True)
    except _Refused as refused:
        raise SpecError(
            [Diagnostic(refused.code, shown, refused.line, refused.column, str(refused))]
        ) from None
    except expat.ExpatError as error:
        message = expat.ErrorString(error.code) if error.code else str(error)
        raise SpecError(
            [
                Diagnostic(
                    "scxml-syntax",
                    shown,
                    error.lineno,
                    error.offset + 1,
                    f"not well-formed XML: {message}",
                )
            ]
        ) from None
    assert builder.root is not None  # expat reports a document without a root element
    return builder.root


def read_xml(path: Path, shown: str) -> Element:
    """Read and parse ``path``, within the size limit of a spec file."""
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            message = f"the file has {size:,} bytes; SCXML input is limited to {MAX_SPEC_BYTES:,}"
            raise SpecError([Diagnostic("limit-exceeded", shown, 1, 1, message)])
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        raise SpecError([Diagnostic("unreadable-file", shown, 1, 1, reason)]) from None
    return parse_xml(data, shown)

"""Reading ``<invoke>``: the child chart a state runs while it is active, and how it is started.

The child is SCXML's own kind of session (``type`` absent, ``scxml``, or the URI
``http://www.w3.org/TR/scxml/``), written inline (``<content><scxml>``) or in the file ``src``
names, relative to the chart (``file:sub.scxml`` or ``sub.scxml``): each becomes its own spec,
which the parent's spec invokes by module. What is computed when the invoke runs (``srcexpr``,
``typeexpr`` and ``<content expr>``, unless a constant says what they say) cannot be translated:
a spec's child machines are modules the compiler knows, never a chart found at run time. A
``src`` that is no relative file (a URL) is refused for the same reason, and so is a chain of
files that comes back to a chart it started from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from statewright_compiler.diagnostics import SpecError
from statewright_compiler.scxml.content import ElementReader
from statewright_compiler.scxml.document import Document, Invoke, Step
from statewright_compiler.scxml.read import Element, read_xml

__all__ = ["SCXML_TYPES", "InvokeElements"]

#: The ``type`` of an SCXML child session, as SCXML and the W3C tests spell it.
SCXML_TYPES: Final = frozenset(
    {"scxml", "http://www.w3.org/TR/scxml/", "http://www.w3.org/TR/scxml"}
)
_RUN_TIME: Final = (
    "a spec's child machines are modules the compiler knows, not charts found at run time"
)


class InvokeElements(ElementReader):
    """``<invoke>`` elements; the reader of a whole chart gives :attr:`child_document`."""

    #: Where ``src`` files are looked up (the chart's folder; None: a chart without a file).
    base: Path | None
    #: The files of the charts that lead here (a ``src`` back to one of them is a cycle).
    chain: tuple[Path, ...]
    #: Reads a child chart: its root element, how diagnostics name it, its folder and chain.
    child_document: Callable[[Element, str, Path | None, tuple[Path, ...]], Document | None]

    def invoke(self, element: Element) -> Invoke | None:
        self.check(element)
        kind = element.get("type")
        for computed, constant in (("typeexpr", "type"), ("srcexpr", "src")):
            text = element.get(computed)
            if text is None:
                continue
            value = self.literal(text)
            if value is None or element.get(constant) is not None:
                self.unsupported(element, f"<invoke {computed}={text!r}>", _RUN_TIME)
                return None
            if computed == "typeexpr":
                kind = value
        if kind is not None and kind not in SCXML_TYPES:
            why = "statewright's child machines are SCXML sessions (type scxml)"
            self.unsupported(element, f"<invoke type={kind!r}>", why)
            return None
        invoke_id, location = element.get("id"), element.get("idlocation")
        if invoke_id is not None and location is not None:
            self.report("scxml-invalid", element, "<invoke> has both id and idlocation")
        if invoke_id is not None and not invoke_id.isidentifier():
            why = "an invoke id is a name: ASCII letters, digits and '_'"
            self.unsupported(element, f"<invoke id={invoke_id!r}>", why)
            return None
        autoforward = element.get("autoforward") or "false"
        if autoforward not in ("true", "false"):
            self.report("scxml-invalid", element, f"<invoke> has autoforward={autoforward!r}")
        src = element.get("src")
        if src is None and element.get("srcexpr") is not None:
            src = self.literal(element.get("srcexpr") or "")
        params, finalize, contents = self.invoke_children(element)
        namelist = tuple((element.get("namelist") or "").split())
        if params and namelist:
            self.report("scxml-invalid", element, "<invoke> has both namelist and <param>")
        if (src is None) == (len(contents) != 1):
            self.report("scxml-invalid", element, "<invoke> needs exactly one of src and <content>")
            return None
        found = self.src_chart(element, src) if src is not None else contents[0]
        if found is None:
            return None
        chart, shown = found
        return Invoke(
            chart,
            invoke_id,
            location,
            params,
            namelist,
            autoforward == "true",
            tuple(finalize),
            src,
            shown,
            element.line,
            element.column,
        )

    def invoke_children(
        self, element: Element
    ) -> tuple[tuple[tuple[str, str], ...], Sequence[Step], list[tuple[Document, str] | None]]:
        """The ``<param>`` pairs, the ``<finalize>`` steps and, per ``<content>``, its child
        chart (None: reported)."""
        params: list[tuple[str, str]] = []
        finalize: list[Step] = []
        contents: list[tuple[Document, str] | None] = []
        for child in element.children:
            if not self.is_scxml(child) or child.name not in ("param", "finalize", "content"):
                self.refuse(child, element)
            elif child.name == "finalize":
                self.check(child)
                finalize += self.content(child)
            elif child.name == "param":
                param = self.param(child)
                params += [param] if param is not None else []
            else:
                contents.append(self.inline_chart(child))
        return tuple(params), finalize, contents

    def inline_chart(self, element: Element) -> tuple[Document, str] | None:
        self.check(element)
        if element.get("expr") is not None:
            text = element.get("expr")
            self.unsupported(element, f"<content expr={text!r}> in <invoke>", _RUN_TIME)
            return None
        charts = [child for child in element.children if self.is_scxml(child)]
        if len(charts) != 1 or charts[0].name != "scxml" or len(element.children) != 1:
            self.report("scxml-invalid", element, "the <content> of an <invoke> is one <scxml>")
            return None
        document = self.child_document(charts[0], self.shown, self.base, self.chain)
        return (document, self.shown) if document is not None else None

    def src_chart(self, element: Element, src: str) -> tuple[Document, str] | None:
        """The chart in the file ``src`` names, relative to this chart's."""
        name = src.removeprefix("file:")
        if ":" in name or self.base is None or Path(name).is_absolute():
            why = "a child chart is a file beside the chart (src='file:sub.scxml')"
            self.unsupported(element, f"<invoke src={src!r}>", why)
            return None
        path = (self.base / name).resolve()
        if path in self.chain:
            why = "the charts invoke each other in a cycle, and each child becomes its own module"
            self.unsupported(element, f"<invoke src={src!r}>", why)
            return None
        shown = (Path(self.shown).parent / name).as_posix()
        if not path.is_file():
            self.report("scxml-invalid", element, f"<invoke src={src!r}> names no file: {shown}")
            return None
        try:
            root = read_xml(path, shown)
        except SpecError as error:
            self.diagnostics += error.diagnostics
            return None
        document = self.child_document(root, shown, path.parent, (*self.chain, path))
        return (document, shown) if document is not None else None

"""The formats ``statewright diagram`` writes, and the one a file name asks for.

Text formats come from the renderers (Mermaid, DOT); image formats are DOT laid out by Graphviz.
A file's extension names its format, so ``-o door.svg`` gets SVG without ``--format``; an
extension that names none is for the caller to refuse, never a Mermaid text under another name.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Final

from statewright_compiler.diagrams.graphviz import IMAGE_FORMATS, render_dot, render_image
from statewright_compiler.diagrams.mermaid import render_mermaid
from statewright_compiler.model import Machine

__all__ = ["DIAGRAM_FORMATS", "FORMAT_BY_EXTENSION", "format_for_path", "render_diagram"]

#: Every format, the default (for standard output) first.
DIAGRAM_FORMATS: Final = ("mermaid", "dot", *sorted(IMAGE_FORMATS))

#: Lower-case file extension -> format.
FORMAT_BY_EXTENSION: Final = {
    ".mmd": "mermaid",
    ".mermaid": "mermaid",
    ".dot": "dot",
    ".gv": "dot",
    **{f".{image}": image for image in sorted(IMAGE_FORMATS)},
}


def format_for_path(path: PurePath) -> str | None:
    """The format ``path``'s extension names (any case), or None."""
    return FORMAT_BY_EXTENSION.get(path.suffix.lower())


def render_diagram(machine: Machine, diagram_format: str, *, expand_wildcards: bool) -> bytes:
    """``machine`` drawn in ``diagram_format``; :class:`DiagramError` when Graphviz is missing
    or fails on it (image formats only)."""
    if diagram_format == "mermaid":
        return render_mermaid(machine, expand_wildcards=expand_wildcards).encode()
    dot = render_dot(machine, expand_wildcards=expand_wildcards)
    return dot.encode() if diagram_format == "dot" else render_image(dot, diagram_format)

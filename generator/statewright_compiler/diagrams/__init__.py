"""Mermaid (``stateDiagram-v2``) and Graphviz (DOT) diagrams of a compiled :class:`Machine`.

A model, then renderers that read only the model: :mod:`model` is the renderer-neutral graph
(nodes, edges, nesting), :mod:`build` builds it from a flat machine and :mod:`build_chart` from
a statechart, and :mod:`mermaid` and :mod:`graphviz` render it, each with its own escaping, so
the two pictures cannot disagree; :mod:`formats` picks a renderer by format or file name. This
package is their public face: callers import from here, so the split can change without breaking
them (the modules are small and stdlib-only).
"""

from __future__ import annotations

from statewright_compiler.diagrams.build import build_diagram, diagram_graph
from statewright_compiler.diagrams.formats import (
    DIAGRAM_FORMATS,
    FORMAT_BY_EXTENSION,
    format_for_path,
    render_diagram,
)
from statewright_compiler.diagrams.graphviz import (
    IMAGE_FORMATS,
    DiagramError,
    DiagramRenderError,
    DiagramToolMissing,
    dot_text,
    render_dot,
    render_image,
)
from statewright_compiler.diagrams.mermaid import mermaid_text, render_mermaid
from statewright_compiler.diagrams.model import (
    DEFAULT_EVENT,
    ERROR_EVENT,
    INITIAL_KEY,
    Diagram,
    DiagramEdge,
    DiagramGraph,
    DiagramNode,
    EdgeStyle,
    NodeStyle,
    selector_key,
)

__all__ = [
    "DEFAULT_EVENT",
    "DIAGRAM_FORMATS",
    "ERROR_EVENT",
    "FORMAT_BY_EXTENSION",
    "IMAGE_FORMATS",
    "INITIAL_KEY",
    "Diagram",
    "DiagramEdge",
    "DiagramError",
    "DiagramGraph",
    "DiagramNode",
    "DiagramRenderError",
    "DiagramToolMissing",
    "EdgeStyle",
    "NodeStyle",
    "build_diagram",
    "diagram_graph",
    "dot_text",
    "format_for_path",
    "mermaid_text",
    "render_diagram",
    "render_dot",
    "render_image",
    "render_mermaid",
    "selector_key",
]

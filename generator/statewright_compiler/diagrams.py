"""Mermaid (``stateDiagram-v2``) and Graphviz (DOT) diagrams of a compiled :class:`Machine`.

The public face of the diagram modules, split by concern: :mod:`diagram_model` (the
renderer-neutral graph), :mod:`diagram_build` and :mod:`chart_diagram` (building it from the model,
for flat machines and statecharts), :mod:`mermaid` and :mod:`graphviz` (one renderer each, with
its own escaping). Callers import from here, so the split can change without breaking them.
"""

from __future__ import annotations

from statewright_compiler.diagram_build import build_diagram, diagram_graph
from statewright_compiler.diagram_model import (
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
from statewright_compiler.graphviz import (
    IMAGE_FORMATS,
    DiagramError,
    DiagramRenderError,
    DiagramToolMissing,
    dot_text,
    render_dot,
    render_image,
)
from statewright_compiler.mermaid import mermaid_text, render_mermaid

__all__ = [
    "DEFAULT_EVENT",
    "ERROR_EVENT",
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
    "mermaid_text",
    "render_dot",
    "render_image",
    "render_mermaid",
    "selector_key",
]

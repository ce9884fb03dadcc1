"""The one Jinja environment of every artifact (module, docs page, diagrams, starter spec),
made once per process.

Strict (an undefined name is an error) and whitespace-exact; it does not autoescape: what a
template prints is escaped in Python before, per output language (Python literals, Markdown,
Mermaid, DOT).
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

__all__ = ["template_environment"]

_TEMPLATES = Path(__file__).parent.parent / "templates"


@functools.cache
def template_environment() -> jinja2.Environment:
    """The Jinja environment: strict, whitespace-exact, no autoescape."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )

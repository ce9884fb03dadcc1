"""The Jinja environment of the human-facing artifacts: docs pages and diagrams.

Separate from :func:`render.template_environment` (the generated module's) because these
templates print text escaped per output language in Python, never Python source; both are strict
and whitespace-exact, and neither autoescapes (escaping is done, per language, before printing).
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

__all__ = ["template_environment"]

_TEMPLATES = Path(__file__).parent / "templates"


@functools.cache
def template_environment() -> jinja2.Environment:
    """The Jinja environment for docs and diagrams: strict, whitespace-exact, no autoescape."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )

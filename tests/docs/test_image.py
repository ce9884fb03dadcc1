"""render_image: Graphviz output, and clear errors instead of tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from statewright_compiler.diagrams import (
    DiagramError,
    DiagramRenderError,
    DiagramToolMissing,
    render_dot,
    render_image,
)

from tests.docs.sample_machines import door, nasty
from tests.docs.tools import dot_executable


@pytest.mark.slow
def test_svg_and_png() -> None:
    dot_executable()
    svg = render_image(render_dot(nasty()), "svg")
    assert b"<svg" in svg and "审批中".encode() in svg
    assert render_image(render_dot(door()), "png").startswith(b"\x89PNG\r\n\x1a\n")


def test_missing_dot_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(DiagramToolMissing, match=r"install Graphviz: apt-get install graphviz"):
        render_image(render_dot(door()), "svg")


def test_unknown_format_is_rejected_before_running_anything() -> None:
    with pytest.raises(DiagramError, match=r"unknown image format 'gif'"):
        render_image("digraph {}", "gif")


def test_dot_failure_reports_graphviz_message() -> None:
    dot_executable()
    with pytest.raises(DiagramRenderError, match=r"dot -Tsvg failed \(exit 1\): .*syntax error"):
        render_image("digraph { a -> }", "svg")

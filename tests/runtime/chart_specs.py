"""Compile a chart spec written in a test into an imported module (in-process, no files kept
beyond ``tmp_path``)."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Final

from statewright_compiler.check.validate import compile_spec
from statewright_compiler.pipeline import module_source

__all__ = ["PARALLEL_CHART", "compile_chart"]

#: The chart of issue #22's chart-event target (bench/bench_chart_send.py times it, the chart
#: plan tests run it): depth 4, a two-region parallel state and deep history; a ``{name}`` to
#: format in.
PARALLEL_CHART: Final = """\
[machine]
name = "{name}"
initial = "app"

[events]
START = {{}}
FETCHED = {{}}
DONE = {{}}
WARN = {{}}
RECOVER = {{}}
PAUSE = {{}}
RESUME = {{}}

[states.app]
initial = "running"

[states.running]
parent = "app"
kind = "parallel"
on.PAUSE = "paused"

[states.worker]
parent = "running"
initial = "idle"

[states.idle]
parent = "worker"
on.START = "fetching"

[states.fetching]
parent = "worker"
on.FETCHED = "processing"

[states.processing]
parent = "worker"
on.DONE = "idle"

[states.monitor]
parent = "running"
initial = "ok"

[states.ok]
parent = "monitor"
on.WARN = "degraded"

[states.degraded]
parent = "monitor"
on.RECOVER = "ok"

[states.resume_point]
parent = "running"
kind = "history"
history = "deep"

[states.paused]
parent = "app"
on.RESUME = "resume_point"
"""


def compile_chart(tmp_path: Path, text: str, name: str = "chart") -> ModuleType:
    """Write ``text`` as ``<name>.toml``, compile it and import the generated module."""
    spec_path = tmp_path / f"{name}.toml"
    spec_path.write_text(textwrap.dedent(text), encoding="utf-8")
    machine, _ = compile_spec(spec_path)
    module_path = tmp_path / f"{name}.py"
    module_path.write_text(module_source(machine), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"{name}_{id(tmp_path)}", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module

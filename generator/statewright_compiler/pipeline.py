"""The whole pipeline for a set of specs: compile each, render every artifact, in memory.

Nothing is written here; :mod:`emit` writes only once every spec compiled, so an error in one
spec leaves every output file as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from statewright_compiler.check.validate import compile_spec
from statewright_compiler.codegen.formatter import format_source
from statewright_compiler.codegen.render import render_module
from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.emit import Artifact
from statewright_compiler.model import Machine
from statewright_compiler.model.invoke_cycles import handler_cuts

__all__ = ["BuildResult", "build", "display_path", "module_source"]


def display_path(path: Path, root: Path | None = None) -> str:
    """How a path is shown: relative to the project ``root`` when inside it (so generated headers
    do not depend on the working folder), else relative to the working folder when inside it,
    else as the user gave it: never a climb of ``../`` from the working folder to a file
    elsewhere."""
    absolute = path.resolve()
    for base in (root, Path.cwd()):
        if base is not None and absolute.is_relative_to(base.resolve()):
            return absolute.relative_to(base.resolve()).as_posix()
    return path.as_posix()


def module_source(machine: Machine, cut: frozenset[tuple[str, str]] = frozenset()) -> str:
    """The generated module for ``machine``: rendered, then laid out (steps 4 and 5)."""
    return format_source(render_module(machine, cut))


@dataclass
class BuildResult:
    machines: list[Machine] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(diagnostic.is_error for diagnostic in self.diagnostics)


def build(specs: Sequence[Path], output: Path, docs: Path | None, root: Path) -> BuildResult:
    """Compile ``specs`` and render their modules (and docs pages when ``docs`` is set)."""
    result = BuildResult()
    modules: dict[str, str] = {}
    for spec in specs:
        shown = display_path(spec, root)
        try:
            machine, warnings = compile_spec(spec, shown)
        except SpecError as error:
            result.diagnostics += error.diagnostics
            continue
        result.diagnostics += warnings
        if machine.module_name in modules:
            result.diagnostics.append(
                Diagnostic(
                    "name-collision",
                    shown,
                    1,
                    1,
                    f"generates module {machine.module_name!r}, "
                    f"as {modules[machine.module_name]} does",
                    "set machine.module in one of them",
                )
            )
            continue
        modules[machine.module_name] = shown
        result.machines.append(machine)
    cuts = handler_cuts(result.machines)
    for machine in result.machines:
        module_path = output / f"{machine.module_name}.py"
        source = module_source(machine, cuts[machine.module_name])
        result.artifacts.append(Artifact(module_path, source))
        if docs is not None:
            from statewright_compiler.docs.page import render_markdown

            page = docs / f"{machine.module_name}.md"
            result.artifacts.append(Artifact(page, render_markdown(machine)))
    return result

"""The code's shape, as a test (read with :mod:`ast`, nothing imported):

* no import cycle among the modules of the compiler or of the runtime, counting every import: at
  the top of a module, inside a function (a lazy import) and under ``if TYPE_CHECKING:``;
* no module over 400 lines in ``generator/`` or ``runtime/``;
* the runtime never imports the compiler, and only ``statewright_compiler.mcp_server`` imports
  the MCP SDK;
* the runtime's lazy-name table (``_LAZY`` in ``statewright/__init__.py``, what PEP 562's
  ``__getattr__`` imports on first use) names exactly the names, and the modules, that its
  ``TYPE_CHECKING`` imports give type checkers: one list, checked against the other.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

#: Each package and its folder.
PACKAGES = {
    "statewright": REPO / "runtime" / "statewright",
    "statewright_compiler": REPO / "generator" / "statewright_compiler",
}
MAX_LINES = 400
#: On one pytest-xdist worker: the tests walk the same import graphs, each module parsed once.
pytestmark = pytest.mark.xdist_group("structure")


def modules(package: str) -> dict[str, Path]:
    """Every module of ``package`` by dotted name (a package by its own name)."""
    root = PACKAGES[package]
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path) -> Iterator[str]:
    """Every module name ``path`` (module ``name``) imports, wherever the statement is."""
    return iter(_imported(name, path))


@functools.cache
def _imported(name: str, path: Path) -> tuple[str, ...]:
    """:func:`imported`, each module parsed once per process (several tests walk the same
    graphs)."""
    is_package = path.name == "__init__.py"
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            names.append(base)
            names += (f"{base}.{alias.name}" for alias in node.names)
    return tuple(names)


def graph(package: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports."""
    known = modules(package)
    return {
        name: {target for target in imported(name, path) if target in known and target != name}
        for name, path in known.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_cycle_lazy_and_type_only_imports_included(package: str) -> None:
    assert cycles(graph(package)) == []


def test_the_cycle_finder_sees_lazy_relative_and_type_only_imports(tmp_path: Path) -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    path = tmp_path / "module.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from statewright._a import A\n"
        "def f():\n    from statewright import _b\n    from . import _c\n"
        "    import statewright._d\n",
        encoding="utf-8",
    )
    found = set(imported("statewright._y", path))
    assert {"statewright._a", "statewright._b", "statewright._c", "statewright._d"} <= found


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_module_over_400_lines(package: str) -> None:
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in modules(package).items()
    }
    assert {name: size for name, size in sizes.items() if size > MAX_LINES} == {}


def test_the_runtime_never_imports_the_compiler() -> None:
    offending = {
        name: sorted(target for target in imported(name, path) if target.startswith("statewright_"))
        for name, path in modules("statewright").items()
    }
    assert {name: targets for name, targets in offending.items() if targets} == {}


def test_only_the_mcp_server_imports_the_mcp_sdk() -> None:
    """The runtime stays standard-library only, and the compiler needs the SDK for one command."""
    offending = {
        name: sorted(target for target in imported(name, path) if target.split(".")[0] in _SDK)
        for package in PACKAGES
        for name, path in modules(package).items()
        if not name.startswith("statewright_compiler.mcp_server")
    }
    assert {name: targets for name, targets in offending.items() if targets} == {}


#: The MCP SDK's top-level packages.
_SDK = {"mcp", "mcp_types"}


def _lazy_and_typed(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """``_LAZY`` (name -> module) and the ``TYPE_CHECKING`` imports (name -> module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lazy: dict[str, str] = {}
    typed: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name)):
            continue
        assert node.test.id == "TYPE_CHECKING"
        for statement in node.body:
            assert isinstance(statement, ast.ImportFrom) and statement.module is not None
            typed.update(
                {alias.asname or alias.name: statement.module for alias in statement.names}
            )
        for statement in node.orelse:
            if not isinstance(statement, ast.Assign):
                continue
            target = statement.targets[0]
            if isinstance(target, ast.Name) and target.id == "_LAZY":
                lazy = ast.literal_eval(statement.value)
    return lazy, typed


def test_the_lazy_name_table_is_the_typed_names() -> None:
    lazy, typed = _lazy_and_typed(PACKAGES["statewright"] / "__init__.py")
    assert lazy, "no _LAZY table found"
    assert lazy == typed

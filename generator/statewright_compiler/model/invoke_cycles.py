"""Invoke cycles among the machines compiled together, and where their handlers protocols break
them.

A parent's handlers protocol includes each child's (``<Child>InvokedHandlers``, the child's own
and its children's), because a child runs on its parent's handlers object. Two machines that
invoke each other, directly or through others, would so each inherit the other's protocol: a
cycle of base classes, which mypy rejects in both modules. Among the specs one ``generate``
compiles, the invoke graph is walked depth first (machines by module name, children in document
order) and each edge back to a machine still being walked is *cut*: that parent's protocol leaves
that child's out. What remains is a forest of protocols, so every module type-checks; the cost is
that a machine of a cycle does not demand, through the cut edge, the methods only the machines
behind it use (documented in spec-language.md). A child outside the build cannot be part of a
cycle the compiler sees; a machine invoking itself needs no cut (its protocol is already its own).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from statewright_compiler.model.invokes import ChildMachine
from statewright_compiler.model.machine import Machine

__all__ = ["handler_cuts"]

Node = tuple[str, str]  # (module, machine name)


def handler_cuts(machines: Sequence[Machine]) -> dict[str, frozenset[Node]]:
    """For each machine's module name, the children (module, name) its protocol leaves out."""
    nodes = {(machine.module_name, machine.name): machine for machine in machines}
    cuts: dict[str, set[Node]] = {machine.module_name: set() for machine in machines}
    done: set[Node] = set()
    walking: list[Node] = []

    def walk(node: Node) -> None:
        walking.append(node)
        for child, named in _children(nodes[node], nodes):
            if child == node or child in done:
                continue
            if child in walking:
                cuts[node[0]].add(named)
            else:
                walk(child)
        walking.pop()
        done.add(node)

    for node in sorted(nodes):
        if node not in done:
            walk(node)
    return {module: frozenset(cut) for module, cut in cuts.items()}


def _children(machine: Machine, nodes: Iterable[Node]) -> list[tuple[Node, Node]]:
    """The machines of this build ``machine`` invokes, in document order, each once: each as
    the build knows it and as the invoke names it."""
    known = list(nodes)
    found: dict[tuple[Node, Node], None] = {}
    for state in machine.states:
        for invoke in state.invokes:
            node = _node(invoke.machine, known)
            if node is not None:
                found[(node, (invoke.machine.module, invoke.machine.name))] = None
    return list(found)


def _node(child: ChildMachine, known: list[Node]) -> Node | None:
    """The build's machine ``child`` names: its module is the generated module's name, or ends
    with it (``generated.ping`` for ``ping``)."""
    for module, name in known:
        if name == child.name and (child.module == module or child.module.endswith(f".{module}")):
            return (module, name)
    return None

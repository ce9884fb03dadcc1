"""History defaults that lead back to themselves: entering such a state never ends.

Entering a history state with nothing remembered enters its default, and a history state without
a default enters its parent's initial. When those targets are history states again, and the chain
comes back to where it started (``initial = "hist"`` on the history's own parent, ``default =
"hist"`` on ``hist`` itself, two histories defaulting to each other), entering never ends: SCXML
gives such a chart no meaning, and every later pass that enters a state would recurse forever.

Only sibling history states can form such a loop: an ``initial`` or a ``default`` points inside
its state (or its parent), so any other step goes strictly deeper and cannot come back. The loop
is reported once, at the spec text that closes it.
"""

from __future__ import annotations

from statewright_compiler.check.chart_tree import ChartTree
from statewright_compiler.model import StateKind
from statewright_compiler.spec.reporter import Reporter

__all__ = ["check_default_cycles"]


def check_default_cycles(tree: ChartTree, reporter: Reporter) -> None:
    """One ``invalid-initial`` or ``invalid-history`` error per loop of history defaults."""
    reported: set[str] = set()
    for name in tree.order:
        if tree.kind(name) is not StateKind.HISTORY or name in reported:
            continue
        cycle = _cycle_through(tree, name)
        if cycle is not None:
            reported.update(cycle)
            _report(tree, reporter, cycle)


def _next_histories(tree: ChartTree, name: str) -> list[str]:
    """The history states entering ``name`` with nothing remembered enters directly."""
    return [
        target
        for target in tree.history_default(name)
        if target in tree.states and tree.kind(target) is StateKind.HISTORY
    ]


def _cycle_through(tree: ChartTree, start: str) -> list[str] | None:
    """The history states from ``start`` back to it (``start`` first), or None: no loop."""
    path = [start]
    seen = {start}
    pending = [iter(_next_histories(tree, start))]
    while pending:
        following = next(pending[-1], None)
        if following is None:
            pending.pop()
            path.pop()
        elif following == start:
            return path
        elif following not in seen:
            seen.add(following)
            path.append(following)
            pending.append(iter(_next_histories(tree, following)))
    return None


def _report(tree: ChartTree, reporter: Reporter, cycle: list[str]) -> None:
    without_default = [name for name in cycle if not tree.states[name].default]
    if without_default:
        # The loop goes through the parent's initial: that is the text to change.
        last = without_default[0]
        parent = tree.parent[last]
        assert parent is not None  # a history without a parent has no default to follow
        position = cycle.index(last) + 1
        cycle = cycle[position:] + cycle[:position]
        reporter.report(
            "invalid-initial",
            (*tree.states[parent].path, "initial"),
            f"initial state {cycle[0]!r} of {parent!r} is a history state whose default leads "
            f"back to it: entering {parent!r} never ends ({' -> '.join([*cycle, cycle[0]])})",
            f"a history state without a default enters its parent's initial: give {last!r} a "
            f"default, or make a state of {parent!r} the initial",
        )
        return
    first = cycle[0]
    reporter.report(
        "invalid-history",
        (*tree.states[first].path, "default"),
        f"history state {first!r} has a default that leads back to it: entering it with "
        f"nothing remembered never ends ({' -> '.join([*cycle, first])})",
        f"make the default a state of {tree.parent[first]!r}, not a history state",
    )

"""Where each step of a list is written, the steps nested in an ``if`` or a ``foreach`` too:
what the checks need to point a diagnostic at the step, however deep it is."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from statewright_compiler.model import ForeachStep, IfStep, KeyPath, Step

__all__ = ["steps_with_paths"]


def steps_with_paths(steps: Sequence[Step], path: KeyPath) -> Iterator[tuple[Step, KeyPath]]:
    """Each step of the list at ``path`` and each step nested in it, with its key path."""
    for index, step in enumerate(steps):
        here: KeyPath = (*path, index)
        yield step, here
        if isinstance(step, IfStep):
            for number, (_, branch) in enumerate(step.branches):
                where = (*here, "then") if number == 0 else (*here, "elif", number - 1, "then")
                yield from steps_with_paths(branch, where)
            yield from steps_with_paths(step.otherwise, (*here, "else"))
        elif isinstance(step, ForeachStep):
            yield from steps_with_paths(step.steps, (*here, "do"))

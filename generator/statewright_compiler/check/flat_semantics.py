"""The checks only a flat machine needs: deterministic alternatives per (state, event), error
handlers, and reachability from the one initial state. A mixin of the semantic pass's builder."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from statewright_compiler.diagnostics import Severity
from statewright_compiler.model import ErrorHandler, Event, SourceSelector, Transition
from statewright_compiler.spec.declarations import Declarations, RawRule, RawState
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import Reporter

__all__ = ["FlatChecks"]


class FlatChecks:
    """Needs ``declarations``, ``reporter``, ``states``, ``events``, ``error``, ``expand``,
    ``state_ref`` and ``is_final`` from the class it is mixed into."""

    declarations: Declarations
    reporter: Reporter
    states: Mapping[str, RawState]
    events: Mapping[str, Event]

    if TYPE_CHECKING:

        def error(
            self,
            code: str,
            path: KeyPath,
            message: str,
            hint: str | None = None,
            *,
            key: bool = False,
        ) -> None: ...

        def expand(
            self, selector: SourceSelector, path: KeyPath, *, key: bool
        ) -> tuple[str, ...]: ...

        def state_ref(self, name: str, path: KeyPath, what: str, *, key: bool = False) -> bool: ...

        @staticmethod
        def is_final(state: RawState) -> bool: ...

    def check_deterministic(
        self, source: str, event: str, alternatives: list[tuple[Transition, RawRule]]
    ) -> None:
        for position, (transition, raw) in enumerate(alternatives[:-1]):
            if transition.guard is None and not raw.unknown_keys:
                later_raw = alternatives[position + 1][1]
                self.error(
                    "nondeterminism",
                    later_raw.path,
                    f"{source!r} --{event}--> has an unguarded "
                    f"alternative at line {self.reporter.line(raw.path)} that is always taken, so "
                    "this alternative can never apply",
                    "add a guard to the earlier alternative, move the unguarded one last, or "
                    "exclude the state from a wildcard with 'except'",
                )
                return

    def error_handlers(self) -> tuple[ErrorHandler, ...]:
        handlers: list[ErrorHandler] = []
        covered: dict[str, KeyPath] = {}
        for raw in self.declarations.error_handlers:
            sources = self.expand(raw.source, (*raw.path, "from"), key=False)
            if not self.state_ref(raw.target, (*raw.path, "to"), "error handler target"):
                continue
            for source in sources:
                if source in covered:
                    self.error(
                        "nondeterminism",
                        raw.path,
                        f"state {source!r} already has an error "
                        f"handler (line {self.reporter.line(covered[source])})",
                        "exclude it with 'except'",
                        key=True,
                    )
                covered.setdefault(source, raw.path)
            handlers.append(
                ErrorHandler(
                    source=raw.source,
                    sources=sources,
                    target=raw.target,
                    actions=raw.actions,
                    description=raw.description,
                    line=self.reporter.line(raw.path),
                )
            )
        return tuple(handlers)

    def check_graph(
        self, initial: str, transitions: Sequence[Transition], handlers: Sequence[ErrorHandler]
    ) -> None:
        edges: dict[str, set[str]] = defaultdict(set)
        for transition in transitions:
            if not transition.returns_to_previous:
                edges[transition.source].add(transition.target)
        for handler in handlers:
            for source in handler.sources:
                edges[source].add(handler.target)
        reached, frontier = {initial}, [initial]
        while frontier:
            for target in edges[frontier.pop()] - reached:
                reached.add(target)
                frontier.append(target)
        has_way_out = {transition.source for transition in transitions}
        for name, state in self.states.items():
            if name not in reached:
                self.error(
                    "unreachable-state",
                    state.path,
                    f"state {name!r} cannot be reached from the initial state {initial!r}",
                    "add a transition into it or remove it",
                    key=True,
                )
            elif not self.is_final(state) and name not in has_way_out:
                self.reporter.report(
                    "dead-end-state",
                    state.path,
                    f"non-final state {name!r} has no transition out",
                    'add a transition or make it kind = "final"',
                    key=True,
                    severity=Severity.WARNING,
                )
        used = {transition.event for transition in transitions}
        for name in self.events:
            if name not in used:
                self.reporter.report(
                    "unused-event",
                    ("events", name),
                    f"event {name!r} is not used by any transition",
                    key=True,
                    severity=Severity.WARNING,
                )

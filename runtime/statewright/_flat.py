"""The flat engine: a flat machine's transitions off the trivial path (guards, actions, error
routes, PREVIOUS), as a generator a machine's driver answers (:mod:`statewright._engine`).

A trivial transition (no guard, no action, no checkpoint) never reaches this module: the machine
commits it inline from its fast row (:mod:`statewright._trivial`). Everything else goes through
:meth:`FlatEngine.step`, which decides which alternative is taken and runs its actions in the
documented order (guards in spec order, the first that passes wins; then exit actions of the
source, the alternative's actions, entry actions of the target; an action that raises takes the
source state's error route, if it has one). Nothing is committed here: the machine records the
:data:`~statewright._engine.Outcome` once every step succeeded.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any

from statewright._engine import ACTION, GUARD, Failure, Outcome, Request
from statewright._errors import ActionFailed, GuardFailed

if TYPE_CHECKING:
    from statewright._snapshot_decode import Decoded
    from statewright._table import CompiledAlt, Table

__all__ = ["FlatEngine"]

#: What a step returns: the outcome, or the reason the event was rejected ("" for none).
Decision = Generator[Request, Any, "Outcome | str"]


class FlatEngine:
    """A flat machine's table, walked for one event at a time."""

    __slots__ = ("table",)

    #: A flat machine's states invoke no child machines; it plans no statechart events.
    invoking = False
    planned = False

    def __init__(self, table: Table) -> None:
        self.table = table

    # -- what the machine asks of any engine -----------------------------------------------------
    def initial(
        self, clock: Callable[[], float], session: str = "", given: Mapping[str, Any] | None = None
    ) -> None:
        """A flat machine keeps no state beyond the machine's own ``state`` and ``previous``."""
        return None

    def start(self, working: None) -> Generator[Request, Any, None]:
        """Nothing to enter: the initial state has no entry actions that run at construction."""
        yield from ()  # a generator, like the statechart's start

    def step(
        self,
        state: Any,
        previous: Any,
        working: None,
        member: Any,
        payload: Mapping[str, Any],
        clock: Callable[[], float] | None,
        now: float | None = None,
        sent: Any = None,
    ) -> Decision:
        """Decide and run one event from ``state``; ``clock`` (None when nothing keeps the time)
        is read after the guards chose and before any action runs, so that a failing clock
        (:class:`~statewright.ClockError`) leaves nothing applied; ``now``, when given, is the
        event's time instead and ``sent`` the timer that fired it (a flat machine has no
        timers: the engines answer alike)."""
        plan = self.table.rows[state].get(member)
        if plan is None:
            return ""
        alt = yield from self._choose(state, member, plan[1], payload)
        if alt is None:
            return "no guard passed"
        target = previous if alt.target is None else alt.target
        if target is None:
            return "there is no previous state to return to"
        stamp = None if clock is None else clock() if now is None else now
        spec = self.table.spec
        error: str | None = None
        for step in (
            *spec.exit_actions.get(state, ()),
            *alt.actions,
            *spec.entry_actions.get(target, ()),
        ):
            result = yield (ACTION, step, payload)
            if isinstance(result, Failure):
                target, error = yield from self._route(state, member, step, result.error, payload)
                break
        return target, None, error, alt.checkpoint, stamp

    def can_take(
        self,
        state: Any,
        previous: Any,
        working: None,
        member: Any,
        payload: Mapping[str, Any],
    ) -> Generator[Request, Any, bool]:
        """Whether :meth:`step` would accept ``member`` now; evaluates guards only."""
        plan = self.table.rows[state].get(member)
        if plan is None:
            return False
        alt = yield from self._choose(state, member, plan[1], payload)
        return alt is not None and (alt.target is not None or previous is not None)

    def row(self, state: Any, working: None) -> dict[Any, Any]:
        """The fast row of ``state`` (the trivial transitions the machine commits inline)."""
        return self.table.fast_rows[state]

    def reported(self, working: None, default: Any) -> Any:
        return default

    def active(self, state: Any, working: None) -> frozenset[Any]:
        return frozenset((state,))

    def allowed(self, state: Any, working: None) -> frozenset[Any]:
        """Events with at least one alternative from ``state``; guards not evaluated."""
        return self.table.allowed[state]

    def finished(self, state: Any, working: None) -> bool:
        return state in self.table.spec.final_states

    def encode(self, working: None, saved_at: float) -> None:
        """Nothing beyond the machine's own fields goes into a flat machine's snapshot."""
        return None

    def decode(self, data: dict[str, Any], table: Table) -> Decoded:
        """A snapshot checked (the runtime's own is converted instead:
        statewright._snapshot_own)."""
        from statewright._snapshot_decode import decode

        return decode(data, table, None)

    def restored(self, decoded: None, clock: Callable[[], float], session: str = "") -> None:
        return None

    # -- the parts of a step ---------------------------------------------------------------------
    def _choose(
        self,
        state: Any,
        member: Any,
        alternatives: tuple[CompiledAlt, ...],
        payload: Mapping[str, Any],
    ) -> Generator[Request, Any, CompiledAlt | None]:
        arguments = (payload,)
        for alt in alternatives:
            if alt.guard is None:
                return alt
            passed = yield (GUARD, alt.guard, arguments)
            if isinstance(passed, Failure):
                raise GuardFailed(str(state), str(member), passed.error) from passed.error
            if passed:
                return alt
        return None

    def _route(
        self, state: Any, member: Any, step: str, error: Exception, payload: Mapping[str, Any]
    ) -> Generator[Request, Any, tuple[Any, str]]:
        """The source state's error route after ``step`` raised ``error``: its actions run and
        its target is taken; without a route (or when a route action fails too) the event fails
        with :class:`ActionFailed` and nothing is applied."""
        route = self.table.spec.error_routes.get(state)
        if route is None:
            raise ActionFailed(str(state), str(member), step, error) from error
        for route_step in route.actions:
            result = yield (ACTION, route_step, payload)
            if isinstance(result, Failure):
                raise ActionFailed(str(state), str(member), route_step, result.error) from error
        return route.target, f"{step}: {type(error).__name__}: {error}"

"""What a machine's engine is: the questions every engine answers (:class:`Engine`), how it
asks the machine driving it for user code and I/O (requests), and what it hands back
(:class:`Outcome`).

A machine holds an engine, built once per machine class: the flat one
(:class:`~statewright._flat.FlatEngine`) or the statechart one
(:class:`~statewright._chart_engine.ChartEngine`). Neither calls a guard, an action or a store
itself. Their steps are generators that *yield* a :data:`Request` (a guard to evaluate, an
action to run, a delay to compute, a line to log, a checkpoint to save, a child machine to
start) and receive the answer, a :class:`Failure` when the user's code raised. The synchronous
:class:`~statewright.Machine` and the asyncio :class:`~statewright.AsyncMachine` each have a
small driver that answers requests, calling or awaiting; everything else about an event is
written once.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol

__all__ = [
    "ACTION",
    "DELAY",
    "GUARD",
    "INVOKE",
    "LOG",
    "SAVE",
    "Engine",
    "Failure",
    "Outcome",
    "Request",
    "Steps",
]

#: ``(GUARD, guard, arguments)``: call ``guard(handlers, context, *arguments)``, send back its
#: truth (flat guards take the payload, statechart guards the payload and the active states).
GUARD: Final = "guard"
#: ``(ACTION, name, payload)``: call the handler ``name`` with the context and the payload.
ACTION: Final = "action"
#: ``(DELAY, name, payload)``: call the delay handler ``name``, send back its seconds.
DELAY: Final = "delay"
#: ``(LOG, label, text)``: log a spec's ``log`` step.
LOG: Final = "log"
#: ``(SAVE, store, payload)``: save a checkpoint (a failure is thrown back into the step).
SAVE: Final = "save"
#: ``(INVOKE, invoke, (invokeid, data, now))``: start the child machine an
#: :class:`~statewright._chart_spec.Invoke` describes, with initial ``data``, at the macrostep's
#: time ``now``; send back ``(child or None when it finished at once, the messages it sent its
#: parent)`` (:func:`statewright._tree.adopt`), or a :class:`Failure`.
INVOKE: Final = "invoke"

#: ``(kind, subject, argument)``, one of the kinds above.
Request = tuple[str, Any, Any]
Steps = Generator[Request, Any, None]


class Failure:
    """What the driver sends back when the guard or action it ran raised ``error``."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


#: What an accepted event does, as an engine decided it before anything is committed:
#: ``(target, working, error, checkpoint, stamp)``. ``target`` is the state the machine reports
#: afterwards (a statechart's first active leaf), ``working`` the statechart's new
#: :class:`~statewright._chart_state.ChartState` (None for a flat machine), ``error`` the text of
#: a failed action an error route replaced, ``checkpoint`` whether a transition taken asks for a
#: durable save, ``stamp`` the clock reading its history record and listeners get (None when
#: nothing keeps it). A plain tuple: one is built per event, and a class's ``__init__`` would
#: cost 2% of a statechart's event.
Outcome = tuple[Any, Any, "str | None", bool, "float | None"]

if TYPE_CHECKING:  # a type only: defining a Protocol class costs time at import
    from statewright._snapshot_decode import Decoded
    from statewright._table import Table

    class Engine(Protocol):
        """What a machine asks of its engine. ``state`` and ``previous`` are the machine's;
        ``working`` is the engine's own running state (a statechart's
        :class:`~statewright._chart_state.ChartState`, None for a flat machine), made by
        :meth:`initial` and replaced by each committed :class:`Outcome`. ``session`` is the
        instance id (a data model's ``_sessionid``), ``given`` its initial data (checked, by
        field name: :func:`~statewright._data_values.initial_data`); ``sent`` the timer whose
        event a step is (None for an event sent from outside). ``invoking``: whether the
        spec's states invoke child machines (a statechart's may); ``planned``: whether the
        machine's row is asked of :meth:`row` after each event (a statechart's may be)."""

        invoking: bool
        planned: bool

        def initial(
            self,
            clock: Callable[[], float],
            session: str = "",
            given: Mapping[str, Any] | None = None,
        ) -> Any: ...

        def start(self, working: Any) -> Generator[Request, Any, object]: ...

        def step(
            self,
            state: Any,
            previous: Any,
            working: Any,
            member: Any,
            payload: Mapping[str, Any],
            clock: Callable[[], float] | None,
            now: float | None = None,
            sent: Any = None,
        ) -> Generator[Request, Any, Outcome | str]: ...

        def can_take(
            self, state: Any, previous: Any, working: Any, member: Any, payload: Mapping[str, Any]
        ) -> Generator[Request, Any, bool]: ...

        def row(self, state: Any, working: Any) -> dict[Any, Any]: ...

        def reported(self, working: Any, default: Any) -> Any: ...

        def active(self, state: Any, working: Any) -> frozenset[Any]: ...

        def allowed(self, state: Any, working: Any) -> frozenset[Any]: ...

        def finished(self, state: Any, working: Any) -> bool: ...

        def encode(self, working: Any, saved_at: float) -> Any: ...

        def decode(self, data: dict[str, Any], table: Table) -> Decoded: ...

        def restored(self, decoded: Any, clock: Callable[[], float], session: str = "") -> Any: ...

"""State, listeners, logging and the bookkeeping of a transition, shared by :class:`Machine`
and :class:`AsyncMachine`.

Everything here either never calls user code or is the bookkeeping that runs after user code
succeeded (:meth:`MachineCore._commit`), so the sync and async flavours share one definition of
what a transition *records*; they differ only in how they call guards and actions.

Every generated module imports this module (through :class:`Machine`), so it imports nothing
costly. :class:`MachineOptions` and :class:`TransitionRecord` are dataclasses, and importing
dataclasses (with inspect, ast and dis) costs more than the rest of a generated module, so their
modules are imported on first use: the first machine constructed without options imports
:mod:`statewright._options` (:func:`_default_options`), the first history read or listener call
imports :mod:`statewright._history` (see :mod:`statewright._history_views`). Logging is imported
by the first machine constructed (:func:`statewright_logger`), inspect only when a listener
returns something. History, counters and statistics are read through
:class:`~statewright._history_views.HistoryViews`.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Awaitable, Collection, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar

from statewright._boundary import Boundary
from statewright._clock import checked_clock
from statewright._compat import StrEnum
from statewright._errors import (
    ActionFailed,
    ClockError,
    Conflict,
    InvalidTransition,
    StatewrightError,
    UnknownEvent,
)
from statewright._history_views import HistoryViews, record_type
from statewright._locks import NO_LOCK, Lock
from statewright._spec import ErrorRoute, MachineSpec
from statewright._table import CompiledAlt, Fast, Plan, Table, compile_spec

if TYPE_CHECKING:  # imported on first use at run time: see the module docstring
    import logging

    from statewright._history import Listener, RawRecord
    from statewright._options import MachineOptions

__all__ = ["MachineCore", "refuse_async_listeners"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")

#: Row installed while user code runs, so a re-entrant ``send`` falls into the slow path.
_BUSY_ROW: dict[Any, Fast] = {}
#: ``logging.INFO``, spelled out so that importing this module does not import logging.
_INFO: Final = 20
_DEBUG: Final = 10
#: The ``statewright`` logger and the default options, made by the first machine constructed.
_LOG: logging.Logger | None = None
_DEFAULT_OPTIONS: MachineOptions | None = None


class MachineCore(HistoryViews[S, E], Boundary[S, E], Generic[S, E, C]):
    """Holds one instance's state; subclasses add ``send`` in a sync or async flavour."""

    #: Set by each generated subclass.
    spec: ClassVar[MachineSpec[Any, Any]]
    _table_cache: ClassVar[Table | None] = None

    def __init__(
        self, context: C, handlers: object | None = None, *, options: MachineOptions | None = None
    ) -> None:
        table = type(self)._table()
        spec = table.spec
        opts = _default_options() if options is None else options
        self._spec_table = table
        self._context = context
        self._handlers = handlers
        self._calls = _bind_handlers(spec, handlers)
        self._options = opts
        self._logger = opts.logger if opts.logger is not None else statewright_logger()
        self._log_on = opts.log_transitions
        #: ``logging.Logger._cache`` maps level -> enabled and is cleared by logging whenever
        #: levels change; reading it is a third of an ``isEnabledFor`` call. ``False`` at INFO
        #: means "skip"; anything else falls through to :meth:`_announce`, which asks properly.
        self._log_cache: dict[int, bool] = _log_cache(self._logger, opts.log_transitions)
        #: A user-supplied clock is wrapped to enforce the clock rule (statewright._clock);
        #: ``time.time`` itself is kept, so the hot path pays nothing.
        self._clock = checked_clock(opts.clock)
        self._instance_id = opts.instance_id if opts.instance_id is not None else _random_id()
        self._state: S = spec.initial
        #: Fast entries of the current state; :data:`_BUSY_ROW` while user code runs or stale.
        self._fast: dict[Any, Fast] = table.fast_rows[spec.initial]
        self._prev: S | None = None
        self._counts = [0] * len(table.triples)
        self._history: deque[RawRecord] | None = None
        if opts.record_history and opts.history_limit != 0:
            self._history = deque(maxlen=opts.history_limit)
        self._listeners: list[Listener] = []
        self._revision = 0
        self._busy = False
        self._stale: Conflict | None = None
        #: Held while reading history/counters so a reader never sees a half-applied transition
        #: (the sync Machine sets its RLock here; asyncio tasks cannot interleave a plain read).
        self._read_lock: Lock = NO_LOCK

    # ----------------------------------------------------------------- class-level set-up

    @classmethod
    def _table(cls) -> Table:
        """The compiled table of ``cls.spec``, built on first use and cached on the class."""
        table = cls.__dict__.get("_table_cache")
        if table is None or table.spec is not cls.spec:
            try:
                spec = cls.spec
            except AttributeError:
                raise TypeError(
                    f"{cls.__name__} has no 'spec'; subclass Machine and set spec = <MachineSpec>"
                ) from None
            table = compile_spec(spec)
            cls._table_cache = table
        return table

    # ----------------------------------------------------------------- read-only views

    @property
    def state(self) -> S:
        """The current state."""
        return self._state

    @property
    def context(self) -> C:
        """The context object given at construction (or restored from a snapshot)."""
        return self._context

    @property
    def handlers(self) -> object | None:
        return self._handlers

    @property
    def options(self) -> MachineOptions:
        return self._options

    @property
    def instance_id(self) -> str:
        """Key of this instance in stores and registries."""
        return self._instance_id

    @property
    def revision(self) -> int:
        """Store revision this instance was last loaded from or saved as (0: never saved)."""
        return self._revision

    @property
    def previous_state(self) -> S | None:
        """The state before the current one was entered (self-transitions keep it)."""
        return self._prev

    @property
    def is_final(self) -> bool:
        return self._state in self._spec_table.spec.final_states

    def in_tag(self, tag: str) -> bool:
        """Whether the current state belongs to the spec's tag ``tag`` (KeyError if unknown)."""
        return self._state in self._spec_table.spec.tags[tag]

    def allowed_events(self) -> frozenset[E]:
        """Events with at least one alternative from the current state; guards not evaluated."""
        return self._spec_table.allowed[self._state]

    def is_in(self, states: S | Collection[S], /) -> bool:
        """Whether the machine is in ``states`` (a state, or a collection such as a ``TAG_``
        frozenset). A call is never narrowed by a type checker, unlike ``machine.state is X``,
        so it stays right after an event moved the machine."""
        if isinstance(states, StrEnum):
            return self._state is states
        return self._state in states

    # ----------------------------------------------------------------- listeners

    def add_listener(self, callback: Listener) -> None:
        """Call ``callback(record)`` after every applied transition (after any checkpoint).

        A listener that raises is logged and skipped; the transition stays applied.
        """
        self._listeners.append(callback)

    def remove_listener(self, callback: Listener) -> None:
        self._listeners.remove(callback)

    # ----------------------------------------------------------------- helpers for send

    def _resolve(self, event: object) -> tuple[E, Plan | None]:
        """Canonical event member and its plan in the current state (slow path only)."""
        table = self._spec_table
        event_type = table.spec.event_type
        if isinstance(event, event_type):
            member: Any = event
        elif isinstance(event, str) and not isinstance(event, Enum):  # a member of another
            # enum with the same value is no event of this machine, on any path
            member = table.events_by_value.get(event)
            if member is None:
                raise self._logged(
                    UnknownEvent(
                        str(self._state),
                        event,
                        self.allowed_events(),
                        f"{event!r} is not an event of {table.spec.name}",
                    )
                )
        else:
            raise self._logged(
                UnknownEvent(
                    str(self._state),
                    repr(event),
                    self.allowed_events(),
                    f"expected a {event_type.__name__} member or its string value",
                )
            )
        return member, table.rows[self._state].get(member)

    def _check_usable(self) -> None:
        if self._stale is not None:
            raise StatewrightError(
                f"machine {self._instance_id!r} is stale: its checkpoint lost a race "
                f"({self._stale}); load it again from the store"
            )
        if self._busy:
            raise StatewrightError(
                "send() was called re-entrantly from a guard or action of the same machine; "
                "return and send the next event afterwards"
            )

    def _enter_user_code(self) -> None:
        """From the first guard to the commit, re-entrant sends must take the checked path."""
        self._busy = True
        self._fast = _BUSY_ROW

    def _leave_user_code(self) -> None:
        self._busy = False
        if self._stale is None:
            self._fast = self._spec_table.fast_rows[self._state]

    def _route_or_raise(self, event: E, step: str, error: Exception) -> ErrorRoute[Any]:
        """The source state's error route, or raise :class:`ActionFailed` (nothing applied)."""
        route = self._spec_table.spec.error_routes.get(self._state)
        if route is None:
            raise ActionFailed(str(self._state), str(event), step, error) from error
        return route

    def _routed(self, event: E, error_text: str, target: S) -> S:
        # Seed tests match "taking error route to <state>": keep that wording stable.
        self._logger.warning(
            "%s %s: action failed in %s on %s (%s); taking error route to %s",
            self._spec_table.spec.name,
            self._instance_id,
            self._state,
            event,
            error_text,
            target,
        )
        return target

    def _reject(self, event: E, reason: str = "") -> InvalidTransition:
        """Build (and log at DEBUG) the rejection; the caller raises it."""
        state = self._state
        if not reason and state in self._spec_table.spec.final_states:
            reason = "the state is final"
        return self._logged(
            InvalidTransition(str(state), str(event), self.allowed_events(), reason)
        )

    def _logged(self, error: InvalidTransition) -> InvalidTransition:
        """Rejections are answers, not failures: DEBUG, and only when someone listens."""
        if self._log_cache.get(_DEBUG, True) and self._logger.isEnabledFor(_DEBUG):
            self._logger.debug(
                "%s %s: rejected: %s", self._spec_table.spec.name, self._instance_id, error
            )
        return error

    def _rejected_quietly(self, event: E) -> None:
        """A rejection nobody raises (``try_send``): logged like every rejection when DEBUG is
        enabled; otherwise nothing is built for it."""
        if self._log_cache.get(_DEBUG, True) and self._logger.isEnabledFor(_DEBUG):
            self._reject(event)  # builds and logs it

    def _target_of(self, alt: CompiledAlt) -> S | None:
        return self._prev if alt.target is None else alt.target

    def _stamp(self) -> float | None:
        """The slow path's clock reading, taken after the guards chose and before any action
        runs, so that a failing clock (:class:`ClockError`) leaves nothing applied. Only read
        when something will keep it (history, or listeners that get a record)."""
        if self._history is None and not self._listeners:
            return None
        return self._clock()

    def _commit(
        self,
        source: S,
        event: E,
        target: S,
        payload: Mapping[str, Any],
        error: str | None,
        stamp: float | None,
    ) -> int:
        """Apply the state change and record it (the part after user code succeeded); returns
        the step's counter index. The fast row is set when user code is left."""
        index: int = self._spec_table.counter_index[(source, event, target)]
        if self._history is not None:
            if error is None:
                self._history.append((index, stamp, payload))
            else:
                self._history.append((index, stamp, payload, error))
        if target is not source:
            self._prev = source
        self._state = target
        self._counts[index] += 1
        return index

    def _commit_trivial(
        self,
        member: E,
        target: S,
        fast: dict[Any, Fast],
        index: int,
        moves: bool,
        payload: Mapping[str, Any],
    ) -> list[Awaitable[object]]:
        """Commit a trivial transition found in the fast row (no user code runs) and announce it.

        ``Machine.send`` does the same inline, because a call costs a tenth of its hot path.
        """
        history = self._history
        if history is not None:  # first: a clock that raises leaves nothing half-recorded
            clock = self._clock
            history.append((index, clock(), payload))
        source = self._state
        if moves:
            self._prev = source
        self._state = target
        self._fast = fast
        self._counts[index] += 1
        if self._listeners or self._log_cache.get(_INFO, True):
            return self._announce(source, member, target, payload, None)
        return []

    def _announce(
        self,
        source: S,
        event: E,
        target: S,
        payload: Mapping[str, Any],
        error: str | None,
        stamp: float | None = None,
    ) -> list[Awaitable[object]]:
        """Log and notify listeners about the transition just committed.

        Returns what coroutine listeners returned; the async machine awaits those after
        releasing its lock, the sync machine cannot and refuses them.
        """
        if self._log_on and self._logger.isEnabledFor(_INFO):
            self._logger.info(
                "%s %s: %s --%s--> %s",
                self._spec_table.spec.name,
                self._instance_id,
                source,
                event,
                target,
            )
        pending: list[Awaitable[object]] = []
        if self._listeners:
            if self._history:
                record = self._record(self._history[-1], self.total_transitions)
            else:
                if stamp is None:  # history off, on the fast path: the transition is applied
                    try:
                        stamp = self._clock()
                    except ClockError:
                        self._logger.exception("clock failed; listeners not called")
                        return pending
                record = record_type()(
                    source, event, target, stamp, self.total_transitions, payload, error
                )
            for listener in tuple(self._listeners):
                try:
                    result = listener(record)
                except Exception:
                    self._logger.exception("listener %r failed; transition kept", listener)
                    continue
                if result is not None:  # most listeners return None: spare importing inspect
                    import inspect

                    if inspect.isawaitable(result):
                        pending.append(result)
        return pending


def refuse_async_listeners(pending: list[Awaitable[object]]) -> None:
    """What a sync machine does with awaitables its listeners returned (after the transition)."""
    import inspect  # an error path: not worth importing inspect with every generated module

    for awaitable in pending:
        if inspect.iscoroutine(awaitable):
            awaitable.close()  # never awaited: close it instead of leaking a warning
    raise TypeError(
        "a listener returned an awaitable: coroutine listeners need AsyncMachine "
        "(the transition itself was applied)"
    )


def statewright_logger() -> logging.Logger:
    """The ``statewright`` logger (importing logging on first use: it costs ~5 ms to import)."""
    global _LOG
    if _LOG is None:
        import logging

        _LOG = logging.getLogger("statewright")
    return _LOG


def _default_options() -> MachineOptions:
    global _DEFAULT_OPTIONS
    if _DEFAULT_OPTIONS is None:
        from statewright._options import MachineOptions

        _DEFAULT_OPTIONS = MachineOptions()
    return _DEFAULT_OPTIONS


def _random_id() -> str:
    """32 random lowercase hex digits, like ``uuid.uuid4().hex`` (uuid costs 1-6 ms to import)."""
    return os.urandom(16).hex()


def _log_cache(logger: logging.Logger, enabled: bool) -> dict[int, bool]:
    if not enabled:
        return {_INFO: False}
    cache = getattr(logger, "_cache", None)
    return cache if isinstance(cache, dict) else {}


def _bind_handlers(spec: MachineSpec[Any, Any], handlers: object | None) -> dict[str, Any]:
    """Bound handler methods by name; a clear TypeError names every missing one."""
    names = sorted(spec.handler_names)
    if handlers is None:
        if names:
            raise TypeError(f"{spec.name} needs a handlers object with methods: {', '.join(names)}")
        return {}
    calls: dict[str, Any] = {}
    missing = []
    for name in names:
        method = getattr(handlers, name, None)
        if callable(method):
            calls[name] = method
        else:
            missing.append(name)
    if missing:
        raise TypeError(
            f"{type(handlers).__name__} is missing handler methods required by {spec.name}: "
            f"{', '.join(missing)}"
        )
    return calls

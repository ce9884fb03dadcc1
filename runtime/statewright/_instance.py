"""One machine instance: what it holds and what it reports.

:class:`MachineInstance` is the bottom of every machine class. It sets every field (the state,
the compiled table and the engine of its class, history, counters, the store it syncs with) and
answers every read: the state, the active states and pending timers, the history and statistics
(:mod:`statewright._history_views`), and the tool definitions and checked arguments of the
untrusted-input boundary (:mod:`statewright._boundary`). Snapshots, restoring and saving are
:class:`~statewright._persistence.PersistentMachine`, one layer up; what an event does is
:class:`~statewright._base.BaseMachine` above that; the flavour (sync or asyncio) is the top.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from statewright._chart_state import ChartState  # at run time: class annotations name it
from statewright._clock import checked_clock
from statewright._compat import StrEnum
from statewright._errors import UnknownEvent
from statewright._flat import FlatEngine
from statewright._handlers import bind_handlers
from statewright._history_views import (
    fsm_record,
    iteration_counts,
    record,
    records,
    statistics,
    transition_counts,
    transition_probabilities,
)
from statewright._listeners import DEBUG, default_options, log_cache, logger_of
from statewright._locks import Lock
from statewright._spec import MachineSpec  # at run time: class annotations name it
from statewright._stores.protocol import Store  # at run time: class annotations name it
from statewright._table import Fast, Table, compile_spec

if TYPE_CHECKING:
    from statewright._engine import Engine
    from statewright._errors import Conflict, InvalidTransition
    from statewright._history import Listener, RawRecord, TransitionRecord
    from statewright._options import MachineOptions
    from statewright._tools import ToolDefinition

__all__ = ["BUSY_ROW", "MachineInstance"]

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
C = TypeVar("C")

#: Row installed while user code runs or the instance is stale, so ``send`` takes the checked path.
BUSY_ROW: dict[Any, Fast] = {}


class MachineInstance(Generic[S, E, C]):
    """The fields of one instance and every read of them (see the module docstring)."""

    #: Set by each generated subclass.
    spec: ClassVar[MachineSpec[Any, Any]]
    #: ``(table, engine)`` of ``spec``, built on first use and cached on each class.
    _compiled: ClassVar[tuple[Table, Any] | None] = None
    # Defaults of fields most instances never set (an instance with fewer attributes is
    # smaller, and CPython keeps its attribute lookups specialised up to 30 of them):
    #: A statechart's running state (None for a flat machine), and whether its initial
    #: configuration was entered.
    _chart: ChartState | None = None
    _started: bool = True
    #: The macrostep's time while a statechart's checkpoint is built (its ``saved_at``).
    _checkpoint_time: float | None = None
    #: The store this machine last saved to or was loaded from, and its newest event id then:
    #: the records after it are what the next save to that store appends.
    _synced_store: Store | None = None
    _synced_total: int = 0
    #: Idempotency keys of applied keyed sends, oldest first, and their event ids.
    _keys: dict[str, int] | None = None
    #: The initial data given at construction (checked), until the initial configuration is
    #: entered with it.
    _given: dict[str, Any] | None = None
    #: Whether the spec's states invoke child machines; for a child, the machine that invoked
    #: it and its invoke id there; whether its tree may hold undelivered events (restored, or a
    #: delivery that raised): see statewright._tree.
    _invoking: ClassVar[bool] = False
    #: Whether the class is of the asyncio flavour (its children are too).
    _asyncio: ClassVar[bool] = False
    _parent: Any = None
    _invokeid: str | None = None
    _unsettled: bool = False
    #: What its tree's last save kept of it, a child's entry and a parent's field of children
    #: (statewright._tree_text): set by saves only.
    _kept_entry: Any = None
    _kept_field: Any = None

    def _setup(
        self,
        context: C,
        handlers: object | None,
        options: MachineOptions | None,
        read_lock: Lock,
        data: Mapping[str, Any] | None = None,
        restoring: bool = False,
    ) -> None:
        """Set every field (the flavour then enters the initial configuration, or installs a
        restored snapshot: ``restoring``, when a statechart's state before its start is not
        made, its data model's factory not called); ``data`` is the initial data given to this
        instance, checked here before anything runs (:class:`~statewright.InvalidData`)."""
        table, engine = type(self)._classdata()
        spec = table.spec
        if data is not None:
            from statewright._data_values import initial_data

            self._given = initial_data(spec.data, spec.name, data)
        opts = default_options() if options is None else options
        self._spec_table = table
        self._engine: Engine = engine
        self._context = context
        self._handlers = handlers
        self._calls = bind_handlers(spec, handlers)
        self._options = opts
        self._logger = logger_of(opts)
        self._log_on = opts.log_transitions
        #: The logger's level cache (see statewright._listeners.log_cache).
        self._log_cache: dict[int, bool] = log_cache(self._logger, opts.log_transitions)
        #: A user-supplied clock is wrapped to enforce the clock rule (statewright._clock);
        #: ``time.time`` itself is kept, so the hot path pays nothing.
        self._clock = checked_clock(opts.clock)
        self._instance_id = opts.instance_id if opts.instance_id is not None else _random_id()
        self._state: S = spec.initial
        #: Fast entries of the current state; :data:`BUSY_ROW` while user code runs or stale.
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
        #: Held while history and counters are read, so a reader never sees a half-applied
        #: transition (the sync machine's own lock; asyncio tasks cannot interleave a read).
        self._read_lock = read_lock
        working = None if restoring else engine.initial(self._clock, self._instance_id, self._given)
        if working is not None:  # a statechart, whose initial configuration is entered next
            self._chart = working
            self._started = False

    @classmethod
    def _classdata(cls) -> tuple[Table, Engine]:
        """The compiled table and the engine of ``cls.spec``, built on first use."""
        try:
            spec = cls.spec
        except AttributeError:
            raise TypeError(
                f"{cls.__name__} has no 'spec'; subclass Machine and set spec = <MachineSpec>"
            ) from None
        compiled = cls.__dict__.get("_compiled")
        if compiled is None or compiled[0].spec is not spec:
            table = compile_spec(spec)
            engine: Engine
            if spec.chart is None:
                engine = FlatEngine(table)
            else:
                from statewright._chart_engine import ChartEngine  # flat machines never import it

                kind = ChartEngine
                if any(node.invokes for node in spec.chart.nodes):
                    from statewright._chart_invoke import InvokingChartEngine as kind

                engine = kind(
                    spec.chart,
                    table.events_by_value,
                    table.allowed,
                    spec.data,
                    spec.name,
                    spec.payloads,
                    table.counter_index,
                )
            compiled = cls._compiled = (table, engine)
            cls._invoking = engine.invoking
        return compiled

    @classmethod
    def _table(cls) -> Table:
        return cls._classdata()[0]

    # ----------------------------------------------------------------- what it reports

    @property
    def state(self) -> S:
        """The current state (a statechart's first active leaf in document order)."""
        return self._state

    @property
    def data(self) -> Any:
        """The machine's data (the spec's ``[data]``), an instance of the generated
        ``<Name>Data`` class, which a generated machine types this as; None without a data
        model. Read it: the machine's own steps change it (checked, and undone with a failed
        event); a change made from outside is neither."""
        chart = self._chart
        model = None if chart is None else chart.model
        return None if model is None else model.data

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
        return self._engine.finished(self._state, self._chart)

    @property
    def active_states(self) -> frozenset[S]:
        """Every active leaf state (several while a statechart's parallel regions are active)."""
        return self._engine.active(self._state, self._chart)

    def in_tag(self, tag: str) -> bool:
        """Whether the current state belongs to the spec's tag ``tag`` (KeyError if unknown)."""
        return self._state in self._spec_table.spec.tags[tag]

    def allowed_events(self) -> frozenset[E]:
        """Events some transition of the current state (or an active state or its ancestors)
        takes, guards not evaluated; internal events (only the machine sends them) left out."""
        return self._engine.allowed(self._state, self._chart)

    def is_in(self, states: S | Collection[S], /) -> bool:
        """Whether the machine is in ``states``: a state, or (a collection such as a ``TAG_``
        or ``IN_<NAME>`` frozenset) any of its states. A call is never narrowed by a type
        checker, unlike ``machine.state is X``, so it stays right after an event moved it."""
        active = self.active_states
        if isinstance(states, StrEnum):
            return states in active
        return not active.isdisjoint(states)

    @property
    def pending_timers(self) -> dict[str, float]:
        """Each pending timer's id and due time (seconds since the epoch, the machine's clock)."""
        chart = self._chart
        return {} if chart is None else {name: t.due for name, t in chart.timers.items()}

    @property
    def next_due(self) -> float | None:
        """When the earliest pending timer is due (of the whole tree, with child machines);
        None without one."""
        chart = self._chart
        if chart is not None and chart.children:
            from statewright._tree import tree_next_due

            return tree_next_due(self)
        return None if chart is None or not chart.timers else chart.next_due()

    @property
    def children(self) -> Mapping[str, Any]:
        """The child machines running now (its states' invokes), by invoke id: read-only, in
        document order. A child is a machine of its spec's class (the flavour of this one); it
        ends when its state is left or it finishes (see ``docs/runtime.md``)."""
        from types import MappingProxyType

        from statewright._tree import running

        return MappingProxyType(dict(running(self)))

    # ----------------------------------------------------------------- history and statistics

    @property
    def total_transitions(self) -> int:
        """Transitions applied over the machine's whole life (survives snapshots)."""
        return sum(self._counts)

    @property
    def history(self) -> tuple[TransitionRecord, ...]:
        """The retained transitions, oldest first (at most ``options.history_limit``)."""
        with self._read_lock:
            return records(self._spec_table.triples, self._history, self.total_transitions)

    @property
    def last_transition(self) -> TransitionRecord | None:
        with self._read_lock:
            raw = self._history
            if not raw:
                return None
            return record(self._spec_table.triples, raw[-1], self.total_transitions)

    def fsm_record(self) -> dict[str, Any]:
        """The seed-000 summary: state, ``"EVENT -> state"``, its timestamp and the history."""
        with self._read_lock:
            triples = self._spec_table.triples
            return fsm_record(triples, self._history or (), self._state, self.last_transition)

    def transition_counts(self) -> dict[tuple[S, E, S], int]:
        """How often each ``(source, event, target)`` was taken (only non-zero entries)."""
        with self._read_lock:
            return transition_counts(self._spec_table.triples, self._counts)

    @property
    def iteration_counts(self) -> dict[S, int]:
        """Visits per state: entries by transitions (self-transitions count) plus the start."""
        return iteration_counts(self._spec_table.spec.initial, self.transition_counts())

    def transition_probabilities(self) -> dict[S, dict[tuple[E, S], float]]:
        """Empirical ``P(event, target | source)`` from the counters."""
        return transition_probabilities(self.transition_counts())

    def statistics(self) -> dict[str, Any]:
        """JSON-friendly summary of all counters."""
        counts = self.transition_counts()
        visits = iteration_counts(self._spec_table.spec.initial, counts)
        return statistics(self.total_transitions, visits, counts)

    # ----------------------------------------------------------------- listeners and tools

    def add_listener(self, callback: Listener) -> None:
        """Call ``callback(record)`` after every applied transition (after any checkpoint).

        A listener that raises is logged and skipped; the transition stays applied.
        """
        self._listeners.append(callback)

    def remove_listener(self, callback: Listener) -> None:
        self._listeners.remove(callback)

    def tools(self, state: S | None = None, /) -> list[ToolDefinition]:
        """The events the current state (or ``state``) accepts from outside, guards not
        evaluated, as tool definitions: the event's name, its description from the spec and its
        payload's JSON Schema. A model's call of one goes to ``send_external`` as it is; an
        internal event is never one of them."""
        from statewright._boundary import tool_definitions

        table = self._spec_table
        allowed = self.allowed_events() if state is None else table.allowed[state]
        return tool_definitions(table, allowed, self._options)

    def _external(
        self, event: str, arguments: Mapping[str, Any] | str | bytes | None
    ) -> tuple[E, dict[str, Any]]:
        """The member named ``event`` (its name or its value) and the checked payload, or
        :class:`UnknownEvent` (an internal event too: only the machine sends those) /
        :class:`InvalidPayload`; nothing is sent here."""
        from statewright._boundary import checked_payload, external_member

        table = self._spec_table
        member = external_member(table, event)
        if member is None or member in table.internal:
            name = table.spec.name
            raise self._logged(
                UnknownEvent(
                    str(self._state),
                    event if isinstance(event, str) else repr(event),
                    self.allowed_events(),
                    f"{event!r} is not the name or value of an event of {name}"
                    if member is None
                    else f"{event!r} is an internal event of {name}: only the machine sends it",
                    # what a string most likely meant: only events the boundary takes
                    [each for each in table.spec.event_type if each not in table.internal]
                    if member is None and isinstance(event, str)
                    else (),
                )
            )
        return member, checked_payload(table, member, arguments, self._options)

    def _logged(self, error: InvalidTransition) -> InvalidTransition:
        """Rejections are answers, not failures: DEBUG, and only when someone listens."""
        if self._log_cache.get(DEBUG, True) and self._logger.isEnabledFor(DEBUG):
            self._logger.debug(
                "%s %s: rejected: %s", self._spec_table.spec.name, self._instance_id, error
            )
        return error


def _random_id() -> str:
    """32 random lowercase hex digits, like ``uuid.uuid4().hex`` (uuid costs 1-6 ms to import)."""
    import os

    return os.urandom(16).hex()

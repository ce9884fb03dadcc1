"""The trivial transition, written once: :data:`COMMIT` is the only text of it, and
:meth:`Machine.send`, :meth:`Machine.try_send`, every generated event method of a flat machine,
:meth:`AsyncMachine.send` and a statechart's ``send`` and ``try_send`` are compiled from it.

A trivial transition (no guard, no action, no checkpoint) runs no user code, so it is committed
inline from the state's fast row: one dict lookup, one tuple unpack and a few attribute stores.
At that size a call is a tenth of the cost, so each entry point is its own function with the
commit spelled out, and the only way to keep them equal is to make them from one text (attrs'
``_make.py`` compiles its generated methods the same way). Each function is compiled the first
time it is looked up (compiling costs ~1 ms in a fresh process, more than a program that sends a
few events saves), so importing a generated module compiles nothing; its source is registered
with :mod:`linecache`, so tracebacks, ``inspect`` and debuggers show its lines.

Only the runtime's own text is compiled: an event method's parameter names are those of the
generated method it replaces (read from its code object, so they are identifiers), never text
taken from a spec.

A statechart commits the same way an event whose plan its configuration's row holds
(:mod:`statewright._chart_plans`): the entry also names the next configuration, whose sets the
chart state takes (:data:`CHART`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from statewright._errors import InvalidTransition
from statewright._listeners import INFO, refuse_async_listeners

__all__ = [
    "COMMIT",
    "Compiled",
    "compile_async_send",
    "compile_chart_send",
    "compile_chart_try_send",
    "compile_send",
    "compile_try_send",
    "install_event_methods",
    "owner_of",
    "restore_event_methods",
]

#: The commit of a trivial transition found in the fast row (``member, target, fast, index,
#: moves``), then the announcement; ``{chart}`` is a statechart's part (:data:`CHART`),
#: ``{listeners}`` what the flavour does with awaitables its listeners returned.
COMMIT: Final = """\
# A trivial transition (no guard, no action, no checkpoint): no user code runs, so it is
# committed here.
history = self._history
if history is not None:  # first: a clock that raises leaves nothing half-recorded
    # A plain attribute load: CPython does not specialise ``self._clock()`` on an instance
    # attribute holding a C function.
    clock = self._clock
    # A record without a payload leaves it out: its dict would be most of the record.
    history.append((index, clock(), payload) if payload else (index, clock()))
{chart}
source = self._state
if moves:
    self._prev = source
self._state = target
self._fast = fast
self._counts[index] += 1
try:  # the logger's own level cache (False = INFO disabled): no isEnabledFor call, no get call
    announce = self._listeners or self._log_cache[INFO]
except KeyError:  # emptied by a level change
    announce = True
if announce:
    pending = self._announce(source, member, target, payload, None)
    if pending:
        {listeners}
"""

#: A statechart's part of the commit: the chart state takes the next configuration's sets
#: (replaced, never changed: statewright._chart_state).
CHART: Final = """\
chart = self._chart
chart.active = config.active
chart.memory = config.memory
chart.config = config
"""

#: A sync entry point: the machine's lock around the fast row, the general path otherwise.
_SYNC: Final = """\
def {name}(self{parameters}):
    {payload}
    lock = self._lock
    lock.acquire()
    try:
        try:
            {lookup}
        except ({errors}):  # guarded, with actions, rejected or not an event
            return self.{general}({event}, payload)
        {identity}
        {commit}
        return {result}
    finally:
        lock.release()
"""

#: The fast row's entry, unpacked: a flat machine's, and a statechart's (its next configuration
#: too, and a counter this machine has not counted yet sends the event the general way, which
#: adds it). An entry of the other kind does not unpack (a flat entry point of a chart class
#: whose ``send`` is its own, say): the general path takes the event.
_LOOKUP: Final = "member, target, fast, index, moves = self._fast[{event}]"
_CHART_LOOKUP: Final = """\
member, target, fast, index, moves, config = self._fast[event]
self._counts[index]  # an IndexError when this machine has not counted it yet
"""
_ERRORS: Final = "KeyError, TypeError, ValueError"
_CHART_ERRORS: Final = "KeyError, TypeError, ValueError, IndexError"

#: For entry points that take the event as an argument: an event found by value that is neither
#: the member nor a plain string (a member of another enum, a str subclass) goes the general way;
#: so does a statechart's event that is not planned (statewright._table.UNPLANNED).
_IDENTITY: Final = """\
if member is not event:
    if member is None:  # a rejection's entry (statewright._table.Fast), or UNPLANNED
        if target is event:
            {refuse}
        return self.{general}(event, payload)
    if type(event) is not str:
        # The checked path decides, as it does for guarded events (an identity test keeps
        # the usual case free).
        return self.{general}(event, payload)
"""
#: For event methods: the event is built in, so only a rejection's entry is special.
_REJECTION: Final = """\
if member is None:  # a rejection's entry (see statewright._table.Fast)
    {refuse}
"""
#: What ``send`` does with a rejection's entry (``fast`` holds the error's arguments): raise it
#: at once, logged like every rejection; ``try_send`` answers False.
_RAISE: Final = "raise self._logged(InvalidTransition(*fast))"
_ANSWER: Final = "self._rejected_quietly(target)\nreturn False"

#: The asyncio entry point: inline when no other task is inside a transition of this machine
#: (nothing in the commit awaits, so nothing can interleave), else under the asyncio lock.
_ASYNC: Final = """\
async def send(self, event, /, **payload):
    lock = self._async_lock
    if lock is None or not lock.locked():
        try:
            member, target, fast, index, moves = self._fast[event]
        except (KeyError, TypeError, ValueError):
            pass  # guarded, with actions, rejected, not an event, a chart's: the general path
        else:
            if member is event or (type(event) is str and member is not None):
                {commit}
                return target
    return await self._send_general(event, payload)
"""

_REFUSE: Final = "refuse_async_listeners(pending)"
_AWAIT: Final = "for awaitable in pending:\n    await self._await_listener(awaitable)"


def _fill(text: str, parts: Mapping[str, str]) -> str:
    """``text`` with each ``{part}`` filled in: a part alone on its line takes that line's
    indentation for each of its lines (an empty part removes the line); inline ones are
    substituted."""
    lines: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        key = stripped[1:-1] if stripped.startswith("{") and stripped.endswith("}") else None
        if key is not None and key in parts:
            indent = line[: len(line) - len(line.lstrip())]
            lines.extend(indent + part if part.strip() else "" for part in parts[key].splitlines())
        else:
            lines.append(line.format_map(parts) if "{" in line else line)
    return "\n".join(lines) + "\n"


def _compile(source: str, name: str, cells: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """A new function ``name`` from ``source``: ``cells`` (an event method's event) its closure,
    :data:`_GLOBALS` its globals (not cells: 3.11+ copies every cell into each frame, a global
    is read only where it is used). Each text is compiled once, registered with linecache."""
    factory = _COMPILED.get((source, name))
    if factory is None:
        import linecache  # only when the first entry point is compiled

        names = ", ".join(cells or ())
        text = f"def factory({names}):\n" + "".join(f"    {line}\n" for line in source.splitlines())
        text += f"    return {name}\n"
        filename = f"<statewright trivial commit: {name} {len(_COMPILED)}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        namespace: dict[str, Any] = dict(_GLOBALS)
        exec(compile(text, filename, "exec"), namespace)  # the runtime's own text, see above
        factory = _COMPILED[(source, name)] = namespace["factory"]
    return factory(*(cells or {}).values())  # type: ignore[no-any-return]


#: The compiled factory of each ``(text, function name)``.
_COMPILED: dict[tuple[str, str], Callable[..., Any]] = {}


def sync_source(
    name: str,
    general: str,
    result: str,
    fields: tuple[str, ...] | None,
    refuse: str = _RAISE,
    chart: bool = False,
) -> str:
    """The text of a sync entry point. ``fields`` (an event method's payload fields, optional
    ones last) makes it an event method with the event built in; None takes the event as an
    argument. ``general`` is the method an event off the trivial path goes to, ``refuse`` what
    a rejection's entry does; ``chart``: a statechart's entry point."""
    if fields is None:
        parameters, payload, event = ", event, /, **payload", "", "event"
        identity = _fill(_IDENTITY, {"general": general, "refuse": refuse})
    else:
        parameters = f", *, {', '.join(fields)}" if fields else ""
        payload = "payload = {" + ", ".join(f"{_name(f)!r}: {_name(f)}" for f in fields) + "}"
        event, identity = "EVENT", _fill(_REJECTION, {"refuse": refuse})
    commit = _fill(COMMIT, {"chart": CHART if chart else "", "listeners": _REFUSE})
    parts = {
        "lookup": _CHART_LOOKUP if chart else _LOOKUP.format(event=event),
        "errors": _CHART_ERRORS if chart else _ERRORS,
        "name": name,
        "parameters": parameters,
        "payload": payload,
        "event": event,
        "general": general,
        "identity": identity,
        "commit": commit,
        "result": result,
    }
    return _fill(_SYNC, parts)


def async_source() -> str:
    """The text of :meth:`AsyncMachine.send`."""
    return _fill(_ASYNC, {"commit": _fill(COMMIT, {"chart": "", "listeners": _AWAIT})})


def _name(field: str) -> str:
    """An event method's parameter (``code`` or ``note=None``) as the name it binds."""
    return field.split("=", 1)[0]


def compile_send() -> Callable[..., Any]:
    source = sync_source("send", "_send_slow", "target", None)
    return _compile(source, "send")


def compile_try_send() -> Callable[..., Any]:
    source = sync_source("try_send", "_try_slow", "True", None, _ANSWER)
    return _compile(source, "try_send")


def compile_chart_send() -> Callable[..., Any]:
    source = sync_source("send", "_send_slow", "target", None, chart=True)
    return _compile(source, "send")


def compile_chart_try_send() -> Callable[..., Any]:
    source = sync_source("try_send", "_try_slow", "True", None, _ANSWER, chart=True)
    return _compile(source, "try_send")


def compile_async_send() -> Callable[..., Any]:
    return _compile(async_source(), "send")


#: The runtime's names the compiled texts read.
_GLOBALS: Final = {
    "INFO": INFO,
    "InvalidTransition": InvalidTransition,
    "refuse_async_listeners": refuse_async_listeners,
}


class Compiled:
    """A method compiled by ``build`` the first time it is looked up; the result replaces this
    descriptor in the class, so every later call is a plain function call."""

    def __init__(self, build: Callable[[], Callable[..., Any]], doc: str) -> None:
        self._build = build
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self._owner, self._name = owner, name

    @classmethod
    def install(
        cls, owner: type, name: str, build: Callable[[], Callable[..., Any]], doc: str
    ) -> None:
        """Put a method compiled on first lookup into ``owner`` after its class body ran."""
        compiled = cls(build, doc)
        compiled.__set_name__(owner, name)
        setattr(owner, name, compiled)

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        function = self._build()
        function.__name__ = self._name
        function.__qualname__ = f"{self._owner.__qualname__}.{self._name}"
        function.__doc__ = self.__doc__
        function.__module__ = self._owner.__module__
        if self._owner.__dict__.get(self._name) is self:
            setattr(self._owner, self._name, function)
        return function if instance is None else function.__get__(instance, owner)


# ----------------------------------------------------------------- generated event methods

#: Compiled event-method factories by payload shape (parameter texts), shared by every event
#: with that shape.
_FACTORIES: dict[tuple[str, ...], Callable[..., Any]] = {}

#: Where an event method's original is kept, for :func:`restore_event_methods`.
_ORIGINAL: Final = "__statewright_original__"


def _event_method(event: Any, fields: tuple[tuple[str, Any, bool], ...], original: Any) -> Any:
    """``original``, the generated method of ``event``, compiled from the trivial commit: the
    same keyword-only parameters (optional ones default to None), name, docstring and
    annotations."""
    shape = tuple(
        [name for name, _, needed in fields if needed]
        + [f"{name}=None" for name, _, needed in fields if not needed]
    )
    make = _FACTORIES.get(shape)
    if make is None:
        source = sync_source("method", "_send_slow", "target", shape)

        def make(event: Any, source: str = source) -> Callable[..., Any]:
            return _compile(source, "method", {"EVENT": event})

        _FACTORIES[shape] = make
    method: Any = make(event)
    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(method, attribute, getattr(original, attribute))
    method.__annotations__ = dict(original.__annotations__)
    method.__wrapped__ = original  # what inspect.unwrap follows
    setattr(method, _ORIGINAL, original)
    return method


def _is_forwarder(original: object, event: Any, fields: tuple[tuple[str, Any, bool], ...]) -> bool:
    """Whether ``original`` is exactly the generated method of ``event``: keyword-only
    parameters named as the payload fields (optional ones defaulting to None), and a body that
    only reads ``send`` and the module constant ``_E_<EVENT>`` (``return self.send(_E_X, a=a)``).
    A hand-written method of the same name, or one whose parameters differ, is left alone."""
    code = getattr(original, "__code__", None)
    if code is None or code.co_argcount != 1 or code.co_flags & 0x0C:  # *args / **kwargs
        return False
    constant = f"_E_{event.name}"
    if set(code.co_names) != {"send", constant}:
        return False
    if getattr(original, "__globals__", {}).get(constant) is not event:
        return False
    names = code.co_varnames[1 : 1 + code.co_kwonlyargcount]
    defaults = getattr(original, "__kwdefaults__", None) or {}
    optional = {name for name, _, needed in fields if not needed}
    return names == tuple(name for name, _, _ in fields) and defaults == dict.fromkeys(optional)


class _Pending:
    """An event method not compiled yet: the first lookup compiles it and puts the result in
    the class, so every later call is a plain function call."""

    def __init__(self, home: type, event: Any, fields: Any, original: Any) -> None:
        self._home, self._event, self._fields = home, event, fields
        setattr(self, _ORIGINAL, original)

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        original = getattr(self, _ORIGINAL)
        method = _event_method(self._event, self._fields, original)
        if self._home.__dict__.get(original.__name__) is self:
            setattr(self._home, original.__name__, method)
        return method if instance is None else method.__get__(instance, owner)


def install_event_methods(cls: type, spec: Any) -> None:
    """Give the generated event methods of ``cls`` (a flat machine) the inline path."""
    for member in spec.event_type:
        name = member.name.lower()
        original = cls.__dict__.get(name)
        fields = spec.payloads.get(member, ())
        if _is_forwarder(original, member, fields):
            setattr(cls, name, _Pending(cls, member, fields, original))


def restore_event_methods(cls: type) -> None:
    """Put the generated methods back in ``cls``, which overrides ``send``: they must go
    through its ``send``, not around it."""
    seen = set(cls.__dict__)
    for base in cls.__mro__[1:]:
        for name, value in base.__dict__.items():
            if name not in seen:
                seen.add(name)
                original = getattr(value, _ORIGINAL, None)
                if original is not None:
                    setattr(cls, name, original)


def owner_of(cls: type, name: str) -> type | None:
    """The class in ``cls``'s MRO that defines ``name`` (without running any descriptor)."""
    return next((base for base in cls.__mro__ if name in base.__dict__), None)

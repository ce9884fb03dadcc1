"""The trivial-transition path of :meth:`Machine.send`, specialised for each generated event
method of a flat machine.

A generated method ``open()`` is ``return self.send(_E_OPEN)``, and that second Python frame
costs 8-15% of a whole trivial transition (more than the 10% over ``send`` an entry point may
cost). So each event method is compiled from this text, the path of ``send`` with the event
as a closure constant and the payload built from the method's own keyword parameters; anything
off the trivial path goes to ``_send_slow`` as from ``send``. The lines shared with ``send`` are
kept equal by a test.

An event method is compiled the first time it is looked up (compiling costs ~1 ms in a fresh
process, more than the whole path saves for a program that sends a few events), so importing a
generated module compiles nothing. Each placeholder fills one line of the text and the code is
compiled under this file's name at the text's own line numbers, so tracebacks, ``inspect`` and
debuggers show the lines below without registering anything with :mod:`linecache`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Final

from statewright._core import _INFO, refuse_async_listeners

__all__ = ["install_event_methods", "restore_event_methods"]

#: Where the text starts in this file: the line after the next one.
_FIRST_LINE: Final = sys._getframe().f_lineno + 2
_TEMPLATE: Final = """\
def factory(EVENT, _INFO, refuse_async_listeners):
    def method(self{parameters}):
        payload = {payload}
        lock = self._lock
        lock.acquire()
        try:
            try:
                member, target, fast, index, moves = self._fast[EVENT]
            except (KeyError, TypeError):  # guarded, with actions, rejected or not an event
                return self._send_slow(EVENT, payload)
            # A trivial transition: no user code can run, so it is committed here.
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
            # The logger's own level cache (False = INFO disabled) spares an isEnabledFor call.
            if self._listeners or self._log_cache.get(_INFO, True):
                pending = self._announce(source, member, target, payload, None)
                if pending:
                    refuse_async_listeners(pending)
            return target
        finally:
            lock.release()
    return method
"""

#: Compiled factories by the payload's fields (name, required).
_FACTORIES: dict[tuple[tuple[str, bool], ...], Callable[..., Any]] = {}

#: Where an event method's code object is marked, for :func:`restore_event_methods`.
_ORIGINAL: Final = "__statewright_original__"


def _factory(fields: tuple[tuple[str, bool], ...]) -> Any:
    """The compiled method factory for one payload shape (shared by every event with it)."""
    factory = _FACTORIES.get(fields)
    if factory is None:
        required = [name for name, needed in fields if needed]
        optional = [f"{name}=None" for name, needed in fields if not needed]
        parameters = f", *, {', '.join([*required, *optional])}" if fields else ""
        payload = "{" + ", ".join(f"{name!r}: {name}" for name, _ in fields) + "}"
        source = _TEMPLATE.format(parameters=parameters, payload=payload)
        namespace: dict[str, Any] = {}
        exec(compile("\n" * (_FIRST_LINE - 1) + source, __file__, "exec"), namespace)
        factory = _FACTORIES[fields] = namespace["factory"]
    return factory


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


def _event_method(
    event: Any, fields: tuple[tuple[str, Any, bool], ...], original: Any
) -> Callable[..., Any]:
    """``original``, the generated method of ``event``, specialised: the same keyword-only
    parameters (optional ones default to None), name, docstring and annotations."""
    shape = tuple((name, needed) for name, _, needed in fields)
    method = _factory(shape)(event, _INFO, refuse_async_listeners)
    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(method, attribute, getattr(original, attribute))
    method.__annotations__ = dict(original.__annotations__)
    method.__wrapped__ = original  # what inspect.unwrap follows
    setattr(method, _ORIGINAL, original)
    return method  # type: ignore[no-any-return]


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

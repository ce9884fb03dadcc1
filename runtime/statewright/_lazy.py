"""Public dataclasses that become dataclasses on first use, so that importing them is cheap.

:class:`~statewright.MachineOptions` and :class:`~statewright.TransitionRecord` are public
dataclasses (applications call ``dataclasses.replace``, ``asdict`` and ``fields`` on them), and
every generated module imports ``MachineOptions`` by name. Importing :mod:`dataclasses` costs
7-13 ms on CPython 3.10-3.13 (it imports inspect, which imports ast, dis and tokenize): about as
much as the rest of importing a generated module. So their modules decorate them with this
module's :func:`dataclass` at run time, while type checkers see :func:`dataclasses.dataclass`
itself (``if TYPE_CHECKING`` imports). The first time the class is used,
``dataclasses.dataclass(cls, **params)`` is applied to it in place; from then on it is an
ordinary dataclass, and every name bound to it sees that.

First use is any of: calling the class (constructing an instance); setting the state of an
instance made without calling it (unpickling, which uses ``cls.__new__``); reading, on the class,
an attribute it does not have yet: ``__dataclass_fields__`` (``fields``, ``is_dataclass``,
dataclass subclasses), ``__signature__`` (``inspect.signature``, ``help``), ``__no_type_check__``
(``typing.get_type_hints``), ``__match_args__``, or a field whose default is :func:`field`. Until
then the class has only what its class statement wrote (``vars(cls)`` shows no ``__init__``).

The decorator builds the class anew (as ``dataclass(slots=True)`` does) with a metaclass of its
own whose ``__call__`` and ``__getattr__`` catch the first use, and a ``__setstate__``; all three
are deleted then, so calls and attribute reads go straight to ``type`` afterwards and pickling
works as for any dataclass. (A placeholder ``__new__`` cannot be the hook: once deleted, CPython
still dispatches through it, and ``object.__new__`` then rejects the constructor's arguments.)
What differs from the ``@dataclass(frozen=True, slots=True)`` these classes were before:

- no slots: slots need a new class, which names bound before first use would not see; so
  instances have a ``__dict__`` (assigning a field still raises ``FrozenInstanceError``);
- the metaclass: ``type(MachineOptions)`` is a subclass of ``type`` (a subclass combining it
  with another metaclass, such as ``abc.ABCMeta``, needs a metaclass deriving from both).
"""

from __future__ import annotations

import sys
from _thread import RLock
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["ModuleOnFirstUse", "dataclass", "field", "make_dataclass"]

C = TypeVar("C", bound=type)

#: Serialises making classes dataclasses; reentrant, so that reads from dataclasses itself,
#: which find :data:`_BUSY` set, do not deadlock.
_LOCK = RLock()
#: Classes decorated by :func:`dataclass` and not made dataclasses yet -> keyword arguments.
_PENDING: dict[type, dict[str, Any]] = {}
#: Classes being made dataclasses (by the thread holding :data:`_LOCK`).
_BUSY: set[type] = set()
#: What the per-class metaclass defines until first use.
_HOOKS = ("__call__", "__getattr__")


def dataclass(**params: Any) -> Callable[[C], C]:
    """Like ``dataclasses.dataclass(**params)``, applied to the class on its first use.

    ``slots=True`` is refused (see the module docstring), and so are methods using ``super()``
    without arguments or ``__class__``: the class statement's class is discarded.
    """
    if params.get("slots"):
        raise ValueError("a class made a dataclass on first use cannot have slots")

    def defer(cls: C) -> C:
        if type(cls) is not type:
            raise TypeError(f"{cls.__qualname__} already has a metaclass")
        namespace = dict(vars(cls))
        namespace.pop("__dict__", None)
        namespace.pop("__weakref__", None)
        namespace["__qualname__"] = cls.__qualname__
        if "__setstate__" in namespace:
            raise TypeError(f"{cls.__qualname__} may not define __setstate__")
        for value in namespace.values():
            if "__class__" in getattr(getattr(value, "__code__", None), "co_freevars", ()):
                raise TypeError(f"{cls.__qualname__}: methods may not use super() or __class__")
        lazy: type | None = None

        def __call__(self: type, *args: Any, **kwargs: Any) -> Any:
            make_dataclass(cast(type, lazy))
            return type.__call__(self, *args, **kwargs)

        def __getattr__(self: type, name: str) -> Any:
            if make_dataclass(cast(type, lazy)):
                return getattr(self, name)  # __getattr__ is gone: no loop if still missing
            raise AttributeError(f"type object {self.__name__!r} has no attribute {name!r}")

        def __setstate__(self: object, state: Any) -> None:
            # Unpickling (and copy) make instances with ``cls.__new__``, not by calling the class;
            # then they set the state, as pickle does by default when there is no __setstate__.
            make_dataclass(cast(type, lazy))
            state, slots = state if isinstance(state, tuple) else (state, None)
            if state:
                vars(self).update(state)
            for name, value in (slots or {}).items():
                object.__setattr__(self, name, value)

        meta = type(
            f"{cls.__name__}Type",
            (type,),
            {
                "__module__": __name__,
                "__doc__": f"Metaclass of {cls.__qualname__}; see {__name__}.",
                "__call__": __call__,
                "__getattr__": __getattr__,
            },
        )
        namespace["__setstate__"] = __setstate__
        with _LOCK:
            lazy = meta(cls.__name__, cls.__bases__, namespace)
            _PENDING[lazy] = params
        return cast(C, lazy)

    return defer


def field(**options: Any) -> Any:
    """Stands for ``dataclasses.field(**options)`` in a class decorated with :func:`dataclass`."""
    return _FieldOnFirstUse(options)


def make_dataclass(cls: type) -> bool:
    """Make ``cls`` the dataclass it declares unless it is one already; True once it is.

    False only for reads made while dataclasses itself is processing ``cls`` in this thread.
    """
    with _LOCK:
        if cls in _BUSY:
            return False
        params = _PENDING.pop(cls, None)
        if params is None:
            return True
        _BUSY.add(cls)
        try:
            import dataclasses

            for name, value in list(vars(cls).items()):
                if isinstance(value, _FieldOnFirstUse):
                    setattr(cls, name, dataclasses.field(**value.options))
            dataclasses.dataclass(cls, **params)  # in place: the same class comes back
        finally:
            meta = type(cls)
            for hook in _HOOKS:
                delattr(meta, hook)
            delattr(cls, "__setstate__")
            _BUSY.discard(cls)
        return True


class _FieldOnFirstUse:
    """A :func:`field` in the class statement: read on the class, it makes it the dataclass."""

    __slots__ = ("name", "options", "owner")

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.owner: type | None = None
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.owner = owner
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if self.owner is None or not make_dataclass(self.owner):
            raise AttributeError(self.name)
        return getattr(owner if instance is None else instance, self.name)


class ModuleOnFirstUse:
    """Stands for a module in a namespace and imports it when one of its attributes is read.

    For annotations naming a module attribute (``logging.Logger``) that ``typing.get_type_hints``
    must still resolve, in a module that should not import that module up front.
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        __import__(self._name)
        return getattr(sys.modules[self._name], attribute)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"

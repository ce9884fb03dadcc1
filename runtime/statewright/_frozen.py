"""The base of the runtime's immutable values (the spec a generated module builds, the compiled
tables): plain slotted classes that behave like frozen dataclasses.

These values are built while a generated module is imported, and importing :mod:`dataclasses`
(which imports ``inspect``, ``ast``, ``dis`` and ``tokenize``) costs more than the rest of that
import. A subclass behaves like the frozen dataclass it replaces: keyword or positional
construction, assignment raises ``AttributeError``, a ``repr`` naming every field, value equality
and hashing over the fields (hashing fails like a tuple's when a field holds a dict),
``__match_args__``, copying and pickling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

__all__ = ["FrozenValue"]


class FrozenValue:
    """Base of the immutable value classes: fields are the names in ``__match_args__``.

    Subclasses declare ``__match_args__`` (the fields, in order) and the same names as
    ``__slots__``, and set every field in ``__init__`` with ``object.__setattr__``.
    """

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.__match_args__])

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FrozenValue) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values())

    if not TYPE_CHECKING:  # hidden from type checkers, which would then accept any attribute name

        def __setattr__(self, name, value):
            raise AttributeError(f"cannot assign to field {name!r} of immutable {_kind(self)}")

        def __delattr__(self, name):
            raise AttributeError(f"cannot delete field {name!r} of immutable {_kind(self)}")


def _kind(value: object) -> str:
    return type(value).__qualname__

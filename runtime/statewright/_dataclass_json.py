"""A dataclass's fields as JSON data by their declared types, and back to an equal value.

``typing.get_type_hints`` gives each field's type; the value is written by that type and read
back by it:

====================================== ==============================================
``str``, ``int``, ``float``, ``bool``  themselves (``float`` must be finite)
``None``, ``X | None``, ``Literal``    themselves / the alternative that fits
``Decimal``                            its string (``"12.50"``, exact)
``datetime``, ``date``, ``time``       ISO 8601 (an aware datetime keeps its offset)
``UUID``                               its string
an ``Enum``                            its member's value
a dataclass                            an object of its fields, recursively
``list``, ``tuple``, ``set``,          arrays (sets sorted, so snapshots are stable)
``frozenset`` of those
``dict[K, V]``                         an object; ``K`` is ``str``, ``int`` or an Enum
``Any``, ``object``                    plain JSON data only (checked)
====================================== ==============================================

Other types (a union of two non-JSON types, a class of your own), and values that do not fit
their declared type, raise :class:`SnapshotError` naming the field. A field missing from the data
keeps its default (a field added since), an unknown one is an error. ``decimal``, ``datetime``
and ``uuid`` are recognised by name, so they are never imported here.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
import weakref
from collections import abc
from typing import Any, Final, Literal, Union

from statewright._errors import SnapshotError
from statewright._jsondata import MAX_DEPTH, Path, field_name, json_data

__all__ = ["decode_typed", "encode_typed"]

_NONE = type(None)
_SCALARS: Final = (str, int, float, bool)
_LISTS: Final = (list, abc.Sequence, abc.MutableSequence)
_SETS: Final[dict[Any, Any]] = {set: set, frozenset: frozenset, abc.Set: set, abc.MutableSet: set}
_DICTS: Final = (dict, abc.Mapping, abc.MutableMapping)
_BARE: Final[dict[Any, Any]] = {
    list: list[Any],
    tuple: tuple[Any, ...],
    set: set[Any],
    frozenset: frozenset[Any],
    dict: dict[str, Any],
}
#: Per dataclass: its fields and their resolved types, or why the types could not be resolved.
_LAYOUTS: weakref.WeakKeyDictionary[type[Any], tuple[tuple[Any, ...], dict[str, Any], str]]
_LAYOUTS = weakref.WeakKeyDictionary()


def _layout(cls: type[Any]) -> tuple[tuple[Any, ...], dict[str, Any], str]:
    layout = _LAYOUTS.get(cls)
    if layout is None:
        problem = ""
        try:
            hints = typing.get_type_hints(cls)
        except Exception as exc:  # unresolvable forward references, mostly
            hints, problem = {}, f" (the type hints of {cls.__qualname__} do not resolve: {exc})"
        layout = _LAYOUTS[cls] = (dataclasses.fields(cls), hints, problem)
    return layout


def _mismatch(path: Path, expected: str, value: Any) -> SnapshotError:
    return SnapshotError(
        f"expected {expected}, got {type(value).__name__} {value!r:.60}", field=field_name(path)
    )


def _cannot(path: Path, hint: Any) -> SnapshotError:
    return SnapshotError(
        f"a field of type {hint!r} cannot be stored: pass MachineOptions(codec=...)",
        field=field_name(path),
    )


def _deep(path: Path) -> SnapshotError:
    return SnapshotError(f"nests more than {MAX_DEPTH} levels deep", field=field_name(path))


def _named(hint: Any) -> str:
    """``decimal.Decimal`` and the like, compared by name so their modules are never imported."""
    return f"{getattr(hint, '__module__', '')}.{getattr(hint, '__qualname__', '')}"


_TEXT_TYPES: Final = {
    "decimal.Decimal",
    "datetime.datetime",
    "datetime.date",
    "datetime.time",
    "uuid.UUID",
}


def _scalar_fits(value: Any, hint: Any) -> bool:
    if hint is bool or isinstance(value, bool):
        return hint is bool and isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and value - value == 0
    return isinstance(value, hint)


def _union_members(hint: Any) -> tuple[Any, ...] | None:
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return typing.get_args(hint)
    return None


def encode_typed(value: Any, hint: Any, path: Path, depth: int) -> Any:
    """JSON data for ``value`` of declared type ``hint`` (a dataclass at the top)."""
    if hint is Any or hint is object:
        try:
            return json_data(value, path, depth)
        except SnapshotError as error:
            raise SnapshotError(
                f"{error.reason} (typed {getattr(hint, '__name__', hint)}: declare its type, "
                "or pass MachineOptions(codec=...))",
                field=error.field,
            ) from None
    hint = _BARE.get(hint, hint)
    members = _union_members(hint)
    if members is not None:
        if value is None and _NONE in members:
            return None
        rest = [m for m in members if m is not _NONE]
        if len(rest) == 1:
            return encode_typed(value, rest[0], path, depth)
        if all(m in _SCALARS for m in rest) and any(_scalar_fits(value, m) for m in rest):
            return json_data(value, path, depth)
        if all(m in _SCALARS for m in rest):
            raise _mismatch(path, " or ".join(m.__name__ for m in rest), value)
        raise _cannot(path, hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        if any(type(value) is type(a) and value == a for a in args):
            return json_data(value, path, depth)
        raise _mismatch(path, f"one of {args!r}", value)
    if origin is not None:
        return _encode_container(value, hint, origin, args, path, depth)
    if hint is None or hint is _NONE:
        if value is None:
            return None
        raise _mismatch(path, "None", value)
    if not isinstance(hint, type):
        raise _cannot(path, hint)
    if hint in _SCALARS:
        if _scalar_fits(value, hint):
            return json_data(value, path, depth)
        raise _mismatch(path, hint.__name__, value)
    if type(value) is not hint:
        raise _mismatch(path, hint.__qualname__, value)
    if dataclasses.is_dataclass(hint):
        if depth >= MAX_DEPTH:
            raise _deep(path)
        fields, hints, problem = _layout(hint)
        try:
            return {
                f.name: encode_typed(
                    getattr(value, f.name), hints.get(f.name, Any), (path, f.name), depth + 1
                )
                for f in fields
            }
        except SnapshotError as error:
            if not problem:
                raise
            raise SnapshotError(f"{error.reason}{problem}", field=error.field) from None
    if issubclass(hint, enum.Enum):
        member: Any = value
        return json_data(member.value, path, depth)
    if _named(hint) in _TEXT_TYPES:
        return value.isoformat() if hasattr(value, "isoformat") else str(value)
    raise _cannot(path, hint)


def _encode_container(
    value: Any, hint: Any, origin: Any, args: tuple[Any, ...], path: Path, depth: int
) -> Any:
    if depth >= MAX_DEPTH:
        raise _deep(path)
    if origin in _LISTS:
        if type(value) is not list:
            raise _mismatch(path, "a list", value)
        item = args[0] if args else Any
        return [encode_typed(v, item, (path, i), depth + 1) for i, v in enumerate(value)]
    if origin is tuple:
        if type(value) is not tuple:
            raise _mismatch(path, "a tuple", value)
        items = _tuple_items(args, len(value), path, value)
        return [
            encode_typed(v, t, (path, i), depth + 1)
            for i, (v, t) in enumerate(zip(value, items, strict=True))
        ]
    if origin in _SETS:
        if type(value) is not _SETS[origin]:
            raise _mismatch(path, _SETS[origin].__name__, value)
        import json  # see statewright._snapshot

        item = args[0] if args else Any
        encoded = [encode_typed(v, item, (path, i), depth + 1) for i, v in enumerate(value)]
        return sorted(encoded, key=lambda v: json.dumps(v, sort_keys=True))
    if origin in _DICTS:
        if type(value) is not dict:
            raise _mismatch(path, "a dict", value)
        key_type, item = args if args else (str, Any)
        out = {}
        for key, v in value.items():
            text = _encode_key(key, key_type, path)
            out[text] = encode_typed(v, item, (path, text), depth + 1)
        return out
    raise _cannot(path, hint)


def _tuple_items(args: tuple[Any, ...], size: int, path: Path, value: Any) -> tuple[Any, ...]:
    if len(args) == 2 and args[1] is Ellipsis:
        return (args[0],) * size
    if not args:
        return (Any,) * size
    if args == ((),):  # tuple[()]
        args = ()
    if len(args) != size:
        raise _mismatch(path, f"a tuple of {len(args)} items", value)
    return args


def _encode_key(key: Any, key_type: Any, path: Path) -> str:
    if key_type in (str, Any) and isinstance(key, str):
        return str.__str__(key)
    if key_type is int and isinstance(key, int) and not isinstance(key, bool):
        return str(int(key))
    enum_key = isinstance(key_type, type) and issubclass(key_type, enum.Enum)
    if enum_key and type(key) is key_type and type(key.value) is str:
        return str(key.value)
    raise SnapshotError(
        f"key {key!r:.60} cannot be stored for keys of type {key_type!r}", field=field_name(path)
    )


def decode_typed(data: Any, hint: Any, path: Path, depth: int) -> Any:
    """The inverse of :func:`encode_typed` for checked JSON ``data``."""
    if hint is Any or hint is object:
        return data
    hint = _BARE.get(hint, hint)
    members = _union_members(hint)
    if members is not None:
        if data is None and _NONE in members:
            return None
        rest = [m for m in members if m is not _NONE]
        if len(rest) == 1:
            return decode_typed(data, rest[0], path, depth)
        for member in rest:
            if member in _SCALARS and _scalar_fits(data, member):
                return data
        raise _mismatch(path, " or ".join(getattr(m, "__name__", repr(m)) for m in rest), data)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        if any(type(data) is type(a) and data == a for a in args):
            return data
        raise _mismatch(path, f"one of {args!r}", data)
    if origin is not None:
        return _decode_container(data, hint, origin, args, path, depth)
    if hint is None or hint is _NONE:
        if data is None:
            return None
        raise _mismatch(path, "null", data)
    if hint in _SCALARS:
        if _scalar_fits(data, hint):
            return float(data) if hint is float else data
        raise _mismatch(path, hint.__name__, data)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _decode_dataclass(data, hint, path, depth)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(data)
        except ValueError:
            raise _mismatch(path, f"a value of {hint.__qualname__}", data) from None
    if _named(hint) in _TEXT_TYPES:
        if type(data) is not str:
            raise _mismatch(path, f"a {hint.__qualname__} as a string", data)
        try:
            parse = getattr(hint, "fromisoformat", hint)
            value = parse(data)
        except (ValueError, ArithmeticError) as exc:
            raise _mismatch(path, f"a {hint.__qualname__} ({exc})", data) from None
        return value
    raise _cannot(path, hint)


def _decode_dataclass(data: Any, cls: type[Any], path: Path, depth: int) -> Any:
    if type(data) is not dict:
        raise _mismatch(path, f"an object for {cls.__qualname__}", data)
    fields, hints, problem = _layout(cls)
    names = {f.name for f in fields}
    for key in data:
        if key not in names:
            raise SnapshotError(
                f"{cls.__qualname__} has no such field (use a migration)",
                field=field_name((path, key)),
            )
    arguments: dict[str, Any] = {}
    later: dict[str, Any] = {}
    for f in fields:
        if f.name not in data:
            has_default = f.default is not dataclasses.MISSING
            if f.init and (has_default or f.default_factory is not dataclasses.MISSING):
                continue  # a field added since the snapshot was taken: its default
            raise SnapshotError("is missing", field=field_name((path, f.name)))
        value = decode_typed(data[f.name], hints.get(f.name, Any), (path, f.name), depth + 1)
        (arguments if f.init else later)[f.name] = value
    try:
        obj = cls(**arguments)
    except Exception as exc:
        raise SnapshotError(
            f"{cls.__qualname__}(...) raised {type(exc).__name__}: {exc}{problem}",
            field=field_name(path),
        ) from exc
    for name, value in later.items():
        object.__setattr__(obj, name, value)  # init=False fields, frozen classes too
    return obj


def _decode_container(
    data: Any, hint: Any, origin: Any, args: tuple[Any, ...], path: Path, depth: int
) -> Any:
    if origin in _DICTS:
        if type(data) is not dict:
            raise _mismatch(path, "an object", data)
        key_type, item = args if args else (str, Any)
        return {
            _decode_key(key, key_type, path): decode_typed(v, item, (path, key), depth + 1)
            for key, v in data.items()
        }
    if type(data) is not list:
        raise _mismatch(path, "an array", data)
    if origin in _LISTS:
        item = args[0] if args else Any
        return [decode_typed(v, item, (path, i), depth + 1) for i, v in enumerate(data)]
    if origin is tuple:
        items = _tuple_items(args, len(data), path, data)
        return tuple(
            decode_typed(v, t, (path, i), depth + 1)
            for i, (v, t) in enumerate(zip(data, items, strict=True))
        )
    if origin in _SETS:
        item = args[0] if args else Any
        try:
            values = _SETS[origin](
                decode_typed(v, item, (path, i), depth + 1) for i, v in enumerate(data)
            )
        except TypeError as exc:  # unhashable items
            raise SnapshotError(f"cannot build a set: {exc}", field=field_name(path)) from None
        if len(values) != len(data):
            raise SnapshotError("a set with duplicate items", field=field_name(path))
        return values
    raise _cannot(path, hint)


def _decode_key(key: str, key_type: Any, path: Path) -> Any:
    if key_type in (str, Any):
        return key
    if key_type is int:
        try:
            number = int(key)
        except ValueError:
            number = None
        if number is not None and str(number) == key:
            return number
    elif isinstance(key_type, type) and issubclass(key_type, enum.Enum):
        try:
            return key_type(key)
        except ValueError:
            pass
    raise SnapshotError(
        f"key {key!r:.60} is not a {getattr(key_type, '__name__', key_type)}",
        field=field_name(path),
    )

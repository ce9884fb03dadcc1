"""What the data model stores: JSON data within bounds, copied when it is stored, and its form
in a snapshot.

A data field holds JSON data: ``None``, ``bool``, ``int``, finite ``float``, ``str``, and lists
and dicts (string keys) of those. Storing a value (an assignment, a ``foreach`` item, a made-up
send id, a sent event's data) takes a checked copy (:func:`stored`): two fields never share a
list (a snapshot could not keep that), and a loop cannot grow the data without bound. What
breaks a bound is an error of the step that stored it (``error.execution``):

* an integer of more than :data:`~statewright._jsondata.MAX_INT_BITS` bits (what snapshots take);
* containers nested more than :data:`MAX_NESTING` deep;
* a list or dict of more than :data:`MAX_ITEMS` items (an item assignment checks the container
  it grows too);
* more than :data:`MAX_SIZE` characters and items in one stored value, counted over all of it;
* a non-finite float, a non-string key, or anything that is not JSON data (a tuple, a set, an
  object).

A snapshot writes each field's value as it is (``"data": {"retries": 2}``), leaving out a field
that is unset (only one the data class does not set at construction: the data model's
``required`` flag is false); restoring checks each against the field's type (the payload shapes
of :mod:`statewright._payloads`) and these bounds, and a malformed one is a
:class:`~statewright.SnapshotError` naming ``data.<field>``. Initial data given to one instance
(``Machine(..., data={...})``) is checked the same way (:func:`initial_data`), a malformed value
an :class:`~statewright.InvalidData`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from statewright._errors import InvalidData, InvalidPayload, SnapshotError
from statewright._jsondata import MAX_INT_BITS, json_data

if TYPE_CHECKING:
    from statewright._data_spec import DataModel

__all__ = [
    "MAX_ITEMS",
    "MAX_NESTING",
    "MAX_SIZE",
    "check_growth",
    "decode_data",
    "encode_data",
    "initial_data",
    "stored",
]

#: Containers a stored value may nest.
MAX_NESTING: Final = 32
#: Items a stored list or dict may hold.
MAX_ITEMS: Final = 100_000
#: Characters (of strings and keys) and items one stored value may hold, counted over all of it.
MAX_SIZE: Final = 1_000_000


def stored(value: Any) -> Any:
    """A checked copy of ``value`` (see the module); ``ValueError`` or ``TypeError`` says what
    breaks a bound."""
    kind = type(value)
    if kind is int:  # the usual case first: counters
        if value.bit_length() > MAX_INT_BITS:
            raise ValueError(f"an integer of {value.bit_length()} bits is too long to store")
        return value
    if value is None or kind is bool:
        return value
    return _copy(value, 0, [MAX_SIZE])


def _copy(value: Any, depth: int, budget: list[int]) -> Any:
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        if value.bit_length() > MAX_INT_BITS:
            raise ValueError(f"an integer of {value.bit_length()} bits is too long to store")
        return value
    if kind is float:
        if value - value != 0.0:  # NaN and the infinities
            raise ValueError(f"{value!r} is not a finite number")
        return value
    if kind is str:
        _spend(budget, len(value))
        return value
    if kind is list or kind is dict:
        if depth >= MAX_NESTING:
            raise ValueError(f"the value nests more than {MAX_NESTING} containers deep")
        if len(value) > MAX_ITEMS:
            raise ValueError(f"a {kind.__name__} of {len(value)} items is longer than {MAX_ITEMS}")
        _spend(budget, len(value))
        if kind is list:
            return [_copy(item, depth + 1, budget) for item in value]
        copy = {}
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"a dict key must be a string, not {type(key).__name__}")
            _spend(budget, len(key))
            copy[key] = _copy(item, depth + 1, budget)
        return copy
    if isinstance(value, str):  # a StrEnum member, say: stored as the plain string
        return _copy(str.__str__(value), depth, budget)
    if isinstance(value, int):
        return _copy(int(value), depth, budget)
    if isinstance(value, float):
        return _copy(float(value), depth, budget)
    if isinstance(value, Mapping):  # an event's payload
        return _copy(dict(value), depth, budget)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _spend(budget: list[int], amount: int) -> None:
    budget[0] -= amount
    if budget[0] < 0:
        raise ValueError(f"the value holds more than {MAX_SIZE} characters and items")


def check_growth(container: dict[str, Any], key: str) -> None:
    """Before an item assignment adds ``key`` to ``container``: at most :data:`MAX_ITEMS`."""
    if key not in container and len(container) >= MAX_ITEMS:
        raise ValueError(f"a dict of {MAX_ITEMS} items cannot take another key")


# -- snapshots -----------------------------------------------------------------------------------
def encode_data(model: DataModel, data: Any) -> dict[str, Any]:
    """The ``data`` field of a snapshot: each field's value as JSON data (a copy). A field that
    is unset (a computed or late-bound one whose initializer has not run, or failed) is left
    out: only a field the data class does not set at construction may be."""
    root = ((), "data")
    encoded: dict[str, Any] = {}
    for name, _, _ in model.fields:
        value = getattr(data, name, _UNSET)
        if value is not _UNSET:
            encoded[name] = json_data(value, (root, name), 2)
    return encoded


_UNSET: Final = object()


def decode_data(value: Any, model: DataModel) -> Any:
    """A fresh data object holding the checked values of a snapshot's ``data`` field."""
    if type(value) is not dict:
        raise SnapshotError("expected an object", field="data")
    names = [name for name, _, _ in model.fields]
    missing = [name for name, _, required in model.fields if required and name not in value]
    if missing:
        raise SnapshotError("is missing", field=f"data.{missing[0]}")
    unknown = sorted(value.keys() - set(names))
    if unknown:
        raise SnapshotError("is not a data field", field=f"data.{unknown[0]}")
    data = model.factory()
    for field in model.fields:
        name = field[0]
        if name not in value:  # unset when saved (a field the data class leaves unset)
            continue
        try:
            item = _checked(field, value[name])
        except InvalidPayload as error:
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path)
            raise SnapshotError(error.reason, field=f"data{where}") from None
        except (ValueError, TypeError, ArithmeticError) as error:  # a bound; float() of 2**5000
            raise SnapshotError(str(error), field=f"data.{name}") from None
        setattr(data, name, item)
    return data


def _checked(field: tuple[str, tuple[Any, ...], bool], value: Any) -> Any:
    """A checked copy of ``value`` for the data field ``field``: :class:`InvalidPayload` when
    its type does not admit it, ``ValueError``/``TypeError`` when it breaks a bound."""
    from statewright._payloads import check_payload

    name = field[0]
    return stored(check_payload("data", (field,), {name: value})[name])


# -- initial data given to one instance ----------------------------------------------------------
def initial_data(model: DataModel | None, machine: str, values: object) -> dict[str, Any]:
    """Initial data given to one instance of ``machine`` (SCXML's ``<invoke>`` params): each
    value checked like a snapshot's (its field's type, the bounds above) and copied, by field
    name. Anything wrong is :class:`~statewright.InvalidData`: a name that is no data field, a
    value the field does not take, ``values`` not a mapping, or a machine without a data
    model."""
    if model is None:
        raise InvalidData(machine, (), f"{machine} has no data model (no [data] in its spec)")
    if not isinstance(values, Mapping):
        raise InvalidData(machine, (), "expected a mapping of data field names to values")
    fields = {field[0]: field for field in model.fields}
    checked: dict[str, Any] = {}
    for name, value in values.items():
        field = fields.get(name) if type(name) is str else None
        if field is None:
            known = ", ".join(sorted(fields))
            raise InvalidData(machine, (str(name),), f"is not a data field (fields: {known})")
        try:
            checked[name] = _checked(field, value)
        except InvalidPayload as error:
            raise InvalidData(machine, error.path, error.reason) from None
        except (ValueError, TypeError, ArithmeticError) as error:  # a bound; float() of 2**5000
            raise InvalidData(machine, (name,), str(error)) from None
    return checked

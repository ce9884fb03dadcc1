"""Payloads at the boundary: untrusted arguments checked against the spec's payload types.

An LLM's tool call, a webhook or a queue message names an event and carries arguments that no
type checker has seen. :func:`check_payload` checks them against the event's payload fields and
returns the payload handlers will get, or raises :class:`InvalidPayload` naming the field path;
:func:`payload_schema` describes the same fields as JSON Schema (draft 2020-12), so that a tool
definition and the check always agree (a test holds the two against a real JSON Schema validator).

Generated modules describe each event's payload as data: a field is ``(name, type, required)``
and a type is a small tuple, built at import without any class:

=========================== ===============================================================
``("str",)`` ...            ``str``, ``int``, ``float``, ``bool``, ``none``, ``object``, ``any``
``("list", T)``             a JSON array of ``T``
``("dict", T)``             a JSON object with values of ``T``
``("union", (T, ...))``     any of the alternatives, tried in order
``("literal", (v, ...))``   one of these strings, integers, booleans or ``None``
``("named", "mod.Name")``   an ``[imports]`` type, decoded by a :class:`PayloadCodec`
=========================== ===============================================================

JSON's rules hold: an integer may arrive as ``3.0``, a number as ``3``, and ``true`` is never a
number. Optional fields (their type admits ``None``) may be left out and then read ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from statewright._errors import InvalidPayload
from statewright._jsondata import refuse_constant

__all__ = [
    "BUILTIN_CODECS",
    "FieldShape",
    "InvalidPayload",
    "PayloadCodec",
    "TypeShape",
    "check_payload",
    "parse_arguments",
    "payload_schema",
]

TypeShape = tuple[Any, ...]
#: ``(field name, type, required)``.
FieldShape = tuple[str, TypeShape, bool]
#: Nesting a JSON value may have (deeper input is refused, not recursed into).
MAX_DEPTH: Final = 64


class PayloadCodec(Protocol):
    """Decodes the JSON form of an ``[imports]`` type, and describes that form."""

    #: The JSON Schema of the JSON form (what a tool definition shows).
    json_schema: Mapping[str, Any]

    def decode(self, value: Any, /) -> Any:
        """The value handlers get; raise ``ValueError`` or ``TypeError`` for a bad one."""
        ...


class _Codec:
    __slots__ = ("decode_value", "json_schema")

    def __init__(self, json_schema: Mapping[str, Any], decode: Callable[[Any], Any]) -> None:
        self.json_schema = json_schema
        self.decode_value = decode

    def decode(self, value: Any, /) -> Any:
        return self.decode_value(value)


#: A decimal number written as a string: what the Decimal codec accepts and its schema says.
_DECIMAL_PATTERN: Final = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"


def _decimal(value: Any) -> Any:
    import re
    from decimal import Decimal

    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise TypeError("expected a decimal number as a string or a number")
    if isinstance(value, str) and not re.fullmatch(_DECIMAL_PATTERN, value, re.ASCII):
        raise ValueError(f"{value!r} is not a decimal number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite number")
    return Decimal(str(value)) if isinstance(value, float) else Decimal(value)


def _iso(kind: str) -> Callable[[Any], Any]:
    def decode(value: Any) -> Any:
        import datetime

        if not isinstance(value, str):
            raise TypeError(f"expected an ISO 8601 {kind} string")
        return getattr(datetime, kind).fromisoformat(value)

    return decode


def _uuid(value: Any) -> Any:
    import uuid

    if not isinstance(value, str):
        raise TypeError("expected a UUID string")
    return uuid.UUID(value)


#: Codecs for common standard-library types; ``MachineOptions(payload_codecs=...)`` adds others.
BUILTIN_CODECS: Final[Mapping[str, PayloadCodec]] = {
    "decimal.Decimal": _Codec(
        {"anyOf": [{"type": "string", "pattern": _DECIMAL_PATTERN}, {"type": "number"}]},
        _decimal,
    ),
    "datetime.datetime": _Codec({"type": "string", "format": "date-time"}, _iso("datetime")),
    "datetime.date": _Codec({"type": "string", "format": "date"}, _iso("date")),
    "uuid.UUID": _Codec({"type": "string", "format": "uuid"}, _uuid),
}


def parse_arguments(
    event: str, arguments: Mapping[str, Any] | str | bytes | None
) -> Mapping[str, Any]:
    """Arguments as a mapping: JSON text is parsed (``NaN`` and ``Infinity`` refused)."""
    if arguments is None:
        return {}
    if isinstance(arguments, str | bytes):
        import json  # here, not at the top: building a machine imports this module

        try:
            arguments = json.loads(arguments, parse_constant=refuse_constant)
        except RecursionError:
            raise InvalidPayload(event, (), "the JSON nests too deeply") from None
        except ValueError as error:
            raise InvalidPayload(event, (), f"not valid JSON: {error}") from None
    if not isinstance(arguments, Mapping):
        raise InvalidPayload(event, (), f"expected a JSON object, got {_kind(arguments)}")
    return arguments


def check_payload(
    event: str,
    fields: Sequence[FieldShape],
    arguments: Mapping[str, Any],
    codecs: Mapping[str, PayloadCodec] = BUILTIN_CODECS,
) -> dict[str, Any]:
    """The payload for ``arguments``, every field present (optional ones default to ``None``),
    or :class:`InvalidPayload` for the first problem found."""
    known = {name for name, _, _ in fields}
    for name in arguments:
        if name not in known:
            reason = "is not a field" + (f" (fields: {', '.join(sorted(known))})" if known else "")
            raise InvalidPayload(event, (str(name),), reason)
    payload: dict[str, Any] = {}
    for name, shape, required in fields:
        if name not in arguments:
            if required:
                raise InvalidPayload(event, (name,), "is required")
            payload[name] = None
            continue
        payload[name] = _check(event, shape, arguments[name], (name,), codecs)
    return payload


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _check(
    event: str,
    shape: TypeShape,
    value: Any,
    path: tuple[str | int, ...],
    codecs: Mapping[str, PayloadCodec],
) -> Any:
    kind = shape[0]
    if len(path) > MAX_DEPTH:
        raise InvalidPayload(event, path, f"nests more than {MAX_DEPTH} levels deep")
    if kind in ("any", "object"):
        return _json_value(event, value, path)
    if kind == "str" and isinstance(value, str):
        return value
    if kind == "int" and _is_integer(value):
        return int(value)
    if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidPayload(event, path, "expected a finite number")
        return float(value)
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "none" and value is None:
        return None
    if kind == "list" and isinstance(value, list):
        return [_check(event, shape[1], item, (*path, i), codecs) for i, item in enumerate(value)]
    if kind == "dict" and isinstance(value, Mapping):
        checked = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidPayload(event, path, f"keys must be strings, not {key!r}")
            checked[key] = _check(event, shape[1], item, (*path, key), codecs)
        return checked
    if kind == "literal":
        for allowed in shape[1]:
            if _same_literal(value, allowed):
                return allowed
        options = ", ".join(_json(v) for v in shape[1])
        raise InvalidPayload(event, path, f"expected one of {options}, got {_show(value)}")
    if kind == "union":
        errors = []
        for alternative in shape[1]:
            try:
                return _check(event, alternative, value, path, codecs)
            except InvalidPayload as error:
                errors.append(error.reason)
        raise InvalidPayload(event, path, " or ".join(dict.fromkeys(errors)))
    if kind == "named":
        codec = codecs.get(shape[1])
        if codec is None:
            raise InvalidPayload(
                event, path, f"no codec for {shape[1]}: pass MachineOptions(payload_codecs=...)"
            )
        try:
            return codec.decode(value)
        except (ValueError, TypeError, ArithmeticError) as error:
            raise InvalidPayload(event, path, f"not a valid {shape[1]}: {error}") from None
    raise InvalidPayload(event, path, f"expected {_EXPECTED.get(kind, kind)}, got {_show(value)}")


_EXPECTED: Final = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "a boolean",
    "none": "null",
    "list": "an array",
    "dict": "an object",
}


def _same_literal(value: Any, allowed: Any) -> bool:
    """JSON equality: ``1`` and ``1.0`` are the same number, ``true`` is not ``1``."""
    if isinstance(allowed, bool) or isinstance(value, bool) or allowed is None or value is None:
        return value is allowed
    if isinstance(allowed, int):
        return _is_integer(value) and int(value) == allowed
    return isinstance(value, str) and value == allowed


def _json(value: Any) -> str:
    import json  # see parse_arguments

    return json.dumps(value)


def _show(value: Any) -> str:
    text = _json(value) if _is_json(value) else repr(value)
    return f"{_kind(value)} {text[:40] + '...' if len(text) > 40 else text}"


def _is_json(value: Any) -> bool:
    import json  # see parse_arguments

    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _json_value(event: str, value: Any, path: tuple[str | int, ...]) -> Any:
    """Any JSON value (``object``/``Any`` fields), checked to be JSON and not too deep."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidPayload(event, path, "expected a finite number")
        return value
    if len(path) > MAX_DEPTH:
        raise InvalidPayload(event, path, f"nests more than {MAX_DEPTH} levels deep")
    if isinstance(value, list):
        return [_json_value(event, item, (*path, i)) for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        return {
            str(key): _json_value(event, item, (*path, str(key))) for key, item in value.items()
        }
    raise InvalidPayload(event, path, f"expected a JSON value, got {type(value).__name__}")


def payload_schema(
    fields: Sequence[FieldShape], codecs: Mapping[str, PayloadCodec] = BUILTIN_CODECS
) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the arguments :func:`check_payload` accepts."""
    return {
        "type": "object",
        "properties": {name: _schema(shape, codecs) for name, shape, _ in fields},
        "required": [name for name, _, required in fields if required],
        "additionalProperties": False,
    }


def _schema(shape: TypeShape, codecs: Mapping[str, PayloadCodec]) -> dict[str, Any]:
    kind = shape[0]
    simple = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
              "none": "null"}  # fmt: skip
    if kind in simple:
        return {"type": simple[kind]}
    if kind in ("any", "object"):
        return {}
    if kind == "list":
        return {"type": "array", "items": _schema(shape[1], codecs)}
    if kind == "dict":
        return {"type": "object", "additionalProperties": _schema(shape[1], codecs)}
    if kind == "literal":
        return {"enum": list(shape[1])}
    if kind == "union":
        return {"anyOf": [_schema(alternative, codecs) for alternative in shape[1]]}
    codec = codecs.get(shape[1])
    return (
        dict(codec.json_schema) if codec is not None else {"description": f"{shape[1]} (no codec)"}
    )

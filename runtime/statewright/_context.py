"""A machine's context in a snapshot, and back: JSON on the wire, an equal value on restore.

Three ways, in this order:

* ``options.codec``: ``encode(context)`` must return JSON data (checked), ``decode(data)`` gets
  it back; either raising is a :class:`SnapshotError` naming ``context``.
* A dataclass instance: each field is written by its *declared* type and read back by the same
  type (:mod:`statewright._dataclass_json`), so the restored context equals the saved one.
* Anything else must be plain JSON data: ``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
  finite ``float``, ``bool``, ``None`` (checked; a tuple would come back as a list, so it is
  refused).

Imported where snapshots are taken and restored (it imports dataclasses).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING, Any, Final

from statewright._dataclass_json import decode_typed, encode_typed
from statewright._errors import SnapshotError
from statewright._jsondata import Path, json_data

if TYPE_CHECKING:
    from statewright._options import MachineOptions

__all__ = ["decode_context", "encode_context", "type_name"]

CONTEXT: Final[Path] = ((), "context")


def type_name(cls: type[Any]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _loaded_type(name: str) -> type[Any] | None:
    """Find a class by ``module:qualname`` among *already imported* modules (never imports)."""
    module_name, _, qualname = name.partition(":")
    obj: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None


def encode_context(context: Any, options: MachineOptions) -> tuple[Any, str | None]:
    """``(JSON data, context_type)`` for the snapshot, or :class:`SnapshotError`."""
    codec = options.codec
    if codec is not None:
        try:
            data = codec.encode(context)
        except Exception as exc:
            raise _codec_failed("encode", exc) from exc
        return json_data(data, CONTEXT, 1), None
    if dataclasses.is_dataclass(context) and not isinstance(context, type):
        cls = type(context)
        return encode_typed(context, cls, CONTEXT, 1), type_name(cls)
    try:
        return json_data(context, CONTEXT, 1), None
    except SnapshotError as error:
        raise SnapshotError(
            f"{error.reason}; pass MachineOptions(codec=...) to encode the context",
            field=error.field,
        ) from None


def decode_context(data: Any, recorded_type: str | None, options: MachineOptions) -> Any:
    """The context for checked JSON ``data``, or :class:`SnapshotError`."""
    if options.codec is not None:
        try:
            return options.codec.decode(data)
        except Exception as exc:
            raise _codec_failed("decode", exc) from exc
    cls = options.context_type
    if cls is None and recorded_type is not None:
        cls = _loaded_type(recorded_type)
        if cls is None or not dataclasses.is_dataclass(cls):
            raise SnapshotError(
                f"class {recorded_type} is not a dataclass in the loaded modules; "
                "pass MachineOptions(context_type=...) or restore(..., context=...)",
                field="context_type",
            )
    if cls is not None and dataclasses.is_dataclass(cls):
        return decode_typed(data, cls, CONTEXT, 1)
    return data


def _codec_failed(step: str, exc: Exception) -> SnapshotError:
    return SnapshotError(
        f"the context codec's {step} raised {type(exc).__name__}: {exc}", field="context"
    )

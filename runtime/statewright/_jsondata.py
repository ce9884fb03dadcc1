"""JSON data as snapshots and stores accept it, and nothing else.

``json`` on its own lets through what later breaks a snapshot: ``NaN`` and ``Infinity`` (and
``1e400``, which parses as infinity), keys that are not strings (silently turned into strings),
tuples (which come back as lists), integers too long to print, and nesting deep enough to raise
``RecursionError`` in whoever walks the data next. Here every value is checked once, with the path
of the first offending one in the :class:`SnapshotError`:

* ``None``, ``bool``, ``str``, ``int`` (at most :data:`MAX_INT_BITS` bits), finite ``float``;
* ``list`` and ``dict`` with ``str`` keys, nested at most :data:`MAX_DEPTH` containers deep.

Subclasses of ``str``, ``int`` and ``float`` (a ``StrEnum`` member, say) are copied as the plain
value JSON would write for them. Imported where snapshots are taken, restored or stored.
"""

from __future__ import annotations

from typing import Any, Final

from statewright._errors import SnapshotError

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "field_name",
    "json_data",
    "json_decoder",
    "parse_json_text",
    "parse_own_json",
    "refuse_constant",
]

#: Containers a document may nest (the snapshot object itself is one).
MAX_DEPTH: Final = 100
#: About 3900 decimal digits: CPython (3.11+) refuses to print integers over 4300 digits.
MAX_INT_BITS: Final = 13_000

#: ``(parent, key)`` links: a path built without formatting anything until an error needs it.
Path = tuple[Any, ...]


def field_name(path: Path) -> str:
    """``("history", 3, "epoch")`` as ``history[3].epoch``."""
    parts: list[Any] = []
    while path:
        path, key = path
        parts.append(key)
    text = ""
    for key in reversed(parts):
        if isinstance(key, int):
            text += f"[{key}]"
        elif key.isidentifier():
            text += f".{key}" if text else key
        else:
            text += f"[{key!r}]"
    return text


def json_data(value: Any, path: Path = (), depth: int = 0) -> Any:
    """A checked copy of ``value``; ``depth`` counts the containers around it."""
    if value is None or value is True or value is False:
        return value
    kind = type(value)
    if kind is str:
        return value
    if kind is int:
        if value.bit_length() > MAX_INT_BITS:
            raise SnapshotError("the integer is too long to store", field=field_name(path))
        return value
    if kind is float:
        if value - value != 0.0:  # NaN and the infinities; cheaper than math.isfinite
            raise SnapshotError(f"{value!r} is not a JSON number", field=field_name(path))
        return value
    if kind is dict or kind is list:
        if depth >= MAX_DEPTH:
            raise SnapshotError(
                f"nests more than {MAX_DEPTH} levels deep", field=field_name(path) or "snapshot"
            )
        if kind is list:
            return [json_data(item, (path, i), depth + 1) for i, item in enumerate(value)]
        copy = {}
        for key, item in value.items():
            if type(key) is not str:
                if not isinstance(key, str):
                    raise SnapshotError(
                        f"key {key!r} is not a string", field=field_name(path) or "snapshot"
                    )
                key = str.__str__(key)
            copy[key] = json_data(item, (path, key), depth + 1)
        return copy
    return _subclass_value(value, path, depth)


def _subclass_value(value: Any, path: Path, depth: int) -> Any:
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return json_data(int(value), path, depth)
    if isinstance(value, float):
        return json_data(float(value), path, depth)
    if isinstance(value, dict):
        return json_data(dict(value), path, depth)
    if isinstance(value, tuple):
        reason = "is a tuple, which JSON stores as a list: use a list"
    else:
        reason = f"{type(value).__name__} is not JSON data"
    raise SnapshotError(reason, field=field_name(path) or "snapshot")


def parse_json_text(text: str | bytes | bytearray, where: str) -> Any:
    """Parse and check JSON text; anything wrong with it is a :class:`SnapshotError`."""
    import json  # here, not at the top: see statewright._snapshot

    try:
        data = json.loads(text, parse_constant=refuse_constant)
    except RecursionError:
        raise SnapshotError(f"{where} nests too deeply to parse") from None
    except (ValueError, UnicodeDecodeError, TypeError) as exc:
        raise SnapshotError(f"{where} is not valid JSON (corrupted or truncated): {exc}") from exc
    return json_data(data)


def parse_own_json(text: str | bytes | bytearray, where: str) -> Any:
    """Parse JSON text the runtime wrote itself, which a checksum vouches for: it was checked
    when it was written (:func:`json_data`), so it is parsed and not walked again. Text that
    does not parse is still a :class:`SnapshotError`, never a traceback.

    The runtime writes no whitespace around a document, so its text is handed to the decoder's
    scanner directly (``JSONDecoder.decode`` is two Python calls and two regular expressions
    around it); anything else, and any error, takes ``decode``, which says what is wrong."""
    decoder = json_decoder()
    try:
        string = text if isinstance(text, str) else bytes(text).decode()
        try:
            value, end = decoder.scan_once(string, 0)
            if end == len(string):
                return value
        except StopIteration:  # no JSON value at the start: decode names the error
            pass
        return decoder.decode(string)
    except RecursionError:
        raise SnapshotError(f"{where} nests too deeply to parse") from None
    except (ValueError, UnicodeDecodeError, TypeError) as exc:
        raise SnapshotError(f"{where} is not valid JSON (corrupted or truncated): {exc}") from exc


def json_decoder() -> Any:
    """One ``json.JSONDecoder`` refusing NaN (``json.loads`` with an option builds one per
    call), built on first use: ``json`` is imported where snapshots are read."""
    global _DECODER
    if _DECODER is None:
        import json

        _DECODER = json.JSONDecoder(parse_constant=refuse_constant)
    return _DECODER


_DECODER: Any = None


def refuse_constant(name: str) -> Any:
    """``json.loads``'s ``parse_constant``: NaN and the infinities are no JSON numbers."""
    raise ValueError(f"{name} is not a JSON number")

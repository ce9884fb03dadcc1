"""statewright names for SCXML ids and event names.

An SCXML id or event name that is already a valid statewright name keeps it; any other (a Python
keyword such as ``pass``, a dotted or dashed name, no id at all) gets an identifier derived from
it, and the SCXML text stays the state's or event's ``value``, which is what snapshots, logs and
event descriptors see. Derived names never take a name another id or event already has as
written, and every form the compiler derives from a name (the enum member, an event's method and
payload class) stays unique, so the spec the importer writes always compiles.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Sequence
from typing import Final

from statewright_compiler.check.collisions import CLASS_SUFFIXES
from statewright_compiler.spec.naming import MODULE_NAMES, camel_case, is_identifier
from statewright_compiler.spec.read_events import RESERVED_METHOD_NAMES

__all__ = ["TimerNames", "event_names", "machine_name", "module_name", "state_names"]

_NOT_IDENTIFIER: Final = re.compile(r"[^A-Za-z0-9_]+")
_WORDS: Final = re.compile(r"[A-Za-z0-9]+")


def _is_keyword(name: str) -> bool:
    return keyword.iskeyword(name) or keyword.issoftkeyword(name)


def _identifier(text: str, prefix: str) -> str:
    """``text`` with every run of other characters as ``_``, starting with a letter."""
    name = _NOT_IDENTIFIER.sub("_", text)
    if not name[:1].isalpha():
        name = f"{prefix}_{name}".rstrip("_") if name.strip("_") else prefix
    return name


class _Namer:
    """Hands out names whose derived forms are all unique, avoiding ``reserved`` texts."""

    def __init__(self, reserved: Iterable[str]) -> None:
        self.reserved = set(reserved)
        self.forms: set[str] = set()

    def forms_of(self, name: str) -> tuple[str, ...]:
        return (name.upper(),)

    def acceptable(self, name: str) -> bool:
        return not _is_keyword(name) and not name.startswith("_")

    def free(self, name: str, own: str | None) -> bool:
        if name != own and name in self.reserved:
            return False
        return self.acceptable(name) and not self.forms.intersection(self.forms_of(name))

    def take(self, name: str) -> str:
        self.forms.update(self.forms_of(name))
        return name

    def keep(self, text: str) -> str | None:
        """``text`` itself when it is a free, valid name."""
        if is_identifier(text) and self.free(text, text):
            return self.take(text)
        return None

    def derive(self, text: str | None, prefix: str) -> str:
        base = _identifier(text, prefix) if text else prefix
        if not self.acceptable(base):  # a keyword, or a name the runtime's Machine has
            base += "_"
        candidate, number = base, 1
        while not self.free(candidate, None):  # ends: each name takes finitely many forms
            number += 1
            candidate = f"{base}_{number}"
        return self.take(candidate)


class _EventNamer(_Namer):
    def forms_of(self, name: str) -> tuple[str, ...]:
        return (name.upper(), name.lower(), camel_case(name).lower())

    def acceptable(self, name: str) -> bool:
        method = name.lower()
        return (
            super().acceptable(name)
            and not _is_keyword(method)
            and method not in RESERVED_METHOD_NAMES
        )


def state_names(ids: Sequence[str | None]) -> list[str]:
    """A name per node: its id when valid, else derived (``state`` for a node without id)."""
    namer = _Namer(identifier for identifier in ids if identifier is not None)
    names: list[str | None] = [
        namer.keep(identifier) if identifier is not None else None for identifier in ids
    ]
    return [
        name if name is not None else namer.derive(identifier, "state")
        for name, identifier in zip(names, ids, strict=True)
    ]


def event_names(values: Sequence[str], taken: Iterable[str] = ()) -> dict[str, str]:
    """A name per event value, as :func:`state_names` does for ids, none of them clashing
    with the names ``taken`` (events the compiler declares itself)."""
    namer = _EventNamer(values)
    for name in taken:
        namer.take(name)
    kept = {value: namer.keep(value) for value in values}
    return {value: name or namer.derive(value, "event") for value, name in kept.items()}


class _TimerNamer(_Namer):
    def forms_of(self, name: str) -> tuple[str, ...]:
        return (name,)


class TimerNames:
    """Timer ids for ``<send>`` ids, and a fresh one for each ``<send>`` without one."""

    def __init__(self, ids: Iterable[str]) -> None:
        written = list(dict.fromkeys(ids))
        self.namer = _TimerNamer(written)
        kept = {identifier: self.namer.keep(identifier) for identifier in written}
        self.names = {key: name or self.namer.derive(key, "timer") for key, name in kept.items()}

    def of(self, identifier: str | None) -> str:
        return self.names[identifier] if identifier is not None else self.namer.derive(None, "send")


def module_name(stem: str) -> str:
    """A Python module name from a chart's file name (``test192``; ``my-chart``: ``my_chart``):
    what its children's modules are named after."""
    name = _identifier(stem, "chart")
    return f"{name}_" if _is_keyword(name) else name


def machine_name(name: str | None, stem: str) -> str:
    """A PascalCase class prefix from ``<scxml name>``, else from the file name, whose classes
    (``<name>Machine``, ...) are not names the generated module imports (``ChartMachine``)."""
    text = name or stem
    if is_identifier(text) and text[0].isupper() and not _is_keyword(text):
        words = text
    else:
        words = "".join(word[0].upper() + word[1:] for word in _WORDS.findall(text))
        if not words[:1].isalpha():
            words = f"Scxml{words}"
        if _is_keyword(words):
            words = f"{words}Chart"
    if any(f"{words}{suffix}" in MODULE_NAMES for suffix in CLASS_SUFFIXES):
        words = f"Scxml{words}"
    return words

"""SCXML event descriptors (``"*"``, ``"error"``, ``"error.*"``, several separated by spaces),
resolved when a chart compiles: each becomes the set of declared events whose *values* it matches.

Resolving them at compile time keeps the runtime a set lookup and lets the handler protocols be
typed by the payloads of exactly the events a transition can take.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["EVENT_NAME", "DescriptorError", "is_descriptor", "matches", "parse_descriptor"]

_NAME: Final = r"[A-Za-z0-9_\-:]+(?:\.[A-Za-z0-9_\-:]+)*"
#: An SCXML event name: dot-separated tokens.
EVENT_NAME: Final = re.compile(_NAME)
_TOKEN: Final = re.compile(rf"{_NAME}(?:\.\*|\.)?|\*")


class DescriptorError(ValueError):
    """Descriptor text that is not one; ``offset`` is the 0-based offset of the bad token."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def is_descriptor(text: str) -> bool:
    """Whether an ``on`` key is written as a descriptor rather than an event's name."""
    return any(character in text for character in "*. \t")


def parse_descriptor(text: str) -> tuple[str, ...]:
    """The descriptor's prefixes: ``"error.*"`` and ``"error."`` become ``"error"``."""
    tokens: list[str] = []
    position = 0
    for match in re.finditer(r"\S+", text):
        token = match.group()
        position = match.start()
        if _TOKEN.fullmatch(token) is None:
            raise DescriptorError(f"{token!r} is not an event descriptor", position)
        tokens.append(token if token == "*" else token.removesuffix("*").removesuffix("."))
    if not tokens:
        raise DescriptorError("empty event descriptor", 0)
    return tuple(dict.fromkeys(tokens))


def matches(prefixes: Iterable[str], value: str) -> bool:
    """SCXML 3.12.1: a descriptor matches an event whose name is one of its prefixes or starts
    with one followed by a dot; ``*`` matches every event."""
    return any(
        prefix == "*" or value == prefix or value.startswith(prefix + ".") for prefix in prefixes
    )

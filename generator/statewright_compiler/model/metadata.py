"""Metadata values: free-form facts a spec attaches to the machine, its states, events and rules,
shown in docs."""

from __future__ import annotations

__all__ = ["MetadataValue"]

#: A metadata value as written in TOML: text, a number, a flag, or a list of those.
MetadataValue = str | int | float | bool | tuple["MetadataValue", ...]

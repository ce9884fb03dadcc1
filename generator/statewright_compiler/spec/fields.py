"""Typed access to a spec's TOML tables: every wrong key, type or name becomes a diagnostic and
the value is replaced by a default, so that the shape pass reads on and reports everything."""

from __future__ import annotations

import keyword
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from statewright_compiler.diagnostics import did_you_mean
from statewright_compiler.model import MetadataValue
from statewright_compiler.spec.naming import is_identifier
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import Reporter, describe_type
from statewright_compiler.spec.schema import allowed_keys, required_keys

__all__ = ["HANDLER_ROLES", "FieldReader"]

#: What :meth:`FieldReader.name` calls names that become methods of the user's handlers object.
HANDLER_ROLES: Final = frozenset({"action"})


class FieldReader:
    """Reads fields of the spec's tables, reporting what is wrong and defaulting it."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.module_stem = Path(reporter.source.path).stem

    def check_keys(self, table: Mapping[str, Any], path: KeyPath, definition: str) -> bool:
        """Report unknown and missing keys; whether every key of ``table`` is known."""
        allowed = allowed_keys(definition)
        known = True
        for key in table:
            if key not in allowed:
                known = False
                hint = did_you_mean(key, allowed) or f"allowed keys: {', '.join(allowed)}"
                self.reporter.report(
                    "unknown-key", (*path, key), f"unknown key {key!r}", hint, key=True
                )
        for key in required_keys(definition):
            if key not in table:
                where = "".join(
                    f"[{part}]" if isinstance(part, int) else f".{part}" for part in path
                ).lstrip(".")
                self.reporter.report(
                    "missing-key", path, f"{where or 'the spec'} needs the key {key!r}", key=True
                )
        return known

    @staticmethod
    def keys_known(table: Mapping[str, Any], definition: str) -> bool:
        """Whether every key of ``table`` is one ``definition`` allows (reported elsewhere)."""
        return set(table) <= set(allowed_keys(definition))

    def typed(self, value: object, path: KeyPath, expected: type, what: str) -> bool:
        if isinstance(value, expected) and not (expected is int and isinstance(value, bool)):
            return True
        self.reporter.report(
            "wrong-type",
            path,
            f"{what} must be {describe_type(expected())}, not {describe_type(value)}",
        )
        return False

    def table(self, parent: Mapping[str, Any], key: str, path: KeyPath) -> dict[str, Any]:
        value = parent.get(key, {})
        return value if self.typed(value, (*path, key), dict, repr(key)) else {}

    def text(self, parent: Mapping[str, Any], key: str, path: KeyPath, default: str = "") -> str:
        value = parent.get(key, default)
        return value if self.typed(value, (*path, key), str, repr(key)) else default

    def flag(self, parent: Mapping[str, Any], key: str, path: KeyPath) -> bool:
        value = parent.get(key, False)
        return value if self.typed(value, (*path, key), bool, repr(key)) else False

    def name(self, value: object, path: KeyPath, what: str) -> str | None:
        """An ASCII identifier that is not a Python keyword, or None (reported).

        Action names (methods of the user's handlers object) may not start with ``_``: Python
        gives those special meanings (``__class__`` exists on every object, ``__x`` is
        name-mangled in a class body, ``_is_protocol`` belongs to ``Protocol``).
        """
        if not self.typed(value, path, str, what):
            return None
        assert isinstance(value, str)
        if not is_identifier(value):
            self.reporter.report(
                "invalid-name",
                path,
                f"{what} {value!r} is not a valid name",
                "names are ASCII identifiers: letters, digits and '_', not starting with a digit",
            )
            return None
        if keyword.iskeyword(value) or keyword.issoftkeyword(value):
            self.reporter.report(
                "invalid-name", path, f"{what} {value!r} is a Python keyword", "choose another name"
            )
            return None
        if what in HANDLER_ROLES and value.startswith("_"):
            self.reporter.report(
                "invalid-name",
                path,
                f"{what} {value!r} starts with '_'",
                "handler methods are public names: Python reserves leading underscores",
            )
            return None
        return value

    def names(
        self, parent: Mapping[str, Any], key: str, path: KeyPath, what: str
    ) -> tuple[str, ...]:
        """A list of names; duplicates are reported and dropped."""
        values = parent.get(key, [])
        if not self.typed(values, (*path, key), list, repr(key)):
            return ()
        names: dict[str, None] = {}  # ordered, and a membership test in O(1)
        for index, value in enumerate(values):
            name = self.name(value, (*path, key, index), what)
            if name is None:
                continue
            if name in names:
                self.reporter.report(
                    "duplicate-name", (*path, key, index), f"{what} {name!r} is listed twice"
                )
                continue
            names[name] = None
        return tuple(names)

    def metadata(
        self, parent: Mapping[str, Any], path: KeyPath
    ) -> tuple[tuple[str, MetadataValue], ...]:
        table = self.table(parent, "metadata", path)
        entries: list[tuple[str, MetadataValue]] = []
        for key, value in table.items():
            converted = self.metadata_value(value, (*path, "metadata", key))
            if converted is not None:
                entries.append((key, converted))
        return tuple(entries)

    def metadata_value(self, value: object, path: KeyPath) -> MetadataValue | None:
        if isinstance(value, str | int | float | bool):
            return value
        if isinstance(value, list):
            items = [self.metadata_value(item, (*path, index)) for index, item in enumerate(value)]
            return tuple(item for item in items if item is not None)
        self.reporter.report(
            "wrong-type",
            path,
            f"metadata values are strings, numbers, booleans or arrays of "
            f"them, not {describe_type(value)}",
        )
        return None

    def table_array(
        self, document: Mapping[str, Any], key: str, definition: str, what: str
    ) -> Iterator[tuple[KeyPath, dict[str, Any]]]:
        """Each well-formed table of the array of tables ``[[key]]``, with its path."""
        entries = document.get(key, [])
        if not self.typed(entries, (key,), list, repr(key)):
            return
        for index, entry in enumerate(entries):
            path: KeyPath = (key, index)
            if self.typed(entry, path, dict, what):
                self.check_keys(entry, path, definition)
                yield path, entry

"""The shape pass over the data model's declarations: the machine's ``[data]`` and a state's
``data`` table (one field per line: ``name = { type = "...", initial = ... }``), and ``[machine]
binding``. Each field's type is read with the payload type grammar and its literal initial value
checked against it here; ``expr`` initial values are expressions, checked with the others."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from statewright_compiler.expressions.syntax import FUNCTIONS
from statewright_compiler.model import DataField, Expression, PayloadType, TomlValue
from statewright_compiler.spec.fields import FieldReader
from statewright_compiler.spec.payload_types import PayloadTypeError, parse_payload_type
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.reporter import describe_type, excerpt

__all__ = ["BINDINGS", "DataReader", "value_fits"]

#: ``[machine] binding``: when a state's own data fields get their initial values.
BINDINGS: Final = ("early", "late")


def value_fits(value: object, expected: PayloadType) -> bool:
    """Whether the TOML value ``value`` is a value of ``expected`` (as mypy would accept it as
    a literal of that type)."""
    kind = expected.kind
    if kind in ("any", "object"):
        return True
    if kind == "union":
        return any(value_fits(value, child) for child in expected.children)
    if kind == "literal":
        return any(type(value) is type(allowed) and value == allowed for allowed in expected.values)
    if isinstance(value, bool):
        return kind == "bool"
    if kind in ("int", "float") and isinstance(value, int):
        return True
    if kind == "float":
        return isinstance(value, float)
    if kind == "str":
        return isinstance(value, str)
    if kind == "list":
        return isinstance(value, list) and all(value_fits(i, expected.children[0]) for i in value)
    if kind == "dict":
        return isinstance(value, dict) and all(
            value_fits(item, expected.children[0]) for item in value.values()
        )
    return False  # none (TOML has no null) and imported types (no TOML literal makes one)


def _admits_none(expected: PayloadType) -> bool:
    alternatives = expected.children if expected.kind == "union" else (expected,)
    return any(
        alternative.kind in ("none", "any", "object")
        or (alternative.kind == "literal" and None in alternative.values)
        for alternative in alternatives
    )


def _plain(value: object) -> str | None:
    """Why ``value`` cannot be an initial value (a TOML date, a float that is not finite)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r} is not a finite number"
    if isinstance(value, list):
        return next((why for item in value if (why := _plain(item)) is not None), None)
    if isinstance(value, dict):
        return next((why for item in value.values() if (why := _plain(item)) is not None), None)
    if not isinstance(value, str | int | float | bool):
        return f"{describe_type(value)} is not a value a data field can hold"
    return None


class DataReader(FieldReader):
    """Data fields; every one found is collected in :attr:`data_fields` with its path."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Every field read, with where its name is written.
        self.data_fields: list[tuple[DataField, KeyPath]] = []

    def binding(self, machine: Mapping[str, Any]) -> str:
        text = self.text(machine, "binding", ("machine",), "early")
        if text not in BINDINGS:
            self.reporter.report(
                "wrong-type",
                ("machine", "binding"),
                f"unknown binding {text!r}",
                "early (every field initialized at start) or late (a state's, on first entry)",
            )
            return "early"
        return text

    def data_table(
        self,
        table: Mapping[str, Any],
        path: KeyPath,
        state: str | None,
        imported: Mapping[str, str],
    ) -> None:
        """The fields of ``[data]`` (``state`` None) or ``[states.<state>.data]``."""
        for key, body in table.items():
            field_path: KeyPath = (*path, key)
            name = self.field_name(key, field_path)
            if not self.typed(body, field_path, dict, f"data field {key!r}") or name is None:
                continue
            if not self.check_keys(body, field_path, "data_field"):
                continue  # a misspelt key (intial?) is the one error, not also a missing value
            field = self.data_field(name, body, field_path, state, imported)
            if field is not None:
                self.data_fields.append((field, field_path))

    def field_name(self, key: str, path: KeyPath) -> str | None:
        name = self.name(key, path, "data field")
        if name is None:
            return None
        if name.startswith("_") or name in FUNCTIONS:
            why = (
                "names starting with '_' are the system's (_event, _sessionid, _name)"
                if name.startswith("_")
                else f"{name}() is a function of the expression language"
            )
            self.reporter.report(
                "invalid-name", path, f"data field {name!r} is reserved: {why}", key=True
            )
            return None
        return name

    def data_field(
        self,
        name: str,
        body: Mapping[str, Any],
        path: KeyPath,
        state: str | None,
        imported: Mapping[str, str],
    ) -> DataField | None:
        if "type" not in body or not self.typed(body["type"], (*path, "type"), str, "'type'"):
            return None
        text = body["type"]
        try:
            parsed = parse_payload_type(text, imported)
        except PayloadTypeError as error:
            self.reporter.report(
                error.code,
                (*path, "type"),
                f"invalid type {excerpt(text)}: {error}",
                offset=error.offset + 1,
            )
            return None
        expr = None
        initial: TomlValue = None
        if "initial" in body and "expr" in body:
            self.reporter.report(
                "wrong-type",
                (*path, "expr"),
                f"data field {name!r} has both 'initial' and 'expr'",
                "a literal initial value, or an expression computed at initialization: one",
            )
            return None
        if "expr" in body:
            expr = self.expression(body, "expr", path, "initial value")
            if expr is None:
                return None
        elif "initial" in body:
            initial = body["initial"]
            if not self.initial_fits(name, initial, parsed.type, text, (*path, "initial")):
                return None
        elif not _admits_none(parsed.type):
            self.reporter.report(
                "type-error",
                path,
                f"data field {name!r} has no initial value, so it starts as None, which its "
                f"type {text!r} does not admit",
                f'give it one (initial = ...), or write type = "{text} | None"',
                key=True,
            )
            return None
        return DataField(
            name=name,
            type=parsed.type,
            annotation=parsed.annotation,
            initial=initial,
            expr=expr,
            description=self.text(body, "description", path),
            line=self.reporter.line(path),
            state=state,
            typing_names=parsed.typing_names,
            imported_names=parsed.names,
        )

    def initial_fits(
        self, name: str, value: object, expected: PayloadType, text: str, path: KeyPath
    ) -> bool:
        why = _plain(value)
        if why is None and not value_fits(value, expected):
            shown = excerpt(value) if isinstance(value, str) else describe_type(value)
            if isinstance(value, int | float) and not isinstance(value, bool):
                shown = repr(value)
            why = f"{shown} is not of type {text}"
            if expected.kind == "named":
                why += " (no TOML value makes an imported type: compute it with expr)"
        if why is None:
            return True
        self.reporter.report("type-error", path, f"the initial value of data field {name!r}: {why}")
        return False

    def expression(
        self, parent: Mapping[str, Any], key: str, path: KeyPath, role: str
    ) -> Expression | None:
        """The expression at ``parent[key]`` (a string: checked with the others later)."""
        value = parent.get(key)
        if not self.typed(value, (*path, key), str, repr(key)):
            return None
        assert isinstance(value, str)
        return Expression(value, (*path, key), role)

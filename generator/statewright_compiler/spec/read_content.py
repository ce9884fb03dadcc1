"""The shape pass over executable content written as a table: ``{ raise = ... }``,
``{ log = ... }``, ``{ send = ... }``, ``{ cancel = ... }`` and the data model's
``{ assign = ..., expr = ... }``, ``{ if = ..., then = [...] }`` and
``{ foreach = ..., item = ..., do = [...] }``. Which form a table is follows from its keys; every
expression in it is kept as text with its key path, for the check pass."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    Expression,
    ForeachStep,
    IfStep,
    LogStep,
    RaiseStep,
    SendStep,
    Step,
)
from statewright_compiler.spec.durations import DurationError, parse_duration
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.read_data import DataReader

__all__ = ["SEND_KEYS", "ContentReader"]

#: The keys a send may have; the first two name its event (one of them).
SEND_KEYS: Final = (
    "send",
    "eventexpr",
    "id",
    "idlocation",
    "delay",
    "delay_handler",
    "delayexpr",
    "on_restore",
    "data",
    "namelist",
    "content",
    "target",
    "targetexpr",
    "type",
    "typeexpr",
)
#: Keys of which a send may have one at most.
_EXCLUSIVE: Final = (
    ("send", "eventexpr"),
    ("id", "idlocation"),
    ("delay", "delay_handler", "delayexpr"),
    ("target", "targetexpr"),
    ("type", "typeexpr"),
    ("content", "data"),
    ("content", "namelist"),
)
_FORMS: Final = (
    "an action is a handler's name, { raise = ... }, { log = ..., label = ... }, "
    "{ log = ..., expr = ... }, { send = ..., ... }, { cancel = ... }, { cancel_expr = ... }, "
    "{ assign = ..., expr = ... }, { if = ..., then = [...] } or "
    "{ foreach = ..., item = ..., do = [...] }"
)


class ContentReader(DataReader):
    """Executable content as tables; every chart-only form found is noted in
    :attr:`chart_features`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Where the spec uses something only a statechart has (the first makes it a chart).
        self.chart_features: list[tuple[str, KeyPath]] = []

    if TYPE_CHECKING:

        def steps(self, parent: Mapping[str, Any], key: str, path: KeyPath) -> tuple[Step, ...]: ...

    def chart_feature(self, what: str, path: KeyPath) -> None:
        self.chart_features.append((what, path))

    def content(self, value: Mapping[str, Any], path: KeyPath) -> Step | None:
        """The step a table says, or None (reported)."""
        keys = set(value)
        if keys == {"raise"}:
            self.chart_feature("a raised event", path)
            event = self.name(value["raise"], (*path, "raise"), "raised event")
            return RaiseStep(event) if event is not None else None
        if "log" in keys and (keys <= {"log", "label"} or keys == {"log", "expr"}):
            self.chart_feature("a log step", path)
            if "expr" in keys:
                expr = self.expression(value, "expr", path, "logged value")
                label = self.text(value, "log", path)
                return LogStep("", label, expr) if expr is not None else None
            return LogStep(self.text(value, "log", path), self.text(value, "label", path))
        if keys & {"send", "eventexpr"} and keys <= set(SEND_KEYS):
            return self.send(value, path)
        if keys == {"cancel"}:
            self.chart_feature("a cancel step", path)
            timer_id = self.name(value["cancel"], (*path, "cancel"), "timer id")
            return CancelStep(timer_id) if timer_id is not None else None
        if keys == {"cancel_expr"}:
            self.chart_feature("a cancel step", path)
            expr = self.expression(value, "cancel_expr", path, "timer id")
            return CancelStep("", expr) if expr is not None else None
        if keys == {"assign", "expr"}:
            self.chart_feature("an assign step", path)
            location = self.expression(value, "assign", path, "location")
            expr = self.expression(value, "expr", path, "value")
            return AssignStep(location, expr) if location and expr else None
        if "if" in keys and keys <= {"if", "then", "elif", "else"}:
            return self.if_step(value, path)
        if "foreach" in keys and keys <= {"foreach", "item", "index", "do"}:
            return self.foreach(value, path)
        self.reporter.report(
            "wrong-type",
            path,
            f"{_FORMS}, not a table with the keys {', '.join(sorted(keys)) or 'none'}",
        )
        return None

    def if_step(self, value: Mapping[str, Any], path: KeyPath) -> Step | None:
        self.chart_feature("an if step", path)
        condition = self.expression(value, "if", path, "condition")
        branches = [(condition, self.steps(value, "then", path))]
        alternatives = value.get("elif", [])
        if self.typed(alternatives, (*path, "elif"), list, "'elif'"):
            for index, alternative in enumerate(alternatives):
                where: KeyPath = (*path, "elif", index)
                if not self.typed(alternative, where, dict, "an elif branch"):
                    continue
                self.check_keys(alternative, where, "elif_branch")
                test = self.expression(alternative, "if", where, "condition")
                branches.append((test, self.steps(alternative, "then", where)))
        otherwise = self.steps(value, "else", path)
        checked = [(test, steps) for test, steps in branches if test is not None]
        if len(checked) < len(branches):
            return None
        return IfStep(tuple(checked), otherwise)

    def foreach(self, value: Mapping[str, Any], path: KeyPath) -> Step | None:
        self.chart_feature("a foreach step", path)
        array = self.expression(value, "foreach", path, "array")
        if "item" not in value:
            self.reporter.report(
                "missing-key", path, "a foreach needs 'item': the data field each item is put in"
            )
            return None
        item = self.name(value["item"], (*path, "item"), "data field")
        index = (
            self.name(value["index"], (*path, "index"), "data field") if "index" in value else None
        )
        steps = self.steps(value, "do", path)
        if array is None or item is None or ("index" in value and index is None):
            return None
        return ForeachStep(array, item, index, steps)

    def send(self, value: Mapping[str, Any], path: KeyPath) -> Step | None:
        """A send: its event (``send`` or ``eventexpr``), its delay, id, data and target."""
        for group in _EXCLUSIVE:
            present = [key for key in group if key in value]
            if len(present) > 1:
                self.reporter.report(
                    "wrong-type",
                    (*path, present[1]),
                    f"a send has {' or '.join(repr(key) for key in group)}, not "
                    + " and ".join(repr(key) for key in present),
                )
                return None
        data_keys = set(value) - {"send", "id", "delay", "delay_handler", "on_restore"}
        self.chart_feature("a send with data" if data_keys else "a delayed send", path)
        event = self.name(value["send"], (*path, "send"), "sent event") if "send" in value else ""
        timer_id = self.name(value["id"], (*path, "id"), "timer id") if "id" in value else ""
        delay, handler, on_restore = self.send_delay(value, path)
        parts = {
            "event_expr": ("eventexpr", "event name"),
            "delay_expr": ("delayexpr", "delay"),
            "content": ("content", "content"),
            "target_expr": ("targetexpr", "target"),
            "type_expr": ("typeexpr", "type"),
        }
        expressions = {
            name: self.expression(value, key, path, role) if key in value else None
            for name, (key, role) in parts.items()
        }
        params = self.params(value.get("data", {}), (*path, "data"))
        namelist = self.names(value, "namelist", path, "data field")
        id_location = (
            self.name(value["idlocation"], (*path, "idlocation"), "data field")
            if "idlocation" in value
            else None
        )
        wrong = [key for key, (name, _) in parts.items() if name in value and not expressions[key]]
        if (
            event is None
            or timer_id is None
            or on_restore is None
            or params is None
            or wrong
            or ("idlocation" in value and id_location is None)
        ):
            return None
        return SendStep(
            event,
            timer_id,
            delay,
            handler,
            on_restore,
            id_location=id_location,
            params=params,
            namelist=namelist,
            target=self.text(value, "target", path) if "target" in value else None,
            type=self.text(value, "type", path) if "type" in value else None,
            event_expr=expressions["event_expr"],
            delay_expr=expressions["delay_expr"],
            content=expressions["content"],
            target_expr=expressions["target_expr"],
            type_expr=expressions["type_expr"],
        )

    def send_delay(
        self, value: Mapping[str, Any], path: KeyPath
    ) -> tuple[float | None, str | None, str | None]:
        """``delay`` (a duration, ``"0s"`` allowed) or ``delay_handler``, and ``on_restore``
        (None when wrong: reported)."""
        on_restore = self.on_restore(value, path)
        if on_restore is None:
            return None, None, None
        if "delay_handler" in value:
            handler = self.name(value["delay_handler"], (*path, "delay_handler"), "action")
            return None, handler, on_restore if handler is not None else None
        if "delay" not in value:
            return None, None, on_restore
        try:
            delay = parse_duration(self.text(value, "delay", path), allow_zero=True)
        except DurationError as error:
            self.reporter.report("invalid-timer", (*path, "delay"), str(error))
            return None, None, None
        return delay, None, on_restore

    def on_restore(self, table: Mapping[str, Any], path: KeyPath) -> str | None:
        """A timer's or delayed send's ``on_restore`` (``fire`` unless given); None when it is
        none of the three (reported)."""
        on_restore = self.text(table, "on_restore", path, "fire")
        if on_restore not in ("fire", "resume", "restart"):
            self.reporter.report(
                "wrong-type",
                (*path, "on_restore"),
                f"unknown on_restore {on_restore!r}",
                "one of: fire, resume, restart",
            )
            return None
        return on_restore

    def params(
        self, table: object, path: KeyPath, *, what: str = "'data'", field: str = "payload field"
    ) -> tuple[tuple[str, Expression], ...] | None:
        """``data = { name = EXPR, ... }`` (or an invoke's ``params``, ``what``, naming the
        child's data fields, ``field``): each name with its expression."""
        if not self.typed(table, path, dict, what):
            return None
        assert isinstance(table, dict)
        params: list[tuple[str, Expression]] = []
        for key in table:
            name = self.name(key, (*path, key), field)
            expression = self.expression(table, key, path, f"value of {key!r}")
            if name is None or expression is None:
                return None
            params.append((name, expression))
        return tuple(params)

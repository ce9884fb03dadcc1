"""The shape pass over what statecharts add to a table's fields: lists of executable content (a
handler's name, or a table: :mod:`read_content`), timers' delays, target lists and default
transitions (a state's ``initial``, a history state's ``default``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statewright_compiler.model import Step
from statewright_compiler.spec.declarations import RawTimer
from statewright_compiler.spec.durations import DurationError, parse_duration
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.read_content import ContentReader
from statewright_compiler.spec.reporter import describe_type

__all__ = ["StepReader"]


class StepReader(ContentReader):
    """Steps and targets; every chart-only form found is noted in :attr:`chart_features`."""

    def steps(self, parent: Mapping[str, Any], key: str, path: KeyPath) -> tuple[Step, ...]:
        """A list of steps; an action named twice is reported and dropped (raises may repeat)."""
        values = parent.get(key, [])
        if not self.typed(values, (*path, key), list, repr(key)):
            return ()
        steps: list[Step] = []
        for index, value in enumerate(values):
            item_path: KeyPath = (*path, key, index)
            if isinstance(value, dict):
                step = self.content(value, item_path)
                steps += [step] if step is not None else []
                continue
            name = self.name(value, item_path, "action")
            if name is None:
                continue
            if name in steps:
                self.reporter.report(
                    "duplicate-name", item_path, f"action {name!r} is listed twice"
                )
                continue
            steps.append(name)
        return tuple(steps)

    def timer(
        self, table: Mapping[str, Any], path: KeyPath, *, allow_zero: bool = False
    ) -> RawTimer | None:
        """``delay`` (a duration; ``"0s"`` only where ``allow_zero``: a sent event) or
        ``delay_handler`` (a handler returning seconds), exactly one, and ``on_restore``; None
        when wrong (reported)."""
        on_restore = self.on_restore(table, path)
        if on_restore is None:
            return None
        if ("delay" in table) == ("delay_handler" in table):
            self.reporter.report(
                "invalid-timer",
                path,
                "a timer needs exactly one of 'delay' (a duration) and 'delay_handler'",
                'e.g. delay = "30s", or delay_handler = "a_handler_returning_seconds"',
            )
            return None
        if "delay_handler" in table:
            handler = self.name(table["delay_handler"], (*path, "delay_handler"), "action")
            return RawTimer(None, handler, on_restore) if handler is not None else None
        text = self.text(table, "delay", path)
        try:
            return RawTimer(parse_duration(text, allow_zero=allow_zero), None, on_restore)
        except DurationError as error:
            self.reporter.report("invalid-timer", (*path, "delay"), str(error))
            return None

    def targets(self, value: object, path: KeyPath, what: str) -> tuple[str, ...] | None:
        """A state name or a list of them (charts); None when wrong (reported)."""
        if isinstance(value, str):
            name = self.name(value, path, what)
            return (name,) if name is not None else None
        if not isinstance(value, list):
            self.reporter.report(
                "wrong-type",
                path,
                f"{what} must be a state or an array of states, not {describe_type(value)}",
            )
            return None
        self.chart_feature("a list of targets", path)
        names: list[str] = []
        for index, item in enumerate(value):
            name = self.name(item, (*path, index), what)
            if name is None:
                return None
            if name in names:
                self.reporter.report(
                    "duplicate-name", (*path, index), f"{what} {name!r} is listed twice"
                )
                return None
            names.append(name)
        return tuple(names)

    def default_transition(
        self, parent: Mapping[str, Any], key: str, path: KeyPath, what: str
    ) -> tuple[tuple[str, ...], tuple[Step, ...]]:
        """A state's ``initial`` or a history state's ``default``: targets, and the steps taken
        with them (the table form); ``((), ())`` when absent or wrong."""
        value = parent.get(key)
        if value is None:
            return (), ()
        if isinstance(value, dict):
            self.check_keys(value, (*path, key), "default_transition")
            if "to" not in value:
                return (), ()
            targets = self.targets(value["to"], (*path, key, "to"), what)
            return targets or (), self.steps(value, "actions", (*path, key))
        return self.targets(value, (*path, key), what) or (), ()

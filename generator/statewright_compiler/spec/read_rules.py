"""The shape pass over transition rules (``on.<EVENT>`` and ``always`` in states,
``[[transitions]]``) and ``[[error_handlers]]``: selectors, triggers, targets, guards, steps."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from statewright_compiler.model import PREVIOUS_TARGET, GuardExpression, SourceSelector
from statewright_compiler.spec.declarations import RawErrorHandler, RawRule, RawState
from statewright_compiler.spec.descriptors import DescriptorError, is_descriptor, parse_descriptor
from statewright_compiler.spec.guards import (
    GuardSyntaxError,
    guard_names,
    guard_states,
    parse_guard,
)
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.read_steps import StepReader
from statewright_compiler.spec.reporter import excerpt

__all__ = ["RuleReader"]


class RuleReader(StepReader):
    """Transition rules and error handlers."""

    def selector(self, entry: Mapping[str, Any], path: KeyPath) -> SourceSelector | None:
        value = entry.get("from")
        excluded = self.names(entry, "except", path, "state")
        if isinstance(value, list):
            states = self.names(entry, "from", path, "state")
            if excluded:
                self.reporter.report(
                    "unknown-key",
                    (*path, "except"),
                    "'except' only applies to '*' and 'tag:...' selectors",
                    key=True,
                )
            return SourceSelector(states=states) if states else None
        if not self.typed(value, (*path, "from"), str, "'from'"):
            return None
        assert isinstance(value, str)
        if value == "*":
            return SourceSelector(any_state=True, excluded=excluded)
        if value.startswith("tag:"):
            tag = self.name(value[4:], (*path, "from"), "tag")
            return SourceSelector(tag=tag, excluded=excluded) if tag else None
        state = self.name(value, (*path, "from"), "state")
        if excluded:
            self.reporter.report(
                "unknown-key",
                (*path, "except"),
                "'except' only applies to '*' and 'tag:...' selectors",
                key=True,
            )
        return SourceSelector(states=(state,)) if state else None

    def alternative(
        self,
        body: Mapping[str, Any],
        path: KeyPath,
        source: SourceSelector,
        event: str,
        *,
        source_path: KeyPath,
        event_path: KeyPath,
    ) -> RawRule | None:
        guard = self.guard(body, path)
        if guard is False:
            return None
        assert guard is not True
        cond = None
        if "cond" in body:
            self.chart_feature("a cond expression", (*path, "cond"))
            cond = self.expression(body, "cond", path, "condition")
            if cond is None:
                return None
        target = body.get("to")
        if target is None:
            return None  # reported as a missing key
        if target == PREVIOUS_TARGET:
            targets: tuple[str, ...] | None = (PREVIOUS_TARGET,)
        else:
            targets = self.targets(target, (*path, "to"), "target state")
        if targets is None:
            return None
        kind = self.text(body, "type", path, "external")
        if "type" in body:
            self.chart_feature("a transition type", (*path, "type"))
        if kind not in ("external", "internal"):
            self.reporter.report(
                "wrong-type",
                (*path, "type"),
                f"unknown transition type {kind!r}",
                "one of: external, internal",
            )
        if "then" in body:
            self.chart_feature("'then' actions", (*path, "then"))
        return RawRule(
            source=source,
            event=event,
            targets=targets,
            guard=guard,
            steps=self.steps(body, "actions", path),
            checkpoint=self.flag(body, "checkpoint", path),
            description=self.text(body, "description", path),
            metadata=self.metadata(body, path),
            path=path,
            source_path=source_path,
            event_path=event_path,
            target_path=(*path, "to"),
            then=self.steps(body, "then", path),
            internal=kind == "internal",
            cond=cond,
        )

    def guard(self, body: Mapping[str, Any], path: KeyPath) -> GuardExpression | bool | None:
        """The parsed guard, None without one, False when it is wrong (reported)."""
        if "guard" not in body or not self.typed(body["guard"], (*path, "guard"), str, "'guard'"):
            return None
        text = body["guard"]
        try:
            guard = parse_guard(text)
            private = [name for name in guard_names(guard) if name.startswith("_")]
            if private:
                raise GuardSyntaxError(
                    f"guard {private[0]!r} starts with '_' (Python reserves those names)",
                    text.find(private[0]),
                )
        except GuardSyntaxError as error:
            self.reporter.report(
                error.code,
                (*path, "guard"),
                f"invalid guard {excerpt(text)}: {error}",
                "combine guard names with not, and, or and parentheses",
                offset=error.offset + 1,
            )
            return False
        if guard_states(guard):
            self.chart_feature("an in(state) guard", (*path, "guard"))
        return guard

    def trigger(self, key: str, path: KeyPath) -> str | None:
        """An ``on`` key: an event's name, or a descriptor (which makes the spec a chart)."""
        if not is_descriptor(key):
            return self.name(key, path, "event")
        try:
            parse_descriptor(key)
        except DescriptorError as error:
            self.reporter.report(
                "invalid-name",
                path,
                f"invalid event descriptor {excerpt(key)}: {error}",
                "an event's name, '*', or dotted prefixes such as 'error' or 'error.*'",
                key=True,
            )
            return None
        self.chart_feature("an event descriptor", path)
        return key

    def bodies(self, value: object, path: KeyPath, what: str) -> list[tuple[KeyPath, object]]:
        """The alternatives an ``on.<EVENT>`` or ``always`` value holds."""
        if isinstance(value, str):
            return [(path, {"to": value})]
        if isinstance(value, dict):
            return [(path, value)]
        if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
            self.reporter.report(
                "wrong-type",
                path,
                f"{what} is a list of alternatives (tables), not of states",
                f"several targets (parallel regions) are written {what} = {{ to = [...] }}",
            )
            return []
        if isinstance(value, list):
            return [((*path, index), item) for index, item in enumerate(value)]
        self.reporter.report(
            "wrong-type", path, f"{what} must be a target state, a table or an array of tables"
        )
        return []

    def state_rules(self, document: Mapping[str, Any], state: RawState) -> list[RawRule]:
        body = document["states"][state.name]
        on = self.table(body, "on", state.path)
        triggers = [((*state.path, "on", event), event, value) for event, value in on.items()]
        if "always" in body:
            self.chart_feature("eventless transitions", (*state.path, "always"))
            triggers.append(((*state.path, "always"), "", body["always"]))
        if "after" in body:
            self.chart_feature("a timer", (*state.path, "after"))
            triggers.append(((*state.path, "after"), "", body["after"]))
        rules: list[RawRule] = []
        source = SourceSelector(states=(state.name,))
        for path, key, value in triggers:
            event = self.trigger(key, path) if key else ""
            if event is None:
                continue
            timed = path[-1] == "after"
            what = f"on.{key}" if key else str(path[-1])
            for item_path, item in self.bodies(value, path, what):
                if not self.typed(item, item_path, dict, f"alternative of {what}"):
                    continue
                assert isinstance(item, dict)
                known = self.check_keys(item, item_path, "timer" if timed else "alternative")
                timer = self.timer(item, item_path) if timed else None
                if timed and timer is None:
                    continue
                if timer is not None and "id" in item:
                    timer_id = self.name(item["id"], (*item_path, "id"), "timer id")
                    if timer_id is None:
                        continue
                    timer = dataclasses.replace(timer, id=timer_id)
                rule = self.alternative(
                    item, item_path, source, event, source_path=state.path, event_path=path
                )
                if rule is not None and (timer is not None or not known):
                    rule = dataclasses.replace(rule, timer=timer, unknown_keys=not known)
                rules += [rule] if rule else []
        return rules

    def transition_rules(self, document: Mapping[str, Any]) -> list[RawRule]:
        rules: list[RawRule] = []
        for path, entry in self.table_array(document, "transitions", "transition", "a transition"):
            source = self.selector(entry, path)
            event = self.transition_event(entry, path)
            if source is None or event is None:
                continue
            rule = self.alternative(
                entry, path, source, event, source_path=(*path, "from"), event_path=(*path, "event")
            )
            if rule is not None and not self.keys_known(entry, "transition"):
                rule = dataclasses.replace(rule, unknown_keys=True)
            rules += [rule] if rule else []
        return rules

    def transition_event(self, entry: Mapping[str, Any], path: KeyPath) -> str | None:
        """``event = ...`` or (charts) ``always = true``: exactly one of them."""
        if "always" in entry:
            if "event" in entry or entry["always"] is not True:
                self.reporter.report(
                    "wrong-type",
                    (*path, "always"),
                    "'always' must be true, and a transition has either 'event' or 'always'",
                )
                return None
            self.chart_feature("eventless transitions", (*path, "always"))
            return ""
        if "event" not in entry:
            self.reporter.report(
                "missing-key", path, f"transitions[{path[1]}] needs the key 'event'", key=True
            )
            return None
        if not self.typed(entry["event"], (*path, "event"), str, "event"):
            return None
        return self.trigger(entry["event"], (*path, "event"))

    def error_handlers(self, document: Mapping[str, Any]) -> list[RawErrorHandler]:
        handlers: list[RawErrorHandler] = []
        entries = self.table_array(document, "error_handlers", "error_handler", "an error handler")
        for path, entry in entries:
            source = self.selector(entry, path)
            target = (
                self.name(entry["to"], (*path, "to"), "target state") if "to" in entry else None
            )
            if source is None or target is None:
                continue
            handlers.append(
                RawErrorHandler(
                    source=source,
                    target=target,
                    actions=self.names(entry, "actions", path, "action"),
                    description=self.text(entry, "description", path),
                    path=path,
                )
            )
        return handlers

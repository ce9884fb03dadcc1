"""The shape pass over transition rules (``on.<EVENT>`` in states, ``[[transitions]]``) and
``[[error_handlers]]``: selectors, targets, guards, actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statewright_compiler.declarations import RawErrorHandler, RawRule, RawState
from statewright_compiler.fields import FieldReader
from statewright_compiler.guards import GuardSyntaxError, guard_names, parse_guard
from statewright_compiler.model import PREVIOUS_TARGET, GuardExpression, SourceSelector
from statewright_compiler.positions import KeyPath
from statewright_compiler.reporter import excerpt

__all__ = ["RuleReader"]


class RuleReader(FieldReader):
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
        guard: GuardExpression | None = None
        if "guard" in body and self.typed(body["guard"], (*path, "guard"), str, "'guard'"):
            try:
                guard = parse_guard(body["guard"])
                private = [name for name in guard_names(guard) if name.startswith("_")]
                if private:
                    raise GuardSyntaxError(
                        f"guard {private[0]!r} starts with '_' (Python reserves those names)",
                        body["guard"].find(private[0]),
                    )
            except GuardSyntaxError as error:
                self.reporter.report(
                    error.code,
                    (*path, "guard"),
                    f"invalid guard {excerpt(body['guard'])}: {error}",
                    "combine guard names with not, and, or and parentheses",
                    offset=error.offset + 1,
                )
                return None
        target = body.get("to")
        if target is None or not self.typed(target, (*path, "to"), str, "'to'"):
            return None
        if target != PREVIOUS_TARGET and self.name(target, (*path, "to"), "target state") is None:
            return None
        return RawRule(
            source=source,
            event=event,
            target=target,
            guard=guard,
            actions=self.names(body, "actions", path, "action"),
            checkpoint=self.flag(body, "checkpoint", path),
            description=self.text(body, "description", path),
            metadata=self.metadata(body, path),
            path=path,
            source_path=source_path,
            event_path=event_path,
            target_path=(*path, "to"),
        )

    def state_rules(self, document: Mapping[str, Any], state: RawState) -> list[RawRule]:
        on = self.table(document["states"][state.name], "on", state.path)
        rules: list[RawRule] = []
        source = SourceSelector(states=(state.name,))
        for event, value in on.items():
            path: KeyPath = (*state.path, "on", event)
            if self.name(event, path, "event") is None:
                continue
            if isinstance(value, str):
                value = {"to": value}
            bodies: list[tuple[KeyPath, object]] = []
            if isinstance(value, dict):
                bodies = [(path, value)]
            elif isinstance(value, list):
                bodies = [((*path, index), item) for index, item in enumerate(value)]
            else:
                self.reporter.report(
                    "wrong-type",
                    path,
                    f"on.{event} must be a target state, a table or an array of tables",
                )
            for item_path, body in bodies:
                if not self.typed(body, item_path, dict, f"alternative of on.{event}"):
                    continue
                assert isinstance(body, dict)
                self.check_keys(body, item_path, "alternative")
                rule = self.alternative(
                    body, item_path, source, event, source_path=state.path, event_path=path
                )
                rules += [rule] if rule else []
        return rules

    def transition_rules(self, document: Mapping[str, Any]) -> list[RawRule]:
        rules: list[RawRule] = []
        for path, entry in self.table_array(document, "transitions", "transition", "a transition"):
            source = self.selector(entry, path)
            event = (
                self.name(entry.get("event"), (*path, "event"), "event")
                if "event" in entry
                else None
            )
            if source is None or event is None:
                continue
            rule = self.alternative(
                entry, path, source, event, source_path=(*path, "from"), event_path=(*path, "event")
            )
            rules += [rule] if rule else []
        return rules

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

"""Hypothesis strategies for random *valid* statechart specs, with scripted guards and actions and
a sequence of external events to send.

A chart is drawn as a tree (compound states with an explicit or a default initial, parallel
states with two or three regions, final states in compounds and regions, shallow and deep history
with or without defaults, nesting up to :data:`MAX_DEPTH`), then transitions at every level
(external, internal, targetless, multi-target into regions, eventless ones guarded by ``in()`` or
by scripted guards, SCXML descriptors such as ``"*"`` and ``"done.state.<id>"``, raised events in
entry, exit, transition and ``then`` steps) and a few ``[[transitions]]`` rules with ``*``,
``tag:`` and list selectors. What the compiler rejects is never drawn: targets that cannot be
entered together, descriptors that match no event, rules an earlier unguarded one makes dead
(:mod:`tests.charts.spec_text` drops those).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from hypothesis import strategies as st

from tests.charts.harness import Answer, Script
from tests.charts.spec_text import Node, Rule, render_spec

__all__ = ["MAX_DEPTH", "ChartCase", "chart_cases"]

#: Nesting below the top level: a top-level state is at depth 0.
MAX_DEPTH: Final = 4
#: Scripted guards: answers that cycle, and (for eventless transitions) answers that run out.
GUARDS: Final = ("g0", "g1", "g2", "g3")
FINITE_GUARDS: Final = ("f0", "f1", "f2")
T = TypeVar("T")
#: Which calls (0-based) of which action raise.
Failures = dict[str, frozenset[int]]


@dataclass(frozen=True)
class ChartCase:
    """A spec, its script and the events to send."""

    toml: str
    guards: dict[str, tuple[Answer, ...]]
    failures: dict[str, frozenset[int]]
    events: tuple[str, ...]

    def script(self) -> Script:
        return Script(self.guards, self.failures, frozenset(FINITE_GUARDS))

    def __repr__(self) -> str:
        return (
            f"ChartCase(events={self.events!r}, guards={self.guards!r}, "
            f"failures={self.failures!r}, toml=\n{self.toml})"
        )


class _Builder:
    """One drawing session: the tree, then its rules."""

    def __init__(
        self, draw: Callable[[st.SearchStrategy[Any]], Any], size: int, content: float
    ) -> None:
        self.draw = draw
        self.budget = size  # states still allowed
        #: Scales the chance of each piece of executable content, guard and eventless rule.
        self.content = content
        self.nodes: list[Node] = []
        self.actions: list[str] = []
        self.on_error = draw(st.sampled_from(["raise", "event"]))
        self.events = [f"E{i}" for i in range(draw(st.integers(2, 4)))]
        self.dotted = draw(st.booleans())
        if self.dotted:
            self.events += ["job_ok", "job_fail"]

    def chance(self, probability: float) -> bool:
        return bool(self.draw(st.floats(0, 1)) < probability)

    def content_chance(self, probability: float) -> bool:
        """:meth:`chance` for content, guards and eventless rules, scaled by ``content``."""
        return self.chance(probability * self.content)

    def choice(self, items: list[T]) -> T:
        return self.draw(st.sampled_from(items))  # type: ignore[no-any-return]  # draw is Any

    # -- the tree --------------------------------------------------------------------------------
    def node(self, kind: str, parent: Node | None) -> Node:
        node = Node(f"s{len(self.nodes)}", kind, parent)
        self.nodes.append(node)
        self.budget -= 1
        if parent is not None:
            parent.children.append(node)
        return node

    def state(self, parent: Node | None, depth: int, *, region: bool = False) -> Node:
        kinds = ["atomic"]
        if depth < MAX_DEPTH and self.budget > 4:
            kinds += ["compound", "compound", "parallel"]
        kind = self.choice(kinds)
        if region and kind == "atomic" and self.chance(0.6) and depth < MAX_DEPTH:
            kind = "compound"  # regions are mostly state machines of their own
        node = self.node(kind, parent)
        if self.chance(0.2):
            node.tags = [self.choice(["t0", "t1"])]
        if kind == "compound":
            for _ in range(self.draw(st.integers(1, 3))):
                self.state(node, depth + 1)
            if self.chance(0.4):
                self.node("final", node)
        elif kind == "parallel":
            for _ in range(self.draw(st.integers(2, 3))):
                self.state(node, depth + 1, region=True)
        if kind != "atomic" and self.chance(0.3):
            self.history(node)
        return node

    def history(self, parent: Node) -> None:
        history = self.node("history", parent)
        history.history = self.choice(["shallow", "deep"])
        if self.chance(0.6):
            history.default = self.targets(parent)
            if self.content_chance(0.3):
                history.default_actions = self.steps(f"hd_{history.name}")

    def below(self, node: Node) -> list[Node]:
        """Every state below ``node`` (history pseudo-states excepted)."""
        found: list[Node] = []
        for child in node.children:
            if child.kind != "history":
                found += [child, *self.below(child)]
        return found

    def targets(self, inside: Node | None) -> list[str]:
        """One state below ``inside`` (None: anywhere), or one per region of a parallel state
        below it: targets that can be entered together."""
        pool = self.below(inside) if inside is not None else self.states()
        parallels = [node for node in [inside, *pool] if node and node.kind == "parallel"]
        if parallels and self.chance(0.3):
            parallel = self.choice(parallels)
            regions = [child for child in parallel.children if child.kind != "history"]
            count = self.draw(st.integers(2, len(regions)))
            chosen = self.draw(st.permutations(regions))[:count]
            return [self.choice([region, *self.below(region)]).name for region in chosen]
        return [self.choice(pool).name]

    def states(self) -> list[Node]:
        return [node for node in self.nodes if node.kind != "history"]

    def initials(self) -> None:
        for node in self.nodes:
            if node.kind == "compound" and self.chance(0.5):
                node.initial = self.targets(node)
                if self.content_chance(0.3):
                    node.initial_actions = self.steps(f"in_{node.name}")

    # -- executable content ----------------------------------------------------------------------
    def steps(self, action: str) -> list[Any]:
        """An action (named after where it runs), maybe a raised event or a log step."""
        steps: list[Any] = [action]
        self.actions.append(action)
        if self.chance(0.12):
            steps.insert(self.draw(st.integers(0, 1)), {"raise": self.choice(self.events)})
        if self.chance(0.05):
            steps.append({"log": f"log {action}"})
        return steps

    # -- transitions -----------------------------------------------------------------------------
    def triggers(self) -> list[str]:
        triggers = [*self.events, *self.events, *self.events, "*", "E0 E1"]
        if self.dotted:
            triggers += ["job", "job.*"]
        if self.on_error == "event":
            triggers += ["error", "error.*"]
        for node in self.nodes:
            finals = any(child.kind == "final" for child in node.children)
            if node.kind == "parallel" or (node.kind == "compound" and finals):
                triggers.append(f"done.state.{node.name}")
        return triggers

    def guard(self, *, eventless: bool, source: Node | None) -> str:
        """A guard expression. An eventless transition's guard mostly asks a finite guard first,
        so that it is taken a few times at most; ``in()`` alone only asks about a state
        elsewhere (another region, say): one that holds while the source is active would loop."""
        name, other = self.choice(list(GUARDS)), self.choice(list(GUARDS))
        state = self.choice(self.states()).name
        elsewhere = self.elsewhere(source)
        if eventless and elsewhere and self.chance(0.1):
            return f"in({self.choice(elsewhere)})"
        if eventless:
            name = self.choice(list(FINITE_GUARDS))
            forms = [name, f"{name} and in({state})", f"{name} and not in({state})",
                     f"{name} and {other}", f"{name} and not {other}"]  # fmt: skip
        else:
            forms = [name, f"not {name}", f"in({state})", f"not in({state})",
                     f"{name} and in({state})", f"in({state}) or {other}",
                     f"{name} and not {other}"]  # fmt: skip
        return self.choice(forms)

    def elsewhere(self, source: Node | None) -> list[str]:
        """States neither ``source`` nor its ancestors nor below it (none without a source)."""
        if source is None:
            return []
        related = [source, *self.below(source)]
        parent = source.parent
        while parent is not None:
            related.append(parent)
            parent = parent.parent
        return [node.name for node in self.states() if node not in related]

    def alternative(self, label: str, *, eventless: bool, source: Node | None) -> dict[str, Any]:
        alternative: dict[str, Any] = {}
        elsewhere = self.elsewhere(source)
        if (self.chance(0.97) if eventless else self.content_chance(0.4)) or (
            eventless and not elsewhere
        ):
            alternative["guard"] = self.guard(eventless=eventless, source=source)
        histories = [node.name for node in self.nodes if node.kind == "history"]
        if eventless and not alternative.get("guard", "").startswith("f"):
            # Taken as soon as the source is active (and the state of an ``in()`` guard): it
            # must leave the source, for a state elsewhere.
            alternative["to"] = self.choice(elsewhere)
        elif self.chance(0.15):
            alternative["to"] = []
        elif histories and self.chance(0.15):
            alternative["to"] = self.choice(histories)
        else:
            targets = self.targets(None)
            alternative["to"] = targets[0] if len(targets) == 1 else targets
        if self.chance(0.25):
            alternative["type"] = "internal"
        if self.content_chance(0.5):
            alternative["actions"] = self.steps(f"t_{label}")
        if self.content_chance(0.15):
            alternative["then"] = self.steps(f"th_{label}")
        return alternative

    def rules(self) -> list[Rule]:
        triggers = self.triggers()
        rules: list[Rule] = []
        sources = [n for n in self.nodes if n.kind not in ("final", "history")]
        for node in sources:
            for _ in range(self.draw(st.integers(0, 3))):
                eventless = self.content_chance(0.1)
                trigger = None if eventless else self.choice(triggers)
                label = f"{node.name}_{len(rules)}"
                rules.append(
                    Rule(
                        [node.name],
                        trigger,
                        self.alternative(label, eventless=eventless, source=node),
                    )
                )
        for _ in range(self.draw(st.integers(0, 2))):
            rules.append(self.global_rule(triggers, sources, len(rules)))
        return rules

    def global_rule(self, triggers: list[str], sources: list[Node], index: int) -> Rule:
        """A ``[[transitions]]`` rule: ``from = "*"`` (maybe with ``except``), a tag, or a list."""
        tags = sorted({tag for node in sources for tag in node.tags})
        selector: Any = self.choice(["*", *[f"tag:{tag}" for tag in tags], "list"])
        excluded: list[str] = []
        if selector == "list":
            chosen = self.draw(st.permutations(sources))[: self.draw(st.integers(1, 2))]
            selector = [node.name for node in chosen]
        elif self.chance(0.3):
            excluded = [self.choice(sources).name]
        eventless = self.content_chance(0.1)
        trigger = None if eventless else self.choice(triggers)
        alternative = self.alternative(f"r{index}", eventless=eventless, source=None)
        return Rule(selector, trigger, alternative, excluded=excluded, in_state=False)

    # -- the script ------------------------------------------------------------------------------
    def script(self, with_errors: bool) -> tuple[dict[str, tuple[Answer, ...]], Failures]:
        answers: list[Answer] = [True, True, False, False, *(["raise"] if with_errors else [])]
        guards: dict[str, tuple[Answer, ...]] = {}
        for name in (*GUARDS, *FINITE_GUARDS):
            drawn = self.draw(st.lists(st.sampled_from(answers), min_size=1, max_size=4))
            for answer in (True, False):  # mostly both: eventless transitions settle
                if answer not in drawn and self.chance(0.9):
                    drawn.insert(self.draw(st.integers(0, len(drawn))), answer)
            guards[name] = tuple(drawn)
        failures: Failures = {}
        if with_errors and self.actions:
            for _ in range(self.draw(st.integers(1, 2))):
                calls = self.draw(st.sets(st.integers(0, 5), min_size=1, max_size=2))
                failures[self.choice(self.actions)] = frozenset(calls)
        return guards, failures


@st.composite
def chart_cases(
    draw: st.DrawFn, size: int = 16, max_events: int = 10, content: float = 1.0
) -> ChartCase:
    """A random valid chart of at most about ``size`` states, its script and events; a
    ``content`` below 1 makes executable content, guards and eventless rules that much rarer
    (events that only move the chart are planned: statewright._chart_plans)."""
    builder = _Builder(draw, size, content)
    top = [builder.state(None, 0) for _ in range(draw(st.integers(1, 3)))]
    if builder.chance(0.2):
        builder.node("final", None)
    for node in builder.nodes:
        if node.kind != "history" and builder.content_chance(0.3):
            node.entry = builder.steps(f"en_{node.name}")
        if node.kind != "history" and builder.content_chance(0.3):
            node.exit = builder.steps(f"ex_{node.name}")
    builder.initials()
    initial = builder.targets(None) if builder.chance(0.2) else [builder.choice(top).name]
    rules = builder.rules()
    order = list(builder.nodes)
    if builder.chance(0.3):  # the file order need not be the document order
        order = draw(st.permutations(order))
    text = render_spec(order, rules, builder.events, initial, builder.on_error)
    guards, failures = builder.script(with_errors=builder.chance(0.25))
    events = draw(st.lists(st.sampled_from(builder.events), max_size=max_events))
    return ChartCase(text, guards, failures, tuple(events))

"""Hypothesis strategies that build random *valid* specs, as TOML text plus the expected table."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st


def toml_string(text: str) -> str:
    """A TOML basic string for any text (control characters escaped, the rest verbatim)."""
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\u{ord(char):04x}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


@dataclass(frozen=True)
class Alternative:
    target: str
    guard: str | None


@dataclass(frozen=True)
class RandomSpec:
    states: tuple[str, ...]
    events: tuple[str, ...]
    finals: frozenset[str]
    #: (state, event) -> alternatives in order; missing pairs are rejected.
    table: dict[tuple[str, str], tuple[Alternative, ...]]

    @property
    def guards(self) -> tuple[str, ...]:
        names = {alt.guard for alts in self.table.values() for alt in alts if alt.guard}
        return tuple(sorted(names))

    def toml(self, name: str = "Random") -> str:
        lines = [f'[machine]\nname = "{name}"\ninitial = "{self.states[0]}"\n']
        for state in self.states:
            lines.append(f"[states.{state}]")
            if state in self.finals:
                lines.append('kind = "final"')
            for event in self.events:
                alternatives = self.table.get((state, event))
                if not alternatives:
                    continue
                items = ", ".join(
                    f'{{ to = "{alt.target}"'
                    + (f', guard = "{alt.guard}"' if alt.guard else "")
                    + " }"
                    for alt in alternatives
                )
                lines.append(f"on.{event} = [{items}]")
            lines.append("")
        lines += [f"[events.{event}]" for event in self.events]
        return "\n".join(lines) + "\n"


@st.composite
def random_specs(draw: st.DrawFn) -> RandomSpec:
    state_count = draw(st.integers(1, 7))
    event_count = draw(st.integers(1, 4))
    states = tuple(f"s{index}" for index in range(state_count))
    events = tuple(f"E{index}" for index in range(event_count))
    guard_names = st.sampled_from(["g0", "g1", "g2", "g3"])
    table: dict[tuple[str, str], list[Alternative]] = {}
    # A spanning tree from s0 keeps every state reachable.
    for index in range(1, state_count):
        source = states[draw(st.integers(0, index - 1))]
        event = draw(st.sampled_from(events))
        table.setdefault((source, event), []).append(Alternative(states[index], draw(guard_names)))
    for _ in range(draw(st.integers(0, 8))):
        source, event = draw(st.sampled_from(states)), draw(st.sampled_from(events))
        target = draw(st.sampled_from(states))
        table.setdefault((source, event), []).append(Alternative(target, draw(guard_names)))
    # Only the last alternative of a pair may be unguarded (anything else is nondeterministic).
    finished: dict[tuple[str, str], tuple[Alternative, ...]] = {}
    for pair, alternatives in table.items():
        if draw(st.booleans()):
            alternatives[-1] = Alternative(alternatives[-1].target, None)
        finished[pair] = tuple(alternatives)
    sources = {source for source, _ in finished}
    finals = frozenset(state for state in states if state not in sources and draw(st.booleans()))
    return RandomSpec(states, events, finals, finished)

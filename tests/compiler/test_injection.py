"""Spec text can never inject code: hostile strings change literals, never the module's shape."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.compiler.specgen import toml_string
from tests.compiler.test_properties import compile_text, load_module
from tests.fuzz import examples

HOSTILE = [
    '"', "'", '"""', "'''", '\\', '\\"""', 'x"""; import os; os.system("echo pwned") #',
    "\n", "\r\n", "\u2028", "\u2029", "\x0b", "\x0c", "\x00", "\x7f", "{{ machine }}",
    "{% raw %}", "{#", "\\N{BULLET}", "\\x41", "é中文😀", "# comment", ")]}", "\t",
]  # fmt: skip
hostile_text = st.lists(
    st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=5)), min_size=1, max_size=6
).map("".join)

TEMPLATE = """\
[machine]
name = "Hostile"
description = {machine}
initial = "start"
metadata = {{ note = {meta} }}

[states.start]
description = {state}
value = {value}
label = {label}
metadata = {{ party = {meta} }}
on.GO = {{ to = "finish", description = {transition}, actions = ["act"] }}

[states.finish]
kind = "final"
description = {state}

[events.GO]
description = {event}
value = {event_value}
metadata = {{ api = {meta} }}
"""


def spec_text(texts: dict[str, str]) -> str:
    return TEMPLATE.format(**{key: toml_string(value) for key, value in texts.items()})


def shape(source: str) -> str:
    """The AST with every string constant blanked: what the template decides, not the spec."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


PLAIN = dict.fromkeys(
    ["machine", "meta", "state", "value", "label", "transition", "event", "event_value"], "plain"
)
PLAIN |= {"value": "start-value", "event_value": "go-value"}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({key: hostile_text for key in PLAIN}))
def test_hostile_strings_only_change_literals(texts: dict[str, str]) -> None:
    source = compile_text(spec_text(texts), "hostile")
    assert shape(source) == shape(compile_text(spec_text(PLAIN), "hostile"))
    module = load_module(source, "hostile")
    assert module.HostileState.START.value == texts["value"]
    assert module.HostileEvent.GO.value == texts["event_value"]

"""Where a character of a TOML string's value is written: what an expression's diagnostic points
at. Each case puts a marker ``@`` in an expression and checks the position found for the
marker's offset in the parsed value is the marker in the file."""

from __future__ import annotations

import pytest
from statewright_compiler.spec.load import parse_spec_text
from statewright_compiler.spec.string_positions import position_in_string


@pytest.mark.parametrize(
    "toml",
    [
        'k = "a + @"',
        'k = "\\"a\\" + @"',
        'k = "\\u00e9\\U0001F600\\t + @"',
        "k = 'a\\b + @'",
        'k = """\na +\n  @"""',
        'k = """\r\n  a\r\n  + @"""',
        'k = """a + \\\n     \n    @"""',
        "k = '''\nx\n@'''",
        'k = { a = [1, { b = "x\\\\y @" }] }',
        '[t]\nk = "   @"',
    ],
)
def test_the_offset_of_a_value_character_is_found_in_the_file(toml: str) -> None:
    source = parse_spec_text(toml, "spec.toml")
    path: tuple[str | int, ...] = ("k",)
    value: object = source.document
    if "[t]" in toml:
        path = ("t", "k")
    elif "{ a" in toml:
        path = ("k", "a", 1, "b")
    for key in path:
        value = value[key]  # type: ignore[index]  # a walk down the parsed document
    assert isinstance(value, str)
    position = position_in_string(toml, source.locate(path), value.index("@"))
    line = toml.split("\n")[position.line - 1]
    assert line[position.column - 1] == "@", (position, line)


def test_anything_unexpected_answers_the_string_itself() -> None:
    source = parse_spec_text("k = 12", "spec.toml")
    start = source.locate(("k",))
    assert position_in_string("k = 12", start, 5) == start

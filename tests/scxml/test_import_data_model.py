"""import-scxml and a chart's data model: expressions, inferred types, what fails when it runs.

The golden case ``valid/data_model.scxml`` shows a whole translation; these tests pin the
rules one by one (docs/scxml.md, *The data model*).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from statewright_compiler.scxml.data_types import field_types
from statewright_compiler.scxml.importer import read_document
from statewright_compiler.scxml.read import parse_xml
from statewright_compiler.scxml.spec_content import FAILING

from tests.scxml.test_import import import_text, imported

REPOSITORY = Path(__file__).resolve().parents[2]


def _chart(datamodel: str, onentry: str = "", extra: str = "") -> str:
    return f"""<scxml xmlns="http://www.w3.org/2005/07/scxml" datamodel="python">
      <datamodel>{datamodel}</datamodel>
      <state id="s0">
        <onentry>{onentry}</onentry>
        {extra}
        <transition event="go" target="end"/>
      </state>
      <final id="end"/>
    </scxml>"""


def _types(chart: str) -> dict[str, str]:
    document, diagnostics = read_document(parse_xml(chart.encode(), "chart.scxml"), "chart.scxml")
    assert document is not None, diagnostics
    return field_types(document)


def test_a_field_s_type_is_the_union_of_what_the_chart_stores_in_it() -> None:
    chart = _chart(
        """<data id="count" expr="0"/><data id="ratio" expr="1"/><data id="name" expr="'a'"/>
        <data id="items">[1, 2]</data><data id="table" expr="{'k': 'v'}"/>
        <data id="flag" expr="count &gt; 1"/><data id="copy" expr="count"/>
        <data id="either" expr="1"/><data id="unset"/><data id="later"/><data id="sid"/>
        <data id="odd" expr="_event"/><data id="session" expr="_sessionid"/>""",
        """<assign location="count" expr="count + 1"/><assign location="ratio" expr="ratio / 2"/>
        <assign location="name" expr="name + 'b'"/><assign location="either" expr="'x'"/>
        <assign location="later" expr="3"/>
        <foreach array="items" item="item" index="position"/>
        <send event="go" idlocation="sid"/>""",
    )
    assert _types(chart) == {
        "count": "int",
        "ratio": "float",  # int, then int / int
        "name": "str",
        "items": "list[int]",
        "table": "dict[str, str]",
        "flag": "bool",
        "copy": "int",  # another field's type (a fixed point)
        "either": "int | str",
        "unset": "Any",  # never stored: no type to tell
        "later": "Any",  # starts unset, then an int: read only after the store
        "sid": "Any",  # the same, with the str an idlocation stores
        "odd": "Any",  # a form the rule does not read
        "session": "str",
        "item": "Any",  # declared by the foreach: unset before it runs
        "position": "Any",
    }


def test_ecmascript_constants_and_in_become_the_spec_s(tmp_path: Path) -> None:
    chart = _chart(
        '<data id="on" expr="true"/><data id="off" expr="false"/>',
        '<if cond="on and not off and In(\'s0\')"><raise event="go"/></if>',
    )
    spec = imported(chart, tmp_path)
    assert spec["data"] == {
        "on": {"type": "bool", "initial": True},
        "off": {"type": "bool", "initial": False},
    }
    assert spec["states"]["s0"]["entry"][0]["if"] == "on and (not off) and In('s0')"


@pytest.mark.parametrize(
    ("element", "written"),
    [
        ('<assign location="x" expr="return"/>', FAILING),  # does not parse
        ('<assign location="x" expr="nothing + 1"/>', FAILING),  # no such field
        ('<if cond="1 = 1"><raise event="go"/></if>', FAILING),
    ],
)
def test_an_expression_that_always_fails_is_written_to_fail_with_a_warning(
    element: str, written: str, tmp_path: Path
) -> None:
    """SCXML: an expression that cannot be evaluated raises error.execution when it runs."""
    code, stdout, stderr = import_text(_chart('<data id="x" expr="0"/>', element), tmp_path)
    assert code == 0, stderr
    assert written in stdout
    assert "warning[scxml-invalid]" in stderr and "raises error.execution" in stderr


@pytest.mark.parametrize("location", ["undeclared", "_sessionid"])
def test_an_assign_to_no_data_field_is_a_step_that_fails(location: str, tmp_path: Path) -> None:
    chart = _chart('<data id="x" expr="0"/>', f'<assign location="{location}" expr="1"/>')
    code, stdout, stderr = import_text(chart, tmp_path)
    assert code == 0, stderr
    assert f'{{ log = "<assign location=\'{location}\'>", expr = "{FAILING}" }}' in stdout


def test_script_and_data_src_are_refused_with_a_reason(tmp_path: Path) -> None:
    chart = _chart('<data id="x" src="file:x.json"/>', "<script>x = 1</script>")
    code, _, stderr = import_text(chart, tmp_path)
    assert code == 1
    assert "<script> in <onentry> cannot be translated: a spec holds no code" in stderr
    assert "<data src='file:x.json'> cannot be translated: a spec's data is in the spec" in stderr


def _calls_eval(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("eval", "exec", "compile")
    ]


def test_nothing_evaluates_chart_text() -> None:
    """The importer, the exporter and the conformance harness never call eval, exec or
    compile: a chart's expressions are parsed, translated and compiled into the module."""
    folders = [
        REPOSITORY / "generator" / "statewright_compiler" / "scxml",
        REPOSITORY / "tests" / "conformance",
    ]
    found = [
        call for folder in folders for path in folder.glob("*.py") for call in _calls_eval(path)
    ]
    assert not found

"""``statewright import-scxml``: exact output for valid charts, exact diagnostics for the rest.

Each ``valid/<name>.scxml`` has the spec it must become (``<name>.toml``); each
``invalid/<name>.scxml`` the diagnostics it must produce (``<name>.expected``). Refresh both
with ``STATEWRIGHT_UPDATE_GOLDEN=1`` after an intended change, and review the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from statewright_compiler.check.validate import validate_source
from statewright_compiler.scxml.importer import UNSUPPORTED
from statewright_compiler.scxml.read import MAX_XML_DEPTH
from statewright_compiler.spec.load import parse_spec_text
from statewright_compiler.spec.toml_compat import tomllib

from tests.conftest import check_golden, run_cli
from tests.fuzz import examples

HERE = Path(__file__).parent
VALID = sorted((HERE / "valid").glob("*.scxml"))
INVALID = sorted((HERE / "invalid").glob("*.scxml"))
#: Invalid cases whose diagnostics are warnings only: the spec is still written.
WARNING_ONLY: set[str] = set()


def import_text(scxml: str, tmp_path: Path, name: str = "chart") -> tuple[int, str, str]:
    source = tmp_path / f"{name}.scxml"
    source.write_text(scxml, encoding="utf-8")
    result = run_cli(["import-scxml", source.name], cwd=tmp_path)
    return result.code, result.stdout, result.stderr


def imported_text(scxml: str, tmp_path: Path) -> str:
    code, stdout, stderr = import_text(scxml, tmp_path)
    assert code == 0, stderr
    return stdout


def imported(scxml: str, tmp_path: Path) -> dict[str, Any]:
    spec: dict[str, Any] = tomllib.loads(imported_text(scxml, tmp_path))
    return spec


@pytest.mark.parametrize("chart", VALID, ids=[chart.stem for chart in VALID])
def test_valid_chart(chart: Path) -> None:
    result = run_cli(["import-scxml", chart.name], cwd=chart.parent)
    assert result.code == 0, result.stderr
    check_golden(chart.with_suffix(".toml"), result.stdout)
    machine, _ = validate_source(parse_spec_text(result.stdout, f"{chart.stem}.toml"))
    assert machine.chart is not None


@pytest.mark.parametrize("chart", INVALID, ids=[chart.stem for chart in INVALID])
def test_invalid_chart(chart: Path, tmp_path: Path) -> None:
    output = tmp_path / "out.toml"
    result = run_cli(["import-scxml", chart.name, "-o", str(output)], cwd=chart.parent)
    check_golden(chart.with_suffix(".expected"), result.stderr)
    assert result.code == 1
    assert "Traceback" not in result.stderr
    assert not output.exists(), "nothing is written when a chart cannot be translated"


def test_every_unsupported_element_has_a_case() -> None:
    expected = "".join(path.read_text() for path in (HERE / "invalid").glob("*.expected"))
    missing = [name for name in UNSUPPORTED if f"<{name}" not in expected]
    # <elseif>/<else> live inside <if>, <finalize> inside <invoke>, <param>/<content> inside
    # <send> or <donedata>: the outer element is reported, not each one inside it.
    assert set(missing) <= {"elseif", "else", "finalize", "param", "content", "data"}


def test_writes_the_output_file_and_warnings_do_not_stop_it(tmp_path: Path) -> None:
    chart = '<scxml xmlns="http://www.w3.org/2005/07/scxml" exmode="x"><final id="done"/></scxml>'
    (tmp_path / "tiny.scxml").write_text(chart)
    result = run_cli(["import-scxml", "tiny.scxml", "-o", "spec/tiny.toml"], cwd=tmp_path)
    assert result.code == 0
    assert result.stdout == "wrote spec/tiny.toml\n"
    assert "warning[scxml-ignored]" in result.stderr
    spec = tomllib.loads((tmp_path / "spec" / "tiny.toml").read_text())
    assert spec["machine"] == {"name": "Tiny", "initial": "done", "on_error": "event"}


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(["import-scxml", "nothing.scxml"], cwd=tmp_path)
    assert result.code == 2
    assert "no such SCXML file" in result.stderr


def test_deep_nesting_up_to_the_limit_and_past_it(tmp_path: Path) -> None:
    depth = MAX_XML_DEPTH - 1  # <scxml> is one level
    nested = "".join(f'<state id="s{i}">' for i in range(depth - 1))
    chart = (
        '<scxml xmlns="http://www.w3.org/2005/07/scxml">'
        + nested
        + '<final id="leaf"/>'
        + "</state>" * (depth - 1)
        + "</scxml>"
    )
    spec = imported(chart, tmp_path)
    assert spec["states"]["leaf"]["parent"] == f"s{depth - 2}"
    deeper = chart.replace('<final id="leaf"/>', '<state id="x"><final id="leaf"/></state>')
    code, _, stderr = import_text(deeper, tmp_path)
    assert code == 1
    assert f"error[limit-exceeded]: elements nest more than {MAX_XML_DEPTH} levels deep" in stderr


def test_a_large_entity_free_document_is_only_limited_by_size(tmp_path: Path) -> None:
    big = tmp_path / "big.scxml"
    with big.open("w") as handle:
        handle.write('<scxml xmlns="http://www.w3.org/2005/07/scxml"><final id="f"/>')
        handle.write("<!--" + "x" * (8 * 1024 * 1024) + "-->")
        handle.write("</scxml>")
    result = run_cli(["import-scxml", big.name], cwd=tmp_path)
    assert result.code == 1
    assert "error[limit-exceeded]: the file has" in result.stderr


# Text from anywhere: XML escapes it, the importer must keep it exact and keep it data.
xml_text = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\ufffe\uffff"),
    min_size=1,
    max_size=12,
).filter(lambda text: all(char in "\t\n\r" or ord(char) >= 0x20 for char in text))
#: SCXML event names statewright reads (its descriptors' alphabet), with dots between parts.
event_part = st.text("abcXYZ019_-:", min_size=1, max_size=4)
event_text = st.lists(event_part, min_size=1, max_size=3).map(".".join)


def xml_attribute(text: str) -> str:
    """``text`` as an XML attribute value that parses back to exactly ``text``."""
    return "".join(
        {"&": "&amp;", "<": "&lt;", '"': "&quot;"}.get(char)
        or (f"&#{ord(char)};" if char in "\t\n\r" else char)
        for char in text
    )


@settings(max_examples=examples(60), deadline=None)
@given(identifier=xml_text, label=xml_text, log=xml_text, event=event_text)
@example(identifier="0", label="0", log="min", event="0")  # a function read as a value
def test_hostile_text_stays_data(
    tmp_path_factory: pytest.TempPathFactory, identifier: str, label: str, log: str, event: str
) -> None:
    identifier = "".join(identifier.split())  # ids hold no whitespace
    assume(identifier not in ("", "end"))
    assume("In" not in log and "_" not in log)  # what a condition may not use
    chart = f"""<scxml xmlns="http://www.w3.org/2005/07/scxml" name="{xml_attribute(label)}">
      <state id="{xml_attribute(identifier)}">
        <onentry>
          <log label="{xml_attribute(label)}" expr="{xml_attribute(repr(log))}"/>
          <raise event="{event}"/>
        </onentry>
        <transition event="{event}" cond="{xml_attribute(log)}" target="end"/>
      </state>
      <final id="end"/>
    </scxml>"""
    text = imported_text(chart, tmp_path_factory.mktemp("hostile"))
    spec = tomllib.loads(text)
    name, state = next(iter(spec["states"].items()))
    assert state.get("value", name) == identifier
    events = {body.get("value", key): key for key, body in spec["events"].items()}
    assert state["entry"] == [{"log": log, "label": label}, {"raise": events[event]}]
    ((key, alternative),) = state["on"].items()
    assert key in (event, events[event])
    assert alternative["metadata"] == {"scxml_cond": log}
    validate_source(parse_spec_text(text, "hostile.toml"))

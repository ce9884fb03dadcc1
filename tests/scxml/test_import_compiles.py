"""What ``import-scxml`` accepts compiles, and behaves as SCXML says.

SCXML allows what a spec cannot say as written: several transitions on one event in one state,
a ``*`` before other descriptors, eventless transitions one after another. SCXML takes the first
enabled transition in document order, so a transition that an earlier one without ``cond`` always
preempts is never taken: the importer leaves it out with an ``scxml-ignored`` warning at it that
names the line of the one that preempts it; guarded alternatives keep their order. Every event a
descriptor names is declared, so the compiled chart receives each (``f.b`` next to ``f.b.c``).
What the compiler would still refuse (targets that cannot be active together, history defaults
that loop) is an error at the SCXML element, never a spec that does not compile.

The property test draws SCXML charts (:mod:`tests.scxml.strategies`): every one the importer
accepts compiles. ``STATEWRIGHT_FUZZ_BUDGET`` and ``STATEWRIGHT_FUZZ_SEED`` scale and seed it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import seed as hypothesis_seed
from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import Severity
from statewright_compiler.scxml.importer import import_scxml
from statewright_compiler.spec.load import parse_spec_text
from statewright_compiler.spec.toml_compat import tomllib

from tests.charts.harness import compile_chart
from tests.conftest import run_cli
from tests.fuzz import budget, seed
from tests.scxml.strategies import scxml_charts

HEAD = '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="Lamp">\n'


def imported(tmp_path: Path, body: str) -> tuple[str, list[str]]:
    """The spec ``import-scxml`` writes for the chart, and its diagnostic lines."""
    (tmp_path / "lamp.scxml").write_text(HEAD + body + "</scxml>\n", encoding="utf-8")
    result = run_cli(["import-scxml", "lamp.scxml"], cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.code == 0, result.stderr
    validate_source(parse_spec_text(result.stdout, "lamp.toml"))
    return result.stdout, [line for line in result.stderr.splitlines() if ": warning[" in line]


def refused(tmp_path: Path, body: str) -> list[str]:
    (tmp_path / "lamp.scxml").write_text(HEAD + body + "</scxml>\n", encoding="utf-8")
    result = run_cli(["import-scxml", "lamp.scxml"], cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.code == 1
    assert result.stdout == ""
    return [line for line in result.stderr.splitlines() if ": error[" in line]


def machine(spec: str) -> Any:
    return compile_chart(spec, "lamp").LampMachine(None)


def leaves(spec: str, *events: str) -> list[str]:
    """The state after each event, each sent to a fresh machine."""
    found = []
    for event in events:
        lamp = machine(spec)
        assert lamp.try_send(event), event
        found.append(lamp.state.value)
    return found


# -- 10: unreachable transitions, alternatives -----------------------------------------------


def test_two_transitions_on_one_event_the_second_is_left_out(tmp_path: Path) -> None:
    spec, warnings = imported(
        tmp_path,
        """<state id="s">
  <transition event="go" target="b"/>
  <transition event="go" target="a"/>
</state>
<state id="a"/>
<state id="b"/>
""",
    )
    assert warnings == [
        "lamp.scxml:4:3: warning[scxml-ignored]: this <transition> is never taken: the one on "
        "line 3 has no cond and takes every event it matches first (SCXML takes the first "
        "enabled transition in document order); it is left out"
    ]
    assert tomllib.loads(spec)["states"]["s"]["on"] == {"go": "b"}
    assert leaves(spec, "go") == ["b"]


def test_a_star_preempts_what_follows_it(tmp_path: Path) -> None:
    spec, warnings = imported(
        tmp_path,
        """<state id="s">
  <transition event="stop" cond="In('s')" target="b"/>
  <transition event="*" target="a"/>
  <transition event="go" target="b"/>
  <transition event="go.left stop" target="b"/>
</state>
<state id="a"/>
<state id="b"/>
""",
    )
    assert [warning.split(": warning")[0] for warning in warnings] == [
        "lamp.scxml:5:3",
        "lamp.scxml:6:3",
    ]
    assert all("the one on line 4 has no cond" in warning for warning in warnings)
    assert leaves(spec, "stop", "go") == ["b", "a"]


def test_a_transition_covered_by_two_earlier_ones_names_both(tmp_path: Path) -> None:
    spec, warnings = imported(
        tmp_path,
        """<state id="s">
  <transition event="go" target="a"/>
  <transition event="stop" target="b"/>
  <transition event="go.left stop" target="c"/>
</state>
<state id="a"/>
<state id="b"/>
<state id="c"><transition event="go.left"/></state>
""",
    )
    assert warnings == [
        "lamp.scxml:5:3: warning[scxml-ignored]: this <transition> is never taken: the ones "
        "on lines 3 and 4 have no cond and take every event it matches first (SCXML takes the "
        "first enabled transition in document order); it is left out"
    ]
    assert leaves(spec, "go.left", "stop") == ["a", "b"]


def test_eventless_transitions_after_one_without_cond_are_left_out(tmp_path: Path) -> None:
    spec, warnings = imported(
        tmp_path,
        """<state id="s">
  <transition cond="In('s')" target="a"/>
  <transition target="b"/>
  <transition target="a"/>
</state>
<state id="a"/>
<state id="b"/>
""",
    )
    assert warnings == [
        "lamp.scxml:5:3: warning[scxml-ignored]: this <transition> is never taken: the one on "
        "line 4 has no cond and takes the eventless step first (SCXML takes the first enabled "
        "transition in document order); it is left out"
    ]
    assert machine(spec).state.value == "a"


def test_guarded_alternatives_on_one_event_keep_their_order(tmp_path: Path) -> None:
    spec, warnings = imported(
        tmp_path,
        """<parallel id="p">
  <state id="left">
    <state id="l1"><transition event="flip" target="l2"/></state>
    <state id="l2"/>
  </state>
  <state id="right">
    <state id="r">
      <transition event="go" cond="In('l2')" target="r2"/>
      <transition event="go" target="r3"/>
      <transition event="go" target="r2"/>
    </state>
    <state id="r2"/>
    <state id="r3"/>
  </state>
</parallel>
""",
    )
    assert [warning.split(": warning")[0] for warning in warnings] == ["lamp.scxml:11:7"]
    assert tomllib.loads(spec)["states"]["r"]["on"]["go"] == [
        {"to": "r2", "guard": "in(l2)"},
        {"to": "r3"},
    ]
    lamp = machine(spec)
    lamp.send("go")
    assert lamp.configuration.right == "r3"
    lamp = machine(spec)
    lamp.send("flip")
    lamp.send("go")
    assert lamp.configuration.right == "r2"


def test_the_same_target_twice_is_one_target(tmp_path: Path) -> None:
    spec, warnings = imported(
        tmp_path,
        '<state id="s"><transition event="go" target="a a"/></state><state id="a"/>\n',
    )
    assert warnings == [
        "lamp.scxml:2:15: warning[scxml-ignored]: the target 'a' is listed twice: a transition "
        "enters a set of states"
    ]
    assert leaves(spec, "go") == ["a"]


def test_what_the_compiler_refuses_is_an_error_at_the_element(tmp_path: Path) -> None:
    errors = refused(
        tmp_path,
        """<state id="s">
  <transition event="go" target="a b"/>
</state>
<state id="a"/>
<state id="b"/>
<state id="h0">
  <state id="inner"/>
  <history id="h"><transition target="h"/></history>
</state>
""",
    )
    assert errors == [
        "lamp.scxml:3:3: error[scxml-invalid]: targets 'a' and 'b' cannot be active together: "
        "several targets must be in different regions of a parallel state",
        "lamp.scxml:9:3: error[scxml-invalid]: history state 'h' has a default that leads back "
        "to it: entering it with nothing remembered never ends (h -> h)",
    ]


def test_an_initial_at_its_own_history_is_an_error(tmp_path: Path) -> None:
    errors = refused(
        tmp_path,
        """<state id="outer" initial="h">
  <state id="a"/>
  <history id="h"/>
</state>
""",
    )
    assert errors == [
        "lamp.scxml:2:1: error[scxml-invalid]: initial state 'h' of 'outer' is a history state "
        "whose default leads back to it: entering 'outer' never ends (h -> h)"
    ]


@pytest.mark.parametrize("stem", ["chart", "Async", "async_chart"])
def test_a_file_named_like_a_runtime_class_still_compiles(tmp_path: Path, stem: str) -> None:
    (tmp_path / f"{stem}.scxml").write_text(
        '<scxml xmlns="http://www.w3.org/2005/07/scxml"><final id="done"/></scxml>\n'
    )
    result = run_cli(["import-scxml", f"{stem}.scxml"], cwd=tmp_path)
    assert result.code == 0, result.stderr
    validate_source(parse_spec_text(result.stdout, f"{stem}.toml"))


@settings(
    max_examples=max(budget(3), 10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@hypothesis_seed(seed())
@given(chart=scxml_charts())
def test_every_chart_the_importer_accepts_compiles(
    tmp_path_factory: pytest.TempPathFactory, chart: str
) -> None:
    note(f"STATEWRIGHT_FUZZ_SEED={seed()}, chart:\n{chart}")
    path = tmp_path_factory.mktemp("random") / "random.scxml"
    path.write_text(chart, encoding="utf-8")
    spec, diagnostics = import_scxml(path, "random.scxml")
    if spec is None:
        errors = [d for d in diagnostics if d.severity is Severity.ERROR]
        assert errors
        assert {d.code for d in errors} <= {"scxml-invalid"}, errors
        return
    note(spec.text)
    validate_source(parse_spec_text(spec.text, "random.toml"))


# -- 11: every event a descriptor names is declared and receivable ----------------------------


def test_an_event_named_by_a_descriptor_and_by_a_longer_one_is_receivable(
    tmp_path: Path,
) -> None:
    spec, warnings = imported(
        tmp_path,
        """<state id="s">
  <transition event="f.b.c" target="c"/>
  <transition event="f.b" target="b"/>
</state>
<state id="b"/>
<state id="c"/>
""",
    )
    assert warnings == []
    values = {event.get("value", name) for name, event in tomllib.loads(spec)["events"].items()}
    assert values == {"f.b", "f.b.c"}
    assert leaves(spec, "f.b", "f.b.c") == ["b", "c"]
    assert (tmp_path / "lamp.toml").write_text(spec, encoding="utf-8")
    generated = run_cli(["generate", "lamp.toml", "-o", "out", "--no-docs"], cwd=tmp_path)
    assert generated.code == 0, generated.stderr


@pytest.mark.parametrize(
    ("descriptors", "sent", "expected"),
    [
        (("go.*", "go.left"), ("go", "go.left"), ["a", "a"]),
        (("go.left", "go"), ("go", "go.left"), ["b", "a"]),
        (("go.left go.right", "go"), ("go.right", "go"), ["a", "b"]),
        (("go.left.far", "go.left."), ("go.left", "go.left.far"), ["b", "a"]),
        (("go.left", "go.left.far go"), ("go.left.far", "go"), ["a", "b"]),
    ],
)
def test_every_named_event_reaches_the_transition_scxml_takes(
    tmp_path: Path, descriptors: tuple[str, str], sent: tuple[str, ...], expected: list[str]
) -> None:
    first, second = descriptors
    spec, _ = imported(
        tmp_path,
        f"""<state id="s">
  <transition event="{first}" target="a"/>
  <transition event="{second}" target="b"/>
</state>
<state id="a"/>
<state id="b"/>
""",
    )
    assert leaves(spec, *sent) == expected

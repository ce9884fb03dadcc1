"""Running one W3C conformance chart through statewright, end to end, and classifying the result.

import-scxml -> spec -> the compiler -> a generated module -> import it -> run the machine. A
W3C test passes when the chart reaches its final state ``pass``. The charts (fetched by
``make w3c-charts``) are python-statemachine's rewrite of the W3C IRP tests for a Python data
model, so the conditions the importer keeps as named guards are Python: :class:`Conditions`
evaluates each with ``eval`` in an empty namespace, where ``In`` does not exist (the importer
turned every ``In()`` it could into ``in(...)``). An exception propagates, and the runtime turns
it into ``error.execution``, as SCXML does with a condition that cannot be evaluated.
"""

from __future__ import annotations

import enum
import importlib.util
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from statewright import MachineOptions
from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.pipeline import module_source
from statewright_compiler.scxml.importer import import_scxml
from statewright_compiler.scxml.read import Element, read_xml
from statewright_compiler.scxml.spec_text import COND_METADATA
from statewright_compiler.spec.guards import guard_names, parse_guard
from statewright_compiler.spec.load import parse_spec_text
from statewright_compiler.spec.toml_compat import tomllib

__all__ = [
    "CHARTS",
    "REQUIRED",
    "Conditions",
    "Outcome",
    "Result",
    "chart_paths",
    "code",
    "conditions",
    "run_chart",
]

REPOSITORY: Final = Path(__file__).resolve().parents[2]
CHARTS: Final = REPOSITORY / ".cache" / "w3c" / "mandatory"
#: The tier that needs no data model: each of these must pass.
REQUIRED: Final = ("144", "145", "309", "310", "344", "355", "375", "377", "387", "404", "413")
#: Timers one chart may fire before the harness calls it a loop.
MAX_TIMERS: Final = 1000
#: ``test216sub1.scxml`` is a chart test216 invokes, not a test of its own.
_SUB_CHART: Final = re.compile(r"(?P<test>\d+)sub\d+")


class Outcome(enum.Enum):
    PASS = "pass"
    #: The importer refuses the chart (its diagnostics say why).
    NOT_TRANSLATABLE = "not translatable"
    #: The spec was written, but the compiler or the runtime does not take it.
    NOT_SUPPORTED = "not supported"
    #: It ran, and did not end in ``pass``.
    WRONG_RESULT = "wrong result"
    #: A chart another test invokes: there is no result to check.
    NOT_A_TEST = "not a test"


@dataclass(frozen=True)
class Result:
    """What happened to one chart: the test's number (``144``, ``403a``, ``216sub1``), its
    outcome and why, whether it needs timers (delayed ``<send>`` or ``<cancel>``), and the
    generated module when there is one (for the batched mypy run)."""

    test: str
    outcome: Outcome
    reason: str
    timers: bool
    module_name: str | None = None
    module: str | None = None


class Conditions:
    """A handlers object whose guards are the SCXML conditions they were translated from."""

    def __init__(self, expressions: Mapping[str, str]) -> None:
        self._expressions = dict(expressions)

    def __getattr__(self, name: str) -> Any:
        try:
            expression = self._expressions[name]
        except KeyError:
            raise AttributeError(name) from None

        def guard(context: object, payload: object, /) -> bool:
            # The chart's own condition, evaluated as its data model would (with no data).
            return bool(eval(expression, {"__builtins__": {}}, {}))

        return guard


def _alternatives(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for state in spec.get("states", {}).values():
        for value in [*state.get("on", {}).values(), state.get("always", [])]:
            yield from value if isinstance(value, list) else [value]
    yield from spec.get("transitions", [])


def conditions(spec_text: str) -> dict[str, str]:
    """Each named guard of an imported spec and its condition, read from the spec itself: a
    guard's own key in the transition's metadata, else ``scxml_cond`` (the whole condition)."""
    found: dict[str, str] = {}
    for alternative in _alternatives(tomllib.loads(spec_text)):
        if not isinstance(alternative, dict) or "guard" not in alternative:
            continue
        metadata = alternative.get("metadata", {})
        for name in guard_names(parse_guard(alternative["guard"])):
            found[name] = metadata.get(name, metadata[COND_METADATA])
    return found


def chart_paths() -> list[Path]:
    """The mandatory charts, in test-number order."""
    return sorted(CHARTS.glob("*.scxml"), key=lambda path: _sort_key(_test(path)))


def _test(path: Path) -> str:
    return path.stem.removeprefix("test")


def _sort_key(test: str) -> tuple[int, str]:
    digits = re.match(r"\d+", test)
    return (int(digits.group()) if digits else 0, test)


def _uses_timers(element: Element) -> bool:
    if element.name == "cancel" or (
        element.name == "send" and (element.get("delay") or element.get("delayexpr"))
    ):
        return True
    return any(_uses_timers(child) for child in element.children)


def code(text: str) -> str:
    """A Markdown code span holding ``text`` (the report prints reasons in tables)."""
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if fence == "`" else f"{fence} {text} {fence}"


def _reason(diagnostics: list[Diagnostic]) -> str:
    """What a chart uses that cannot be translated: each subject once, in document order
    (``<datamodel>``, ``<transition cond='...'>``, ...)."""
    subjects: dict[str, None] = {}
    for diagnostic in diagnostics:
        if diagnostic.is_error:
            subject = diagnostic.message.split(" cannot be translated")[0]
            subjects[re.sub(r" in <[^>]+>$", "", subject)] = None
    return ", ".join(map(code, subjects))


def _load_module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


class _Clock:
    """The machine's clock: time passes only when the harness moves it to the next timer."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _run_timers(machine: Any, clock: _Clock) -> None:
    """Fire the chart's timers in order of their due times until it is final or none is left
    (a W3C chart with a timer sends itself ``timeout`` to fail a test that hangs)."""
    for _ in range(MAX_TIMERS):
        due = machine.next_due
        if machine.is_final or due is None:
            return
        clock.now = max(clock.now, due)
        machine.fire_due()
    raise AssertionError(f"still running after {MAX_TIMERS} timers")


def run_chart(path: Path, folder: Path) -> Result:
    """Import, compile, generate (into ``folder``) and run one chart."""
    test = _test(path)
    timers = _uses_timers(read_xml(path, path.name))
    imported, diagnostics = import_scxml(path, path.name)
    sub_chart = _SUB_CHART.fullmatch(test)
    if sub_chart:
        translated = "translatable" if imported else f"not translatable: {_reason(diagnostics)}"
        return Result(
            test, Outcome.NOT_A_TEST, f"invoked by test{sub_chart['test']}; {translated}", timers
        )
    if imported is None:
        return Result(test, Outcome.NOT_TRANSLATABLE, _reason(diagnostics), timers)
    try:
        machine, _ = validate_source(parse_spec_text(imported.text, f"test{test}.toml"))
    except SpecError as error:
        first = next(diagnostic for diagnostic in error.diagnostics if diagnostic.is_error)
        reason = f"the compiler rejects the spec: {code(first.code)}: {first.message}"
        return Result(test, Outcome.NOT_SUPPORTED, reason, timers)
    source = module_source(machine)
    module_file = folder / f"{machine.module_name}.py"
    module_file.write_text(source, encoding="utf-8")
    generated = (machine.module_name, source)
    try:
        module = _load_module(f"w3c_{machine.module_name}", module_file)
        machine_class = getattr(module, f"{machine.name}Machine")
        clock = _Clock()
        options = MachineOptions(clock=clock, log_transitions=False)
        running = machine_class(None, Conditions(conditions(imported.text)), options=options)
        _run_timers(running, clock)
    except Exception as error:  # whatever it is, the report shows it
        reason = f"raised {code(type(error).__name__)}: {error}"
        return Result(test, Outcome.WRONG_RESULT, reason, timers, *generated)
    leaves = sorted(str(state) for state in running.active_states)
    if running.is_final and leaves == ["pass"]:
        return Result(test, Outcome.PASS, "", timers, *generated)
    where = "ended in" if running.is_final else "stopped, not final, in"
    states = ", ".join(map(code, leaves))
    return Result(test, Outcome.WRONG_RESULT, f"{where} {states}", timers, *generated)

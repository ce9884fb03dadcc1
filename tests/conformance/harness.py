"""Running one W3C conformance chart through statewright, end to end, and classifying the result.

import-scxml -> spec -> the compiler -> a generated module -> import it -> run the machine. A
W3C test passes when the chart reaches its final state ``pass``. The charts (fetched by
``make w3c-charts``) are python-statemachine's rewrite of the W3C IRP tests for a Python data
model; the importer translates their data model, conditions and executable content into the
spec's, and the compiler into typed Python. The harness supplies no code: the machine runs with
no handlers and no context, so a chart passes only if what the importer and the compiler made
of it reaches ``pass`` by itself. A chart whose spec still needs a handler (a condition the
importer kept as a named guard, because it reads names that are no data field) is *not
supported*: nothing here evaluates chart text. A chart with ``<invoke>`` becomes a spec per
chart it invokes (inline, or a ``testNsubM.scxml`` file beside it), each generated into the
same folder, which the parent's module imports them from.
"""

from __future__ import annotations

import contextlib
import enum
import importlib.util
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from statewright import MachineOptions
from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.pipeline import module_source
from statewright_compiler.scxml.importer import import_scxml
from statewright_compiler.scxml.read import Element, read_xml
from statewright_compiler.scxml.spec_text import ImportedSpec
from statewright_compiler.spec.load import parse_spec_text

__all__ = [
    "CHARTS",
    "KNOWN",
    "OPTIONAL",
    "REQUIRED",
    "Outcome",
    "Result",
    "chart_paths",
    "code",
    "run_chart",
]

REPOSITORY: Final = Path(__file__).resolve().parents[2]
CHARTS: Final = REPOSITORY / ".cache" / "w3c" / "mandatory"
#: The optional tests (reported, not required).
OPTIONAL: Final = REPOSITORY / ".cache" / "w3c" / "optional"
#: The tier that needs no data model: each of these must pass.
REQUIRED: Final = ("144", "145", "309", "310", "344", "355", "375", "377", "387", "404", "413")
#: Why a chart that runs to a wrong result does, where it is known: said beside the result.
KNOWN: Final = {
    "233": "the chart's condition on childToParent is empty (cond=\"\"; W3C's own test233 has "
    'cond="Var1==2", which python-statemachine\'s rewrite lost): SCXML makes a condition that '
    "cannot be evaluated false (5.9.1), so the chart's catch-all transition takes the event",
    "352": "the chart expects _event.origintype == 'scxml', python-statemachine's alias (its "
    "origintype equals both); SCXML's origintype, statewright's, is the processor's URI "
    "'http://www.w3.org/TR/scxml/#SCXMLEventProcessor', which test198 of the same suite expects "
    "and W3C's own test352 tests (its description: the origintype is that URI)",
}
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
    generated module when there is one, with those of the charts it invokes (for the batched
    mypy run)."""

    test: str
    outcome: Outcome
    reason: str
    timers: bool
    module_name: str | None = None
    module: str | None = None
    #: The modules of the charts it invokes (``<invoke>``): name and source, each.
    children: tuple[tuple[str, str], ...] = ()


def chart_paths(folder: Path = CHARTS) -> list[Path]:
    """The charts in ``folder`` (the mandatory ones by default), in test-number order."""
    return sorted(folder.glob("*.scxml"), key=lambda path: _sort_key(_test(path)))


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


def _specs(imported: ImportedSpec, file: str) -> Iterator[tuple[ImportedSpec, str]]:
    """The chart's spec (as ``file``) and, after it, those of the charts it invokes."""
    yield imported, file
    for child in imported.children:
        assert child.child is not None  # a child chart's spec names its module
        yield from _specs(child, f"{child.child.module}.toml")


@contextlib.contextmanager
def _importable(folder: Path, modules: Sequence[str]) -> Iterator[None]:
    """``folder`` on the import path while a parent runs (it imports its children's modules
    by name), and the children's modules forgotten after."""
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in modules:
            sys.modules.pop(name, None)


def run_chart(path: Path, folder: Path) -> Result:
    """Import, compile, generate (into ``folder``: a chart and the charts it invokes, each its
    own module) and run one chart."""
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
    machines = []
    for spec, file in _specs(imported, f"test{test}.toml"):
        try:
            found, _ = validate_source(parse_spec_text(spec.text, file))
        except SpecError as error:
            first = next(diagnostic for diagnostic in error.diagnostics if diagnostic.is_error)
            reason = f"the compiler rejects the spec: {code(first.code)}: {first.message}"
            return Result(test, Outcome.NOT_SUPPORTED, reason, timers)
        if found.guards or found.actions or found.delays:
            handlers = ", ".join(map(code, (*found.guards, *found.actions, *found.delays)))
            reason = f"the spec needs handlers ({handlers}), and the harness supplies no code"
            return Result(test, Outcome.NOT_SUPPORTED, reason, timers)
        machines.append(found)
    sources = [(found.module_name, module_source(found)) for found in machines]
    for name, source in sources:
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    machine = machines[0]
    generated = (*sources[0], tuple(sources[1:]))
    try:
        with _importable(folder, [name for name, _ in sources[1:]]):
            module = _load_module(f"w3c_{machine.module_name}", folder / f"{sources[0][0]}.py")
            machine_class = getattr(module, f"{machine.name}Machine")
            clock = _Clock()
            options = MachineOptions(clock=clock, log_transitions=False)
            running = machine_class(None, None, options=options)
            _run_timers(running, clock)
    except Exception as error:  # whatever it is, the report shows it
        reason = f"raised {code(type(error).__name__)}: {error}"
        return Result(test, Outcome.WRONG_RESULT, reason, timers, *generated)
    leaves = sorted(str(state) for state in running.active_states)
    if running.is_final and leaves == ["pass"]:
        return Result(test, Outcome.PASS, "", timers, *generated)
    where = "ended in" if running.is_final else "stopped, not final, in"
    states = ", ".join(map(code, leaves))
    known = f": {KNOWN[test]}" if test in KNOWN else ""
    return Result(test, Outcome.WRONG_RESULT, f"{where} {states}{known}", timers, *generated)

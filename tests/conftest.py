"""Shared test helpers: paths, running the ``statewright`` command in-process, where tests run.

``make test`` runs the whole suite on the main interpreter and, on every other one from 3.10 to
3.13, what can behave differently there: the tests marked ``main_only`` (:data:`MAIN_ONLY` and
the tests that run mypy, which check every target Python from the main interpreter, see
tests/mypy_cache.py) are left out there. Each run is split between pytest-xdist workers (tests
sharing a costly fixture on one worker, see :func:`pytest_collection_modifyitems`); each worker has
its own scratch folders and, when a test needs one, its own PostgreSQL server
(:func:`postgres_url`). ``STATEWRIGHT_FUZZ_SEED`` seeds every property test (see tests/fuzz).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import hypothesis
import pytest
from statewright_compiler.cli import main

REPO = Path(__file__).resolve().parent.parent
#: Compiler and SCXML test files (tests/compiler/test_<name>.py, tests/scxml/test_<name>.py) run on
#: the main interpreter only (see :data:`MAIN_ONLY`).
COMPILER_FEATURES = """chart_triggers data_model expressions file_modes hardening history_cycles
    init injection invoke paths_shown payload_types schema string_positions tools"""
SCXML_FEATURES = "export import import_data_model import_invoke"
#: What runs on the main interpreter only (by path), and why that loses nothing.
MAIN_ONLY = {
    "tests/docs/": "renderers and pages: text from the compiler, checked by Graphviz, Mermaid, "
    "marked and mypy; the compiler itself is tested on every interpreter",
    "tests/conformance/": "the W3C charts end to end; charts and SCXML run everywhere in "
    "tests/charts and tests/scxml",
    "tests/packaging/": "wheels installed into fresh environments made by this interpreter",
    "tests/typing/test_packaging.py": "installs, then mypy on the installed packages",
    "tests/runtime/test_fleet.py": "eight processes for 30 s per store; both stores at once",
    "tests/mcp/": "the MCP server through the SDK's own client, in subprocesses, with each "
    "store (PostgreSQL too); the compiler and runtime under it run everywhere",
    "tests/test_structure.py": "the source tree's shape, read with ast from the files",
    "tests/deploy/": "two compiled models compared as data, and git; the compiler under it runs "
    "everywhere",
    "tests/scxml/test_cross_check.py": "python-statemachine runs what export-scxml writes; the "
    "export itself is tested everywhere",
    **dict.fromkeys(
        [f"tests/compiler/test_{name}.py" for name in COMPILER_FEATURES.split()]
        + [f"tests/scxml/test_{name}.py" for name in SCXML_FEATURES.split()],
        "the compiler's features: it has no version branch but its TOML parser (tomli on 3.10), "
        "and what it writes is the same bytes on every interpreter, which the goldens, the "
        "diagnostics, the command line, the byte-stability properties, large shapes and "
        "imported charts check everywhere",
    ),
}
#: Run first, one per xdist worker, so that both fleets share their 30 s (see MAIN_ONLY).
FIRST = "tests/runtime/test_fleet.py"
#: Wider-than-a-test fixtures every worker should have its own of, instead of grouping the tests
#: using them on one worker: each worker's own PostgreSQL server.
PER_WORKER_FIXTURES = frozenset({"postgres_url"})
#: Set to refresh golden files after an intended change; review the diff before committing.
UPDATE_GOLDEN = os.environ.get("STATEWRIGHT_UPDATE_GOLDEN") == "1"


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def run_cli(arguments: Sequence[str], cwd: Path | None = None) -> Run:
    """Run ``statewright ARGUMENTS`` in-process, capturing output and the exit code."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with (
        working_directory(cwd or Path.cwd()),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
    ):
        try:
            code = main(list(arguments))
        except SystemExit as exit_:  # argparse usage errors
            code = int(exit_.code or 0)
    return Run(code, stdout.getvalue(), stderr.getvalue())


def check_golden(path: Path, actual: str) -> None:
    """Compare ``actual`` with the golden file, or rewrite it when refreshing."""
    if UPDATE_GOLDEN:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"missing golden file {path}; run with STATEWRIGHT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")


@pytest.hookimpl(tryfirst=True)  # before Hypothesis's plugin reads its seed option
def pytest_configure(config: pytest.Config) -> None:
    """Name the run for tests/mypy_cache.py (``make test`` gives all its sessions one name); with
    ``STATEWRIGHT_FUZZ_SEED``, seed Hypothesis where :func:`pytest_runtest_setup` cannot (the
    stateful tests)."""
    os.environ.setdefault("STATEWRIGHT_RUN_ID", f"{time.time_ns()}-{os.getpid()}")
    seed = os.environ.get("STATEWRIGHT_FUZZ_SEED")
    if seed and config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = seed


#: Hypothesis tests by whether they were given a seed of their own (``@seed``).
_OWN_SEED: dict[int, bool] = {}
# A failing Hypothesis test prints the @reproduce_failure line that replays it exactly (as under
# CI=true, whose profile Hypothesis loads itself): its examples also draw on constants from the
# modules the process has loaded, which other tests on the same worker change.
hypothesis.settings.register_profile(
    "statewright", parent=hypothesis.settings.default, print_blob=True
)
hypothesis.settings.load_profile("statewright")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """With ``STATEWRIGHT_FUZZ_SEED``, seed each Hypothesis test that has no seed of its own from
    that seed and the test's id: a run replays from its seed, and the cases of one parametrized
    test, or tests drawing from one strategy, still get different examples (one seed for all, as
    ``--hypothesis-seed`` gives, would give them the same ones)."""
    seed = os.environ.get("STATEWRIGHT_FUZZ_SEED")
    test = getattr(item, "obj", None)  # a state machine's TestCase runs a method: seeded globally
    if not seed or not inspect.isfunction(test) or not hypothesis.is_hypothesis_test(test):
        return
    own = _OWN_SEED.setdefault(
        id(test), getattr(test, "_hypothesis_internal_use_seed", None) is not None
    )
    if not own:
        path, _, name = item.location  # not the node id, which xdist suffixes with the group
        hypothesis.seed(f"{seed}:{path}::{name}")(test)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Where only the tests not marked ``main_only`` run (``-m "not main_only"``, make test's
    other interpreters), skip :data:`MAIN_ONLY`'s files without importing them: their imports
    (the MCP SDK, pydantic) and assertion rewriting cost seconds per interpreter for tests that
    would all be deselected."""
    if config.getoption("markexpr", "") != "not main_only":
        return None
    path = (
        collection_path.relative_to(REPO).as_posix() if collection_path.is_relative_to(REPO) else ""
    )
    if any(path.startswith(prefix) or f"{path}/" == prefix for prefix in MAIN_ONLY):
        return True
    return None


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Mark :data:`MAIN_ONLY` and, for pytest-xdist (``--dist loadgroup``), group the tests
    sharing a module- or session-scoped fixture of this suite by that fixture (and its parameter),
    so that it is built on one worker only: before any other plugin's hook, xdist's reads the
    groups. Mark ``slow`` the tests that need a PostgreSQL server (an external tool: ``make
    check`` leaves them out). Once every other hook has reordered the items, put the fleet
    first."""
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if any(path.startswith(prefix) for prefix in MAIN_ONLY):
            item.add_marker(pytest.mark.main_only)
        if _uses_postgres(item):
            item.add_marker(pytest.mark.slow)
        group = _shared_fixture(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    yield
    items.sort(key=lambda item: not item.nodeid.startswith(FIRST))


def _uses_postgres(item: pytest.Item) -> bool:
    """Whether ``item`` asks for the server (:func:`postgres_url`), directly or through a
    parameter named ``postgres`` (the store kinds reach it with ``request.getfixturevalue``)."""
    callspec = getattr(item, "callspec", None)
    parameters = callspec.params.values() if callspec is not None else ()
    return "postgres_url" in getattr(item, "fixturenames", ()) or "postgres" in parameters


def _shared_fixture(item: pytest.Item) -> str | None:
    """The first fixture ``item`` uses that is wider than a test and defined in this suite."""
    if not isinstance(item, pytest.Function):
        return None
    for name in item.fixturenames:
        definitions = item._fixtureinfo.name2fixturedefs.get(name)
        if not definitions or name in PER_WORKER_FIXTURES:
            continue
        definition = definitions[-1]
        if definition.scope != "function" and definition.baseid:
            callspec = getattr(item, "callspec", None)
            index = callspec.indices.get(name, 0) if callspec is not None else 0
            return f"{definition.baseid}::{name}#{index}"  # xdist: no "]" in a group name
    return None


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server of its own for this test session, so for each xdist worker: tests on
    two workers never share a server (one of them restarts it) (tests/postgres_server.py)."""
    from tests.postgres_server import running_server

    with running_server() as url:
        yield url

"""mypy as the tests run it: from one interpreter, for every target Python, from a warm cache.

What a type check finds depends on the Python it targets (typeshed's and the runtime's
``sys.version_info`` branches), not on the interpreter mypy runs on. So the tests that run mypy
run on the main interpreter only (marker ``main_only``) and check once per :data:`TARGETS` entry
with ``--python-version``, the way mypy-protobuf separates the generator's Python from mypy's
target, instead of once per installed interpreter.

A cold mypy spends seconds on typeshed before it reads a test's files. :func:`run_mypy` starts
every check from this run's warm cache for the same options instead: the first check with given
options in a run (``STATEWRIGHT_RUN_ID``) runs in the shared cache ``.cache/mypy/<key>`` under an
exclusive lock, every later one copies it into its own cache directory (under a shared lock)
first, so neither xdist workers nor interpreters ever write one cache at once and no check writes
into another's. mypy checks each cached module against its source (files are passed by absolute
path so that a same-named file elsewhere is compared by content): a warm cache changes how long
a check takes, never what it reports.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Final

REPO: Final = Path(__file__).resolve().parent.parent
#: Every Python the project supports (pyproject's classifiers): what the typing tests target.
TARGETS: Final = ("3.10", "3.11", "3.12", "3.13")
#: This interpreter's version, the target of a check that names none.
RUNNING: Final = f"{sys.version_info.major}.{sys.version_info.minor}"
#: Where the warm caches live, one folder per interpreter running mypy and set of options.
WARM: Final = REPO / ".cache" / "mypy"
#: What every check is: ``mypy --strict`` and the repository's extra checks. Every test passes
#: these (and, besides, only options that change how mypy prints, :data:`OUTPUT_ONLY`), so that all
#: of a target's checks start from one warm cache: options that change what mypy checks (a plugin,
#: an error code on or off) make every cached module stale.
STRICT: Final = ("--strict", "--warn-unreachable", "--enable-error-code=ignore-without-code")
#: Options that change how mypy prints what it finds, not what it finds: left out of the key.
OUTPUT_ONLY: Final = frozenset(
    {"--no-error-summary", "--hide-error-context", "--no-pretty", "--show-error-codes"}
)
STAMP: Final = "statewright-run"
TIMEOUT: Final = 300


def mypy_python() -> str:
    """The interpreter that runs mypy: ``STATEWRIGHT_MYPY_PYTHON`` (``make test`` names the main
    one, so every interpreter's checks share its warm caches), else this one."""
    return os.environ.get("STATEWRIGHT_MYPY_PYTHON") or sys.executable


def run_id() -> str:
    """This run's name (tests/conftest.py sets one per session unless ``make test`` gave one)."""
    return os.environ.get("STATEWRIGHT_RUN_ID", "")


def run_mypy(
    options: Sequence[str],
    files: Sequence[str | Path],
    *,
    cwd: Path,
    cache_dir: Path,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m mypy OPTIONS --cache-dir CACHE_DIR FILES`` in ``cwd``, ``CACHE_DIR`` starting
    from the run's warm cache for ``options`` unless it exists already (a test's later checks
    then go on from its own earlier ones). ``options`` name the target (``--python-version``) and
    hold :data:`STRICT`."""
    assert "--python-version" in options, "name the target Python: --python-version"
    assert set(STRICT) <= set(options), f"check with {STRICT}, the options every test shares"
    paths = [str(cwd / file) for file in files]
    if not cache_dir.exists():
        shared = WARM / _key(options, cwd)
        shared.mkdir(parents=True, exist_ok=True)
        with _locked(shared, exclusive=True):
            stamp = shared / STAMP
            if not stamp.exists() or stamp.read_text(encoding="utf-8") != run_id():
                result = _mypy(options, paths, cwd, shared, env)
                stamp.write_text(run_id(), encoding="utf-8")
                return result
        with _locked(shared, exclusive=False):
            shutil.copytree(shared, cache_dir, ignore=shutil.ignore_patterns(STAMP, ".lock"))
    return _mypy(options, paths, cwd, cache_dir, env)


def _mypy(
    options: Sequence[str],
    paths: Sequence[str],
    cwd: Path,
    cache_dir: Path,
    env: Mapping[str, str] | None,
) -> subprocess.CompletedProcess[str]:
    command = [mypy_python(), "-m", "mypy", *options, "--cache-dir", str(cache_dir), *paths]
    return subprocess.run(
        command,
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def _key(options: Sequence[str], cwd: Path) -> str:
    """The warm cache's folder: the interpreter and the options that change what mypy checks, in
    any order, a config file by its settings (one that sets nothing is no config: the checks
    that write one only keep mypy from reading another). Not where installed packages come from
    (``--python-executable``, ``MYPYPATH``): mypy checks each cached module's path and source, so
    a cache warmed with one environment serves a check in another, rechecking what differs."""
    words = []
    rest = iter(options)
    for word in rest:
        if word == "--config-file":
            settings = (cwd / next(rest)).read_text(encoding="utf-8").strip()
            if settings != "[mypy]":
                words.append(f"{word}={settings}")
        elif word == "--python-executable":
            next(rest)
        elif word == "--python-version":
            words.append(f"{word}={next(rest)}")
        elif word not in OUTPUT_ONLY:
            words.append(word)
    words = [mypy_python(), *sorted(words)]  # in any order, the same check
    digest = hashlib.sha256(json.dumps(words).encode()).hexdigest()[:16]
    target = options[list(options).index("--python-version") + 1]
    return f"{target}-{digest}"


@contextlib.contextmanager
def _locked(folder: Path, *, exclusive: bool) -> Iterator[None]:
    """An advisory lock on ``folder`` shared by processes (a no-op where there is no flock)."""
    if sys.platform == "win32":
        yield
        return
    import fcntl

    with open(folder / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

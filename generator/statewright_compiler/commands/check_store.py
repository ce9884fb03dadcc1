"""``statewright check-store URL --module MODULE:CLASS``: the pre-deploy gate. Every instance
stored in ``URL`` is loaded, read-only and a batch at a time (:mod:`statewright._stores.scan`),
through the machine class about to be deployed and the options its workers restore with
(``--options``: their migrations and compatible fingerprints, or a migration stub's
``MIGRATIONS``), and each one the new module cannot continue is reported by id and reason
(:mod:`~statewright_compiler.deploy.store_check`).

Exit status: 0 when every instance loads, 1 when any is stranded, 2 on usage errors (a module,
class or options that cannot be imported or are not what they should be, a store that cannot
be opened or read). Stranded instances are printed as they are found (text), or in one JSON
document at the end (``--format json``, format ``statewright.check-store/1``, docs/runtime.md);
progress goes to standard error when it is a terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, TextIO

from statewright_compiler.commands.common import UsageError, import_named
from statewright_compiler.diagnostics import ExitCode

if TYPE_CHECKING:
    from statewright import Machine, MachineOptions

    from statewright_compiler.deploy.store_check import Stranded

__all__ = [
    "CHECK_STORE_FORMAT",
    "DEFAULT_BATCH",
    "Progress",
    "add_arguments",
    "command_check_store",
]

CHECK_STORE_FORMAT: Final = "statewright.check-store/1"
#: Instances read per batch (statewright._stores.scan.DEFAULT_BATCH, which the parser does not
#: import: every command builds the parser).
DEFAULT_BATCH: Final = 500


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "url", metavar="URL", help="the store: sqlite:///path, postgresql://..., file:///folder"
    )
    parser.add_argument(
        "--module",
        required=True,
        metavar="MODULE:CLASS",
        help="the generated machine class about to be deployed (the working folder is on sys.path)",
    )
    parser.add_argument(
        "--options",
        metavar="MODULE:NAME",
        help="the MachineOptions the workers restore with (migrations, compatible_fingerprints, "
        "codec), a function of no arguments returning them, or a mapping of migrations (a "
        "stub's MIGRATIONS) (default: MachineOptions())",
    )
    parser.add_argument("--format", choices=["text", "json"], default="text", help="default: text")
    parser.add_argument(
        "--batch",
        type=int,
        default=DEFAULT_BATCH,
        metavar="N",
        help=f"instances read per batch and read transaction (default {DEFAULT_BATCH})",
    )


def command_check_store(arguments: argparse.Namespace) -> ExitCode:
    from statewright import StoreError
    from statewright._stores.scan import scan_store

    from statewright_compiler.deploy.store_check import stranded

    if arguments.batch < 1:
        raise UsageError(f"--batch must be at least 1, not {arguments.batch}")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: the project's modules import
    cls = _machine_class(arguments.module)
    options = _options(arguments.options)
    shown = _shown(arguments.url)
    spec = cls.spec
    try:
        scan = scan_store(arguments.url, spec.name, arguments.batch)
    except StoreError as error:
        raise UsageError(str(error)) from None
    text = arguments.format == "text"
    found: list[Stranded] = []
    checked = 0
    progress = Progress(sys.stderr, scan.total) if sys.stderr.isatty() else None
    with scan:
        try:
            for _, problem in stranded(cls, scan, options):
                checked += 1
                if problem is not None:
                    found.append(problem)
                    if text:
                        if progress is not None:
                            progress.clear()
                        print(f"{problem.instance_id}: {problem.reason}", flush=True)
                if progress is not None:
                    progress.show(checked, len(found))
        except StoreError as error:
            raise UsageError(f"{shown}: {error}") from None
        finally:
            if progress is not None:
                progress.clear()
    others = scan.others
    if text:
        print(_summary(shown, spec, checked, len(found), others))
    else:
        document = {
            "format": CHECK_STORE_FORMAT,
            "store": shown,
            "machine": spec.name,
            "version": spec.version,
            "fingerprint": spec.spec_hash,
            "checked": checked,
            "stranded": [
                {"instance_id": s.instance_id, "field": s.field, "reason": s.reason} for s in found
            ],
            "others": others,
        }
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return ExitCode.FAILURE if found else ExitCode.OK


def _summary(shown: str, spec: Any, checked: int, count: int, others: dict[str, int]) -> str:
    line = (
        f"check-store {shown}: {count} of {checked} {spec.name} instances stranded under "
        f"version {spec.version}"
    )
    if others:
        listed = ", ".join(f"{name}: {n}" for name, n in others.items())
        line += f"; not checked: {sum(others.values())} of other machines ({listed})"
    return line


def _machine_class(path: str) -> type[Machine[Any, Any, Any]]:
    from statewright import AsyncMachine, Machine

    if ":" not in path:
        raise UsageError(f"--module {path}: expected MODULE:CLASS")
    cls = import_named(path, "--module")
    generated = isinstance(cls, type) and issubclass(cls, (Machine, AsyncMachine))
    if not generated or "spec" not in {name for klass in cls.__mro__ for name in vars(klass)}:
        raise UsageError(f"--module {path}: not a generated machine class ({cls!r:.80})")
    return cls  # type: ignore[no-any-return]  # checked above: a machine class (or async)


def _options(path: str | None) -> MachineOptions:
    from statewright import MachineOptions

    if path is None:
        return MachineOptions()
    if ":" not in path:
        raise UsageError(f"--options {path}: expected MODULE:NAME")
    found = import_named(path, "--options")
    if isinstance(found, Mapping):  # a stub's MIGRATIONS
        if not all(type(v) is int and callable(step) for v, step in found.items()):
            raise UsageError(f"--options {path}: not a mapping of versions to migrations")
        return MachineOptions(migrations=found)
    if callable(found) and not isinstance(found, MachineOptions):
        try:
            found = found()
        except Exception as error:  # the user's code: reported, not a traceback
            raise UsageError(f"--options {path}() raised {type(error).__name__}: {error}") from None
    if not isinstance(found, MachineOptions):
        raise UsageError(f"--options {path}: not MachineOptions ({found!r:.80})")
    return found


def _shown(url: str) -> str:
    """The store as messages show it: a PostgreSQL URL without its password."""
    from statewright import StoreError
    from statewright._stores.url import store_location

    try:
        backend = store_location(url).backend
    except StoreError as error:
        raise UsageError(str(error)) from None
    if backend == "postgresql":
        from statewright._stores.postgres import shown_url

        return shown_url(url)
    return url


class Progress:
    """``checked 12,500 of 100,000, 3 stranded`` on one line of a terminal, rewritten at most
    every :data:`EVERY` seconds."""

    EVERY: Final = 0.2

    def __init__(self, stream: TextIO, total: int) -> None:
        self._stream, self._total, self._shown_at = stream, total, 0.0
        self._width = 0

    def show(self, checked: int, count: int) -> None:
        now = time.monotonic()
        if now - self._shown_at < self.EVERY and checked < self._total:
            return
        self._shown_at = now
        line = f"check-store: checked {checked:,} of {self._total:,}, {count:,} stranded"
        self._width = max(self._width, len(line))
        self._stream.write(f"\r{line}")
        self._stream.flush()

    def clear(self) -> None:
        if self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()

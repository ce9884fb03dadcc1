"""Where the two sides of a diff come from: a spec file, or ``REV:path``, a spec as git holds
it at a revision (read with ``git show``; nothing is checked out).

Each side goes through the normal front of the pipeline (load, validate, model): a side that
does not compile is its diagnostics (:class:`SpecError`), shown under the name the user gave.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from statewright_compiler.check.validate import validate_source
from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.model import Machine
from statewright_compiler.spec.limits import MAX_SPEC_BYTES
from statewright_compiler.spec.load import load_spec, parse_spec_text

__all__ = [
    "SourceError",
    "exists_at",
    "git_show",
    "load_side",
    "repository_path",
    "verify_revision",
]


class SourceError(Exception):
    """A side names no readable spec (no such file, unknown revision, not a git repository)."""


def _git(arguments: list[str], cwd: Path) -> bytes:
    try:
        done = subprocess.run(
            ["git", *arguments], cwd=cwd, capture_output=True, check=False, timeout=60
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise SourceError(f"cannot run git: {error}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {' '.join(arguments)}: {reason[-1] if reason else 'failed'}")
    return done.stdout


def git_show(revision_path: str, cwd: Path) -> str:
    """The text of ``REV:path`` (git's syntax: ``REV:./x`` is relative to ``cwd``)."""
    data = _git(["show", "--no-textconv", revision_path], cwd)
    if len(data) > MAX_SPEC_BYTES:
        message = f"the file has {len(data):,} bytes; specs are limited to {MAX_SPEC_BYTES:,}"
        raise SpecError([Diagnostic("limit-exceeded", revision_path, 1, 1, message)])
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise SourceError(f"{revision_path} is not valid UTF-8") from None


def verify_revision(revision: str, cwd: Path) -> None:
    """Raise :class:`SourceError` unless ``revision`` names a commit."""
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], cwd)
    except SourceError as error:
        raise SourceError(f"{revision!r} names no commit here ({error})") from None


def exists_at(revision_path: str, cwd: Path) -> bool:
    """Whether ``REV:path`` names a file."""
    try:
        _git(["cat-file", "-e", revision_path], cwd)
    except SourceError:
        return False
    return True


def repository_path(path: Path) -> str:
    """``path`` relative to the top of the git repository holding it (``REV:<this>``)."""
    top = _git(["rev-parse", "--show-toplevel"], path.resolve().parent).decode().strip()
    return path.resolve().relative_to(Path(top).resolve()).as_posix()


def load_side(argument: str, cwd: Path) -> Machine:
    """The machine ``argument`` names: a spec file, else ``REV:path``; raises
    :class:`SpecError` when it does not compile, :class:`SourceError` when it names nothing."""
    path = cwd / argument
    if path.is_file():
        machine, _ = validate_source(load_spec(path, argument))
        return machine
    if ":" not in argument:
        raise SourceError(f"no such spec file: {argument} (a spec at a revision is REV:path)")
    text = git_show(argument, cwd)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    machine, _ = validate_source(parse_spec_text(text, argument, digest))
    return machine

"""A throwaway PostgreSQL server for the tests: Debian's ``postgresql`` package, started here.

``initdb`` creates a cluster in a temporary directory, ``pg_ctl`` starts it listening on a unix
socket in that directory only (no TCP port), with ``trust`` authentication, and stops it at the
end. PostgreSQL refuses to run as root, so as root both run as ``nobody`` (``runuser``), which
owns the directory. ``make postgres`` installs the package (apt-get, as root) or says what to
install. Missing PostgreSQL skips the tests that need it, and fails them with ``CI=true``.

Durability settings are relaxed (``fsync=off``): the tests kill workers, never the server, and
check what the server acknowledged, which a running server keeps either way.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

#: Where Debian puts the server's programs (the wrappers on PATH need a configured cluster).
DEBIAN_BINARIES = "/usr/lib/postgresql/*/bin"
#: ``pg_ctl`` arguments that start each running server again, by URL (see stop_and_start).
_RESTART: dict[str, list[str]] = {}


def missing(reason: str) -> NoReturn:
    message = (
        f"PostgreSQL is not available ({reason}); run `make postgres` "
        "(or: apt-get install postgresql)"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " [CI=true: a missing tool is a failure]", pytrace=False)
    pytest.skip(message)


def binaries() -> Path | None:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``, newest version first."""
    override = os.environ.get("STATEWRIGHT_PG_BIN")
    candidates = [override] if override else []
    candidates += sorted(glob.glob(DEBIAN_BINARIES), reverse=True)
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent))
    for candidate in candidates:
        folder = Path(candidate)
        if all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _as_owner(command: list[str]) -> list[str]:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return ["runuser", "-u", "nobody", "--", *command]
    return command


@contextlib.contextmanager
def running_server() -> Iterator[str]:
    """Start a server and yield its URL; stop it and delete its files afterwards."""
    folder = binaries()
    if folder is None:
        missing("no initdb/pg_ctl found")
    base = Path(tempfile.mkdtemp(prefix="sw-pg-"))  # short: a socket path has ~100 bytes
    data, log = base / "data", base / "server.log"
    try:
        if os.geteuid() == 0:
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(base, nobody.pw_uid, nobody.pw_gid)
        initdb = [str(folder / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]
        _run([*initdb, "--no-sync", "-E", "UTF8", "--locale=C"], "initdb")
        options = (
            f"-k {base} -c listen_addresses='' -c fsync=off -c full_page_writes=off "
            "-c max_connections=60 -c shared_buffers=32MB"
        )
        control = [str(folder / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60"]
        _run([*control, "-o", options, "start"], "pg_ctl start", log)
        url = f"postgresql://postgres@/postgres?host={base}"
        _RESTART[url] = [*control, "-m", "fast", "-o", options, "restart"]
        try:
            yield url
        finally:
            _RESTART.pop(url, None)
            subprocess.run(
                _as_owner([str(folder / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
                capture_output=True,
                check=False,
                timeout=120,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def stop_and_start(url: str) -> None:
    """Restart the server at ``url`` (connections to it are dropped)."""
    _run(_RESTART[url], "pg_ctl restart")


def _run(command: list[str], what: str, log: Path | None = None) -> None:
    result = subprocess.run(
        _as_owner(command), capture_output=True, text=True, check=False, timeout=180
    )
    if result.returncode != 0:
        detail = result.stderr.strip() or result.stdout.strip()
        if log is not None and log.exists():
            detail += "\n" + log.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"{what} failed ({result.returncode}): {detail}")

"""What ``statewright check-store`` costs per 10,000 stored instances, and that it stays so: time
linear in the store's size, memory bounded whatever the size.

The store: a SQLite file holding ``--instances`` (100,000) instances of the issue's agent task as
v1 saved them (tests/deploy/fleet.py: an approval pending with its timer, a suspended task with
its child machine, an archived one, a finished one, one still planning, in turn), each row as the
store writes it (a head with its checksum, history records as rows), inserted in one
transaction from five instances saved by v1 itself (their heads re-keyed and checksummed
again). The check: what the command runs (:func:`statewright._stores.scan.scan_store`,
read-only, ``--batch`` instances per read transaction, then
:func:`statewright_compiler.deploy.store_check.stranded`), each instance restored through v2 and
its migration; none is stranded.

The check runs in a process of its own (this script with ``--check``), so that its peak RSS is
its own: printed after every 10,000 instances with the seconds those took. With ``--traced``,
a second pass gives each 10,000's peak of memory allocated by Python (tracemalloc, which slows
everything down: its seconds are not comparable).

    python bench/bench_check_store.py [--instances 100000] [--batch 500] [--traced]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "runtime"), str(ROOT)]

from statewright import SqliteStore  # noqa: E402
from statewright._stores.codec import canonical, checksum  # noqa: E402
from statewright._stores.scan import scan_store  # noqa: E402
from statewright_compiler.deploy.store_check import stranded  # noqa: E402

from tests.deploy.fleet import (  # noqa: E402
    MIGRATED,
    V2_BUMPED,
    load_module,
    store_fleet,
    write_module,
)

STEP = 10_000


def build(folder: Path, instances: int) -> Path:
    """The store of ``instances`` v1 instances (see the module)."""
    path = folder / "fleet.db"
    with SqliteStore(path) as store:
        store_fleet(folder, store, "bench")
    db = sqlite3.connect(path, isolation_level=None)
    heads = db.execute(
        "SELECT instance_id, machine, snapshot FROM statewright_instances "
        "WHERE machine = 'AgentTask' ORDER BY instance_id"
    ).fetchall()
    records = {
        instance_id: db.execute(
            "SELECT event_id, record, checksum FROM statewright_history WHERE instance_id = ?",
            (instance_id,),
        ).fetchall()
        for instance_id, _, _ in heads
    }
    db.execute("BEGIN")
    db.execute("DELETE FROM statewright_instances WHERE machine = 'AgentTask'")
    db.execute("DELETE FROM statewright_history")
    db.execute("DELETE FROM statewright_due")
    for n in range(instances):
        template, machine, text = heads[n % len(heads)]
        instance_id = f"task-{n:07d}"
        head = json.loads(text)
        head["instance_id"] = instance_id
        head_text = canonical(head)
        db.execute(
            "INSERT INTO statewright_instances VALUES (?, ?, ?, ?, ?, ?)",
            (instance_id, machine, head["revision"], head_text, 0.0, checksum(head_text)),
        )
        db.executemany(
            "INSERT INTO statewright_history VALUES (?, ?, ?, ?)",
            [(instance_id, *row) for row in records[template]],
        )
    db.execute("COMMIT")
    db.close()
    write_module(folder, V2_BUMPED, "agent_v2_bench")
    return path


def check(folder: Path, batch: int, traced: bool) -> None:
    """Check the store as the command does, printing a line of figures per :data:`STEP`."""
    sys.path.insert(0, str(folder))
    v2 = load_module(folder / "agent_v2_bench.py").AgentTaskMachine
    url = f"sqlite:{folder / 'fleet.db'}"
    if traced:
        tracemalloc.start()
    started = mark = time.perf_counter()
    with scan_store(url, "AgentTask", batch) as scan:
        for count, (_, problem) in enumerate(stranded(v2, scan, MIGRATED), start=1):
            assert problem is None, problem
            if count % STEP == 0 or count == scan.total:
                now = time.perf_counter()
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
                peak = tracemalloc.get_traced_memory()[1] / 2**20 if traced else float("nan")
                print(f"{count:>10,}  {now - mark:10.2f}  {now - started:8.2f}  {rss:9.1f}  "
                      f"{peak:9.2f}", flush=True)  # fmt: skip
                if traced:
                    tracemalloc.reset_peak()
                mark = now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--traced", action="store_true", help="a second pass under tracemalloc")
    parser.add_argument("--check", metavar="FOLDER", help=argparse.SUPPRESS)  # the child process
    arguments = parser.parse_args()
    if arguments.check:
        check(Path(arguments.check), arguments.batch, traced=arguments.traced)
        return
    print(
        f"check-store over {arguments.instances:,} stored instances, SQLite, batch "
        f"{arguments.batch}; Python {platform.python_version()} on {platform.machine()}"
    )
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        started = time.perf_counter()
        path = build(folder, arguments.instances)
        size = path.stat().st_size / 2**20
        print(f"store built in {time.perf_counter() - started:.1f} s: {size:.1f} MB on disk")
        passes = [False, True] if arguments.traced else [False]
        for traced in passes:
            print()
            print("under tracemalloc (seconds not comparable)" if traced else "the check:")
            print(" instances  s (these)   s total  peak RSS MB  traced peak MB (these)")
            command = [sys.executable, __file__, "--check", str(folder)]
            command += ["--batch", str(arguments.batch)] + (["--traced"] if traced else [])
            subprocess.run(command, check=True)


if __name__ == "__main__":
    main()

"""The SQLite store's tables, and bringing a database written by an earlier release up to date.

``statewright_instances`` keeps the layout of statewright 0.2 (one row per instance: the head,
or a whole snapshot), so that 0.2 can still read what it wrote. What later versions add lives
in tables of its own: ``statewright_history`` (one row per history record) and
``statewright_due`` (the due-timer index and its leases). Opening a database creates what is
missing in one ``BEGIN IMMEDIATE`` transaction (one process migrates, the others then find it
done); the ``checksum`` column that 0.2's later releases added is added the same way. A
read-only database that cannot be migrated still loads (its rows are whole snapshots).
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Final

__all__ = ["checksum_column", "migrate"]

_INSTANCES: Final = """
CREATE TABLE IF NOT EXISTS statewright_instances (
    instance_id TEXT PRIMARY KEY,
    machine TEXT NOT NULL,
    revision INTEGER NOT NULL,
    snapshot TEXT NOT NULL,
    updated_at REAL NOT NULL,
    checksum TEXT
)
"""
_ADDED: Final = (
    """CREATE TABLE IF NOT EXISTS statewright_history (
        instance_id TEXT NOT NULL,
        event_id INTEGER NOT NULL,
        record TEXT NOT NULL,
        checksum TEXT NOT NULL,
        PRIMARY KEY (instance_id, event_id)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS statewright_due (
        instance_id TEXT PRIMARY KEY,
        next_due REAL NOT NULL,
        lease_until REAL
    )""",
    "CREATE INDEX IF NOT EXISTS statewright_due_by_time ON statewright_due (next_due)",
)


def migrate(db: sqlite3.Connection) -> bool:
    """Create or complete the tables; False when the database cannot be written (read-only).
    ``sqlite3.Error`` escapes only from the first statement (a file that is no database)."""
    db.execute(_INSTANCES)  # a no-op on a read-only database that has it
    if _complete(db):
        return True
    try:
        db.execute("BEGIN IMMEDIATE")  # one process migrates, the others then see it done
    except sqlite3.Error:
        return False
    try:
        if checksum_column(db) == "NULL":
            db.execute("ALTER TABLE statewright_instances ADD COLUMN checksum TEXT")
        for statement in _ADDED:
            db.execute(statement)
        db.execute("COMMIT")
    except sqlite3.Error:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        return False
    return True


def checksum_column(db: sqlite3.Connection) -> str:
    """What to select as an instance's checksum: the column, or ``NULL`` in a database not yet
    migrated from before checksums (its rows load unverified)."""
    rows = db.execute("PRAGMA table_info(statewright_instances)").fetchall()
    return "checksum" if any(row[1] == "checksum" for row in rows) else "NULL"


def _complete(db: sqlite3.Connection) -> bool:
    tables = db.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
        "('statewright_history', 'statewright_due')"
    ).fetchone()
    return checksum_column(db) == "checksum" and tables[0] == 2

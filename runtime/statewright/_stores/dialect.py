"""Where SQLite and PostgreSQL differ, as data: one :class:`Dialect` for each, every statement once.

The two SQL stores keep the same three tables (``statewright_instances``, ``statewright_history``,
``statewright_due``) and run the same statements on them (:mod:`statewright._stores.sql`). What
differs is a handful of words, and each is a field here rather than a branch in a store:

- placeholders: ``?`` (sqlite3) or ``%s`` (psycopg);
- column types: SQLite's ``TEXT``/``INTEGER``/``REAL``, PostgreSQL's ``text``/``bigint``/
  ``double precision``; SQLite keeps statewright 0.2's instance table (a nullable checksum, no
  more columns), PostgreSQL's has two more from its start: ``split`` (the row is a head whose
  records are rows) and ``total_transitions`` (where those rows end); SQLite's history table is
  ``WITHOUT ROWID``;
- the lock a save holds while it reads what it needs of the stored instance: SQLite's
  ``BEGIN IMMEDIATE`` takes the database's write lock; PostgreSQL's ``BEGIN`` takes none, so a
  save first selects the instance's row ``FOR UPDATE`` (the revision is checked either way by
  the head's ``UPDATE ... WHERE revision = ?``);
- the due-timer claim, a ``SELECT`` of due rows then an ``UPDATE`` of their leases in one write
  transaction: PostgreSQL's ``SELECT`` ends in ``FOR UPDATE SKIP LOCKED`` (workers never wait
  for each other's claims), SQLite's needs nothing (its write lock makes the two one step);
- how a load reads the head and its records from one snapshot: SQLite's ``BEGIN`` does,
  PostgreSQL needs ``REPEATABLE READ``.

Upserts are the same words in both (``INSERT ... ON CONFLICT ... DO UPDATE``, SQLite 3.24 or
later), and so is everything else. Statements are written below with ``?`` and rendered for each
dialect once, when the module is imported.
"""

from __future__ import annotations

from typing import Final

__all__ = ["POSTGRES", "SQLITE", "Dialect"]

#: The instance columns of statewright 0.2 that every insert and update of a head writes (the
#: ``instance_id`` aside), in this order, then a dialect's ``extra_columns``.
HEAD_COLUMNS: Final = ("machine", "revision", "snapshot", "updated_at", "checksum")


class Dialect:
    """What differs between two SQL databases (the fields given), and every statement the SQL
    stores run, rendered from them (the other attributes)."""

    __slots__ = (
        "begin_read",
        "begin_write",
        "claim_lock",
        "delete_due",
        "delete_instance",
        "delete_records",
        "extra_columns",
        "insert_head",
        "lease",
        "list_ids",
        "lock_head",
        "name",
        "placeholder",
        "prune_records",
        "release",
        "row_lock",
        "schema",
        "select_due",
        "select_head",
        "select_records",
        "select_revision",
        "update_head",
        "upsert_due",
        "upsert_record",
    )

    def __init__(
        self,
        *,
        name: str,
        placeholder: str,
        text: str,
        integer: str,
        real: str,
        checksum_constraint: str,
        extra_columns: tuple[tuple[str, str], ...],
        history_options: str,
        begin_read: str,
        begin_write: str,
        row_lock: str,
        claim_lock: str,
    ) -> None:
        self.name = name
        self.placeholder = placeholder
        #: The instance columns beyond 0.2's layout, ``(name, type)``: a save writes them too.
        self.extra_columns = tuple(column for column, _ in extra_columns)
        self.begin_read = begin_read
        self.begin_write = begin_write
        self.row_lock = row_lock
        self.claim_lock = claim_lock
        extra_definitions = "".join(f",\n    {c} {kind}" for c, kind in extra_columns)
        self.schema = (
            "CREATE TABLE IF NOT EXISTS statewright_instances (\n"
            f"    instance_id {text} PRIMARY KEY,\n"
            f"    machine {text} NOT NULL,\n"
            f"    revision {integer} NOT NULL,\n"
            f"    snapshot {text} NOT NULL,\n"
            f"    updated_at {real} NOT NULL,\n"
            f"    checksum {text}{checksum_constraint}{extra_definitions}\n"
            ")",
            "CREATE TABLE IF NOT EXISTS statewright_history (\n"
            f"    instance_id {text} NOT NULL,\n"
            f"    event_id {integer} NOT NULL,\n"
            f"    record {text} NOT NULL,\n"
            f"    checksum {text} NOT NULL,\n"
            "    PRIMARY KEY (instance_id, event_id)\n"
            f"){history_options}",
            "CREATE TABLE IF NOT EXISTS statewright_due (\n"
            f"    instance_id {text} PRIMARY KEY,\n"
            f"    next_due {real} NOT NULL,\n"
            f"    lease_until {real}\n"
            ")",
            "CREATE INDEX IF NOT EXISTS statewright_due_by_time ON statewright_due (next_due)",
        )
        written = (*HEAD_COLUMNS, *self.extra_columns)
        sql = self._render
        self.select_head = sql(
            "SELECT revision, snapshot, checksum FROM statewright_instances WHERE instance_id = ?"
        )
        self.select_records = sql(
            "SELECT event_id, record, checksum FROM statewright_history "
            "WHERE instance_id = ? AND event_id > ? AND event_id <= ? ORDER BY event_id"
        )
        #: Locks the row a save reads, or None where ``begin_write`` locked the database.
        self.lock_head = (
            sql(
                f"SELECT revision, {', '.join(self.extra_columns)} FROM statewright_instances "
                f"WHERE instance_id = ?{row_lock}"
            )
            if row_lock
            else None
        )
        self.select_revision = sql(
            "SELECT revision FROM statewright_instances WHERE instance_id = ?"
        )
        self.insert_head = sql(
            f"INSERT INTO statewright_instances (instance_id, {', '.join(written)}) "
            f"VALUES (?{', ?' * len(written)}) ON CONFLICT (instance_id) DO NOTHING"
        )
        self.update_head = sql(
            f"UPDATE statewright_instances SET {', '.join(f'{c} = ?' for c in written)} "
            "WHERE instance_id = ? AND revision = ?"
        )
        self.delete_records = sql("DELETE FROM statewright_history WHERE instance_id = ?")
        self.upsert_record = sql(
            "INSERT INTO statewright_history VALUES (?, ?, ?, ?) "
            "ON CONFLICT (instance_id, event_id) DO UPDATE "
            "SET record = excluded.record, checksum = excluded.checksum"
        )
        self.prune_records = sql(
            "DELETE FROM statewright_history WHERE instance_id = ? AND event_id < ?"
        )
        self.upsert_due = sql(
            "INSERT INTO statewright_due (instance_id, next_due) VALUES (?, ?) "
            "ON CONFLICT (instance_id) DO UPDATE SET next_due = excluded.next_due"
        )
        self.delete_due = sql("DELETE FROM statewright_due WHERE instance_id = ?")
        self.delete_instance = sql("DELETE FROM statewright_instances WHERE instance_id = ?")
        self.list_ids = sql("SELECT instance_id FROM statewright_instances ORDER BY instance_id")
        self.select_due = sql(
            "SELECT instance_id FROM statewright_due WHERE next_due <= ? "
            "AND (lease_until IS NULL OR lease_until <= ?) "
            f"ORDER BY next_due, instance_id LIMIT ?{claim_lock}"
        )
        self.lease = sql("UPDATE statewright_due SET lease_until = ? WHERE instance_id = ?")
        self.release = sql("UPDATE statewright_due SET lease_until = NULL WHERE instance_id = ?")

    def _render(self, statement: str) -> str:
        return statement.replace("?", self.placeholder)

    def __repr__(self) -> str:
        return f"<Dialect {self.name}>"


SQLITE: Final = Dialect(
    name="sqlite",
    placeholder="?",
    text="TEXT",
    integer="INTEGER",
    real="REAL",
    checksum_constraint="",  # rows written before checksums have none (they load unverified)
    extra_columns=(),  # statewright 0.2's layout, so that 0.2 can still read what it wrote
    history_options=" WITHOUT ROWID",
    begin_read="BEGIN",
    begin_write="BEGIN IMMEDIATE",
    row_lock="",
    claim_lock="",
)

POSTGRES: Final = Dialect(
    name="postgresql",
    placeholder="%s",
    text="text",
    integer="bigint",
    real="double precision",
    checksum_constraint=" NOT NULL",
    extra_columns=(("split", "boolean NOT NULL"), ("total_transitions", "bigint")),
    history_options="",
    begin_read="BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    begin_write="BEGIN",
    row_lock=" FOR UPDATE",
    claim_lock=" FOR UPDATE SKIP LOCKED",
)

"""Where SQLite and PostgreSQL differ, as data: one :class:`Dialect` for each, every statement once.

The two SQL stores keep the same tables (``statewright_instances``, ``statewright_history``) and
run the same statements on them (:mod:`statewright._stores.sql`, the layout in
:mod:`statewright._stores.layout`). What differs is a handful of words, and each is a field
here rather than a branch in a store:

- placeholders: ``?`` (sqlite3) or ``%s`` (psycopg);
- column types: SQLite's ``TEXT``/``INTEGER``/``REAL``, PostgreSQL's ``text``/``bigint``/
  ``double precision``; SQLite keeps statewright 0.2's instance table (a nullable checksum) with
  the columns added since, PostgreSQL's has two more from its start: ``split`` (the row is a
  head, not a whole snapshot) and ``total_transitions``; SQLite's history table is
  ``WITHOUT ROWID``; adding a column: SQLite has no ``IF NOT EXISTS`` there (its store asks
  first);
- the lock a save that reads the stored row holds: SQLite's ``BEGIN IMMEDIATE`` takes the
  database's write lock; PostgreSQL's ``BEGIN`` takes none, so the row is selected ``FOR
  UPDATE`` (the revision is checked either way by the head's ``UPDATE ... WHERE revision = ?``);
- the due-timer claim, a ``SELECT`` of due rows then an ``UPDATE`` of their leases in one write
  transaction: PostgreSQL's ``SELECT`` ends in ``FOR UPDATE SKIP LOCKED`` (workers never wait
  for each other's claims), SQLite's needs nothing (its write lock makes the two one step);
- how a load reads the head and its record rows from one snapshot: SQLite's ``BEGIN`` does,
  PostgreSQL needs ``REPEATABLE READ``.

The due-timer index is two columns of the instance's row (``next_due``, ``lease_until``), so
the save that moves an instance's timers writes them in its one statement; the table
``statewright_due`` that held them before layout 2 is kept, empty (opening an older store
moves its rows). Upserts are the same words in both (``INSERT ... ON CONFLICT ... DO UPDATE``,
SQLite 3.24 or later), and so is everything else. Statements are written below with ``?`` and
rendered for each dialect once, when the module is imported.
"""

from __future__ import annotations

from typing import Final

__all__ = ["POSTGRES", "SQLITE", "Dialect"]

#: The instance columns that every insert and update of a head writes (the ``instance_id``
#: aside), in this order, then a dialect's ``extra_columns``: 0.2's, and ``next_due``.
HEAD_COLUMNS: Final = ("machine", "revision", "snapshot", "updated_at", "checksum", "next_due")
#: The row length from which PostgreSQL compresses an instance row's text (TOAST): its largest
#: (a page's room for one row), not the default ~2 kB, so that a head row with the records it
#: keeps is written as it is, not compressed at every save (compressing costs more than the
#: flushes a shorter row needs: bench/bench_save.py).
TOAST_TUPLE_TARGET: Final = 8160
#: The columns layout 2 added to the instance table, and their types by dialect.
ADDED_COLUMNS: Final = ("next_due", "lease_until")


class Dialect:
    """What differs between two SQL databases (the fields given), and every statement the SQL
    stores run, rendered from them (the other attributes)."""

    __slots__ = (
        "add_columns",
        "begin_read",
        "begin_write",
        "delete_instance",
        "delete_records",
        "extra_columns",
        "flush",
        "index",
        "insert_head",
        "lease",
        "list_ids",
        "lock_head",
        "move_due",
        "name",
        "placeholder",
        "prune_records",
        "release",
        "row_chars",
        "schema",
        "select_due",
        "select_head",
        "select_records",
        "select_revision",
        "update_head",
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
        instance_options: str,
        add_column: str,
        begin_read: str,
        begin_write: str,
        row_lock: str,
        claim_lock: str,
        arrays: str | None,
        row_chars: int,
    ) -> None:
        self.name = name
        self.placeholder = placeholder
        #: How long a head row's text may grow with the records it keeps (layout 2).
        self.row_chars = row_chars
        #: The instance columns beyond 0.2's layout and ``next_due``, ``(name, type)``: a save
        #: writes them too.
        self.extra_columns = tuple(column for column, _ in extra_columns)
        self.begin_read = begin_read
        self.begin_write = begin_write
        extra_definitions = "".join(f",\n    {c} {kind}" for c, kind in extra_columns)
        self.schema = (
            "CREATE TABLE IF NOT EXISTS statewright_instances (\n"
            f"    instance_id {text} PRIMARY KEY,\n"
            f"    machine {text} NOT NULL,\n"
            f"    revision {integer} NOT NULL,\n"
            f"    snapshot {text} NOT NULL,\n"
            f"    updated_at {real} NOT NULL,\n"
            f"    checksum {text}{checksum_constraint}{extra_definitions},\n"
            f"    next_due {real},\n"
            f"    lease_until {real}\n"
            f"){instance_options}",
            "CREATE TABLE IF NOT EXISTS statewright_history (\n"
            f"    instance_id {text} NOT NULL,\n"
            f"    event_id {integer} NOT NULL,\n"
            f"    record {text} NOT NULL,\n"
            f"    checksum {text} NOT NULL,\n"
            "    PRIMARY KEY (instance_id, event_id)\n"
            f"){history_options}",
            # Before layout 2 the due-timer index; kept (empty) for what still looks for it.
            "CREATE TABLE IF NOT EXISTS statewright_due (\n"
            f"    instance_id {text} PRIMARY KEY,\n"
            f"    next_due {real} NOT NULL,\n"
            f"    lease_until {real}\n"
            ")",
        )
        #: Created once the instance table has its due-time columns (after ``add_columns``).
        self.index = (
            "CREATE INDEX IF NOT EXISTS statewright_instances_by_due ON statewright_instances "
            "(next_due, instance_id) WHERE next_due IS NOT NULL"
        )
        #: Bringing an instance table from before layout 2 up to date: its columns (a store
        #: that cannot say ``IF NOT EXISTS`` runs those it lacks), then the due times moved in.
        self.add_columns = {
            column: f"ALTER TABLE statewright_instances ADD COLUMN {add_column}{column} {real}"
            for column in ADDED_COLUMNS
        }
        self.move_due = (
            "UPDATE statewright_instances SET "
            + ", ".join(
                f"{column} = (SELECT d.{column} FROM statewright_due d "
                "WHERE d.instance_id = statewright_instances.instance_id)"
                for column in ADDED_COLUMNS
            )
            + " WHERE instance_id IN (SELECT instance_id FROM statewright_due)",
            "DELETE FROM statewright_due",
        )
        written = (*HEAD_COLUMNS, *self.extra_columns)
        sql = self._render
        self.select_head = sql(
            "SELECT revision, snapshot, checksum FROM statewright_instances WHERE instance_id = ?"
        )
        #: The stored row a save reads, locked against the row's other writers.
        self.lock_head = self.select_head + row_lock
        self.select_records = sql(
            "SELECT event_id, record, checksum FROM statewright_history "
            "WHERE instance_id = ? AND event_id > ? AND event_id <= ? ORDER BY event_id"
        )
        self.select_revision = sql(
            "SELECT revision FROM statewright_instances WHERE instance_id = ?"
        )
        self.insert_head = sql(
            f"INSERT INTO statewright_instances (instance_id, {', '.join(written)}) "
            f"VALUES (?{', ?' * len(written)}) ON CONFLICT (instance_id) DO NOTHING"
        )
        #: A save ends any lease on the instance: whoever fires its timers next loads this.
        self.update_head = sql(
            f"UPDATE statewright_instances SET {', '.join(f'{c} = ?' for c in written)}, "
            "lease_until = NULL WHERE instance_id = ? AND revision = ?"
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
        self.delete_instance = sql("DELETE FROM statewright_instances WHERE instance_id = ?")
        self.list_ids = sql("SELECT instance_id FROM statewright_instances ORDER BY instance_id")
        #: A flush as one statement (see :mod:`statewright._stores.layout`), where the database
        #: has one: PostgreSQL's data-modifying ``WITH`` updates the head (compare and swap),
        #: inserts the records (arrays of event ids, texts, checksums) and deletes the rows
        #: below an event id, all or nothing, and returns how many heads it updated (0: a lost
        #: race); ``arrays`` is the placeholder of its three array parameters. SQLite has none:
        #: its flush is a transaction of those statements.
        self.flush = (
            sql(
                "WITH head AS (UPDATE statewright_instances SET "
                f"{', '.join(f'{c} = ?' for c in written)}, lease_until = NULL "
                "WHERE instance_id = ? AND revision = ? RETURNING instance_id), "
                "added AS (INSERT INTO statewright_history "
                "SELECT head.instance_id, r.event_id, r.record, r.checksum FROM head, "
                f"unnest({arrays}::bigint[], {arrays}::text[], {arrays}::text[]) "
                "AS r(event_id, record, checksum) "
                "ON CONFLICT (instance_id, event_id) DO UPDATE "
                "SET record = excluded.record, checksum = excluded.checksum), "
                "pruned AS (DELETE FROM statewright_history "
                "WHERE instance_id IN (SELECT instance_id FROM head) AND event_id < ?) "
                "SELECT count(*) FROM head"
            )
            if arrays is not None
            else None
        )
        self.select_due = sql(
            "SELECT instance_id FROM statewright_instances WHERE next_due <= ? "
            "AND (lease_until IS NULL OR lease_until <= ?) "
            f"ORDER BY next_due, instance_id LIMIT ?{claim_lock}"
        )
        self.lease = sql("UPDATE statewright_instances SET lease_until = ? WHERE instance_id = ?")
        self.release = sql(
            "UPDATE statewright_instances SET lease_until = NULL WHERE instance_id = ?"
        )

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
    extra_columns=(),  # statewright 0.2's layout and the columns added since (nullable)
    history_options=" WITHOUT ROWID",
    instance_options="",
    add_column="",
    begin_read="BEGIN",
    begin_write="BEGIN IMMEDIATE",
    row_lock="",
    claim_lock="",
    arrays=None,
    row_chars=3800,  # a 4,096-byte page, less the row's other columns: no overflow page
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
    instance_options=f" WITH (toast_tuple_target = {TOAST_TUPLE_TARGET})",
    add_column="IF NOT EXISTS ",
    begin_read="BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    begin_write="BEGIN",
    row_lock=" FOR UPDATE",
    claim_lock=" FOR UPDATE SKIP LOCKED",
    # psycopg's binary placeholder: in text, an array of JSON texts is escaped quote by quote
    # (a regular expression substitution per quote in psycopg, ~50 us per record); in binary
    # each text is copied as it is.
    arrays="%b",
    row_chars=3800,  # as SQLite's: PostgreSQL compresses none below TOAST_TUPLE_TARGET
)

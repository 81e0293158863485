"""The SQLite connection behind every log: ``<workspace>/.coder/coder.db`` in WAL mode with foreign keys on, a busy
timeout for a second process, and the schema brought up to date by forward migrations when it is opened.

Durability: each write is one transaction. WAL with ``synchronous=NORMAL`` makes a commit durable against a killed
process (the WAL pages are in the OS cache the moment COMMIT returns) without an fsync per message. Only a power
loss can take the last few commits; preventing that (``synchronous=FULL``) would cost an fsync, milliseconds, on
every message.

A write may also be deferred (``defer``): it then joins the next transaction instead of paying for its own, and
``commit_deferred`` commits it at once. A tool call's audit rows use this, so a call costs three transactions, not
five; the caller commits them before anything it may wait for (the tool itself, a hook, the user), so a killed
process still finds every row of a call that ran. A read commits what is deferred first: it sees every write.

Checkpoints (copying the log back into the database file, two fsyncs: 5-15 ms) wait for a quiet moment: SQLite
makes one inside the commit that leaves the log over 1,000 pages, which in a turn of tool calls stalled the event
loop every ~70 calls. Here the connection does that only past ``LAST_RESORT_PAGES``, and ``checkpoint`` (called when
an input ends) makes one once ``CHECKPOINT_AFTER_COMMITS`` commits have gathered. A checkpoint only moves committed
pages; every commit is as durable as before it.

A file that is damaged, not a database, someone else's database or from a newer schema is never modified, let
alone replaced: opening it raises ``StorageError`` naming the file and what to do.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from pathlib import Path

from engine.storage.errors import StorageError
from engine.storage.migrations import MIGRATIONS, Migration

log = logging.getLogger(__name__)

DEFAULT_BUSY_TIMEOUT_MS = 5000
# ``checkpoint`` copies the log back once this many commits have gathered in it (in a turn of tool calls, three
# commits of a few pages each a call: near SQLite's own mark of 1,000 pages).
CHECKPOINT_AFTER_COMMITS = 300
# The connection itself checkpoints only when a commit leaves the log longer than this (40 MB): a turn of thousands
# of tool calls, or of very large results.
LAST_RESORT_PAGES = 10_000

# A write waiting for the next transaction: it is handed the connection inside that transaction.
DeferredWrite = Callable[[sqlite3.Connection], object]


def database_path(workspace: Path) -> Path:
    return workspace / ".coder" / "coder.db"


def utc_now() -> str:
    """ISO 8601 in UTC with microseconds: the same width everywhere, so text order is time order."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class Database:
    """One connection, shared by the store's logs and the undo journal. Every access goes through ``read`` or
    ``transaction``, which serialise threads (the orchestrator may call from a worker thread) and turn SQLite's
    errors into ``StorageError``."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._conn = connection
        self._lock = threading.RLock()
        self._deferred: list[DeferredWrite] = []
        self._commits = 0  # since the last ``checkpoint``

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> Database:
        """Opens (creating when absent) and migrates the database at ``path``."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create the folder {path.parent} for the database: {exc.strerror or exc}"
            ) from exc
        try:
            connection = sqlite3.connect(
                path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise storage_error(path, exc) from exc
        database = cls(path, connection)
        try:
            _check_sequence(migrations)
            with database.read() as conn:
                conn.execute("PRAGMA foreign_keys = ON")
                # Before anything is written (switching to WAL rewrites the header): refuse a file that is
                # damaged, someone else's or from a newer schema while it is still exactly as it was.
                database._check_known(database._read_version(conn), migrations[-1].version)
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute(f"PRAGMA wal_autocheckpoint = {LAST_RESORT_PAGES}")
            database.migrate(migrations)
        except BaseException:
            connection.close()
            raise
        return database

    @property
    def version(self) -> int:
        with self.read() as conn:
            return self._read_version(conn)

    def close(self) -> None:
        with self._lock:
            self._commits = 0  # closing checkpoints what is left
            try:
                self.commit_deferred()
            finally:
                self._conn.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection for statements that need no transaction of their own (deferred writes are committed
        first, so a read sees them)."""
        with self._lock:
            self.commit_deferred()
            with self._connection() as conn:
                yield conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: the write lock is taken up front, so a busy database fails at the
        start (after the busy timeout) rather than half-way; any exception rolls everything back. The deferred
        writes run first, inside it; they wait for the next transaction again when the caller's part fails."""
        with self._connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            deferred, self._deferred = self._deferred, []
            try:
                for write in deferred:
                    write(conn)
            except BaseException:
                _rollback(conn)
                raise
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                self._deferred[:0] = deferred
                raise
            self._commits += 1

    def checkpoint(self) -> None:
        """At a quiet moment: copies the log back into the database file when ``CHECKPOINT_AFTER_COMMITS`` commits
        have gathered since the last time (a passive checkpoint: what a reader in another process still needs
        waits for the next one). A failure is logged; the commits are in the log either way."""
        with self._lock:
            if self._commits < CHECKPOINT_AFTER_COMMITS:
                return
            self._commits = 0
            try:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as exc:
                log.warning("checkpoint of %s failed (the next one tries again): %s", self.path, exc)

    def defer(self, write: DeferredWrite) -> None:
        """Runs ``write`` in the next transaction (or ``commit_deferred``), in the order the writes were deferred.
        A deferred write that fails is dropped, with those of its transaction, and the error raised there."""
        with self._lock:
            self._deferred.append(write)

    def commit_deferred(self) -> None:
        """Commits the deferred writes now, in one transaction; nothing to do when there are none."""
        with self._lock:
            # Inside a transaction of this connection they are already part of it, or wait for the next one.
            if self._deferred and not self._conn.in_transaction:
                with self.transaction():
                    pass

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise storage_error(self.path, exc) from exc

    def migrate(self, migrations: Sequence[Migration]) -> None:
        """Applies the migrations newer than the file's version, each in one transaction with its version row."""
        _check_sequence(migrations)
        latest = migrations[-1].version
        with self.read() as conn:
            if self._read_version(conn) == latest:
                return
        # Another process may be migrating too: the version is read again under the write lock.
        with self.transaction() as conn:
            current = self._read_version(conn)
            self._check_known(current, latest)
            for migration in migrations:
                if migration.version <= current:
                    continue
                for statement in migration.statements():
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.description, utc_now()),
                )

    def _check_known(self, version: int, latest: int) -> None:
        if version > latest:
            raise StorageError(
                f"{self.path} was written by a newer coder-tui (schema version {version}, this one knows up to "
                f"{latest}); upgrade coder-tui to use it. The file was not changed."
            )

    def _read_version(self, conn: sqlite3.Connection) -> int:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_version" not in tables:
            foreign = sorted(tables - {"sqlite_sequence"})
            if foreign:
                raise StorageError(
                    f"{self.path} is a SQLite database but not coder-tui's (it has the tables {', '.join(foreign)} "
                    "and no schema_version); coder-tui will not change it. Move it aside to let coder-tui create its "
                    "own."
                )
            return 0
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _check_sequence(migrations: Sequence[Migration]) -> None:
    versions = [migration.version for migration in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migration versions must be 1, 2, 3... in order, got {versions}")


def storage_error(path: Path, exc: sqlite3.Error) -> StorageError:
    """A ``StorageError`` that names the file, says what went wrong in words and what the user can do."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    detail = str(exc)
    text = detail.lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return StorageError(
            f"{path} is locked by another process (another coder-tui in this workspace?): {detail}. Close it or "
            "wait for it to finish, then try again."
        )
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in text or "malformed" in text:
        return StorageError(
            f"{path} is damaged or is not a SQLite database ({detail}). coder-tui never replaces it: move it aside "
            f"(mv {path} {path}.broken) to start a new one, or try `sqlite3 {path} .recover` to save its data."
        )
    if name.startswith("SQLITE_READONLY"):
        return StorageError(f"{path} cannot be written ({detail}): check the permissions of the file and its folder.")
    if name.startswith("SQLITE_CANTOPEN"):
        return StorageError(f"cannot open {path} ({detail}): check that it is a file in a writable folder.")
    if name.startswith("SQLITE_FULL"):
        return StorageError(f"cannot write {path}: the disk is full ({detail}).")
    if name == "SQLITE_CONSTRAINT_FOREIGNKEY":
        return StorageError(f"{path}: the record refers to a session that is not in the database ({detail}).")
    return StorageError(f"database error on {path}: {detail}")

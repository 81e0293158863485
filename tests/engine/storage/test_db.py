"""SPEC 12: the database file: WAL, foreign keys, schema version and forward migrations; a damaged, foreign,
newer or locked database gives a clear StorageError and is never replaced."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from engine.messages import Message
from engine.storage import db as db_module
from engine.storage.db import Database, database_path
from engine.storage.errors import StorageError
from engine.storage.migrations import MIGRATIONS, Migration
from engine.storage.redact import Redactor
from engine.storage.store import Store

LATEST = MIGRATIONS[-1].version


def tables(db: Database) -> set[str]:
    with db.read() as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_database_lives_in_dot_coder_with_wal_and_foreign_keys(workspace: Path) -> None:
    db = Database.open(database_path(workspace))
    try:
        assert db.path == workspace / ".coder" / "coder.db"
        with db.read() as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        logs = {"sessions", "messages", "events", "audit_log", "todos", "permission_log", "schema_version"}
        assert logs <= tables(db)
        assert db.version == LATEST
    finally:
        db.close()


def test_foreign_keys_are_enforced(workspace: Path) -> None:
    db = Database.open(database_path(workspace))
    try:
        with pytest.raises(StorageError, match="session that is not in the database"):
            with db.transaction() as conn:
                conn.execute(
                    "INSERT INTO messages (session_id, seq, role, record, created_at) "
                    "VALUES ('nope', 0, 'user', '{}', 'x')"
                )
    finally:
        db.close()


def test_migrations_run_forward_from_version_1_and_keep_the_data(workspace: Path) -> None:
    path = database_path(workspace)
    first = Database.open(path, migrations=MIGRATIONS[:1])
    assert first.version == 1
    assert "undo_turns" not in tables(first)
    session_id = "schema1"
    with first.transaction() as conn:  # as schema 1's code wrote them
        conn.execute("INSERT INTO sessions (id, created_at, updated_at, model, mode) VALUES (?, 't', 't', 'm', 'd')",
                     (session_id,))
        conn.execute("INSERT INTO messages (session_id, seq, role, record, created_at) VALUES (?, 0, 'user', ?, 't')",
                     (session_id, '{"role": "user", "content": "written by schema 1"}'))
    first.close()

    current = Store.open(workspace, environ={})
    try:
        assert current.db.version == LATEST
        assert {"undo_turns", "undo_files", "undo_baselines"} <= tables(current.db)
        assert [m.content for m in current.conversation.load(session_id).messages] == ["written by schema 1"]
        with current.db.read() as conn:
            assert [row[0] for row in conn.execute("SELECT version FROM schema_version ORDER BY version")] == list(
                range(1, LATEST + 1)
            )
    finally:
        current.close()


def test_a_new_migration_is_applied_once(workspace: Path) -> None:
    path = database_path(workspace)
    Database.open(path).close()
    pinned = Migration(
        LATEST + 1, "pinned sessions", "ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;"
    )
    for _ in range(2):  # a second open must not apply it again (ALTER TABLE would fail)
        db = Database.open(path, migrations=(*MIGRATIONS, pinned))
        assert db.version == LATEST + 1
        db.close()


def test_a_failing_migration_changes_nothing(workspace: Path) -> None:
    path = database_path(workspace)
    Database.open(path).close()
    broken = Migration(
        LATEST + 1, "broken", "CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);"
    )
    with pytest.raises(StorageError, match="no_such_table"):
        Database.open(path, migrations=(*MIGRATIONS, broken))
    db = Database.open(path)
    try:
        assert db.version == LATEST
        assert "half_done" not in tables(db)
    finally:
        db.close()


def test_migration_versions_must_follow_each_other(workspace: Path) -> None:
    with pytest.raises(ValueError, match="1, 2, 3"):
        Database.open(database_path(workspace), migrations=(MIGRATIONS[0], Migration(3, "gap", "SELECT 1;")))


def test_a_database_from_a_newer_coder_is_refused_unchanged(workspace: Path) -> None:
    path = database_path(workspace)
    future = Migration(LATEST + 1, "future", "CREATE TABLE future (x INTEGER);")
    Database.open(path, migrations=(*MIGRATIONS, future)).close()
    before = path.read_bytes()
    with pytest.raises(StorageError, match=f"newer coder-tui \\(schema version {LATEST + 1}"):
        Database.open(path)
    assert path.read_bytes() == before


def test_someone_elses_sqlite_database_is_refused_unchanged(workspace: Path) -> None:
    path = database_path(workspace)
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    before = path.read_bytes()
    with pytest.raises(StorageError, match="not coder-tui's.*recipes"):
        Store.open(workspace, environ={})
    assert path.read_bytes() == before


def test_a_file_that_is_not_a_database_is_refused_and_never_replaced(workspace: Path) -> None:
    path = database_path(workspace)
    path.parent.mkdir(parents=True)
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    with pytest.raises(StorageError) as info:
        Store.open(workspace, environ={})
    message = str(info.value)
    assert str(path) in message
    assert "damaged or is not a SQLite database" in message
    assert f"mv {path} {path}.broken" in message
    assert path.read_bytes() == garbage


def test_a_corrupted_database_gives_a_clear_error(workspace: Path) -> None:
    first = Store.open(workspace, environ={})
    session_id = first.sessions.create(model="m", mode="default")
    for index in range(300):
        first.conversation.append(session_id, Message.user(f"message {index} " + "x" * 500))
    first.close()
    path = database_path(workspace)
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(page, len(data), page):  # every page but the header page
        data[offset : offset + page] = bytes((offset // page + i) % 251 for i in range(page))
    path.write_bytes(bytes(data))
    damaged = bytes(data)

    def open_and_read() -> None:
        reopened = Store.open(workspace, environ={})
        try:
            reopened.conversation.load(session_id)
        finally:
            reopened.close()

    with pytest.raises(StorageError) as info:
        open_and_read()
    assert str(path) in str(info.value)
    assert "damaged" in str(info.value)
    assert path.read_bytes() == damaged


def test_a_locked_database_gives_a_clear_error(workspace: Path) -> None:
    Store.open(workspace, environ={}).close()
    other = sqlite3.connect(database_path(workspace), isolation_level=None)
    other.execute("PRAGMA locking_mode = EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StorageError, match="is locked by another process"):
            Store.open(workspace, busy_timeout_ms=20, environ={})
    finally:
        other.execute("COMMIT")
        other.close()
    Store.open(workspace, busy_timeout_ms=20, environ={}).close()


def test_a_write_while_another_process_writes_fails_clearly_and_is_not_half_done(workspace: Path) -> None:
    store = Store.open(workspace, busy_timeout_ms=20, environ={})
    session_id = store.sessions.create(model="m", mode="default")
    other = sqlite3.connect(database_path(workspace), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageError, match="locked"):
            store.conversation.append(session_id, Message.user("blocked"))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.conversation.append(session_id, Message.user("after")) == 0
    store.close()


def test_a_folder_where_the_database_should_be_is_reported(workspace: Path) -> None:
    database_path(workspace).mkdir(parents=True)
    with pytest.raises(StorageError, match="is not a regular file: move it away"):
        Store.open(workspace, environ={})


def sessions_in_the_database_file(path: Path) -> int:
    """The sessions the database file itself holds, its log left aside (what checkpoints have copied into it)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])
    except sqlite3.OperationalError:  # not even the schema is there yet
        return 0
    finally:
        conn.close()


def test_a_commit_checkpoints_the_log_only_as_a_last_resort(workspace: Path) -> None:
    db = Database.open(database_path(workspace))
    try:
        with db.read() as conn:
            assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == db_module.LAST_RESORT_PAGES
    finally:
        db.close()


def test_checkpoint_copies_the_log_once_enough_commits_have_gathered(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    monkeypatch.setattr(db_module, "CHECKPOINT_AFTER_COMMITS", 5)
    path = database_path(workspace)
    db = Database.open(path)  # a new file: its migration is one commit
    store = Store(db, redactor=Redactor(environ={}))
    try:
        for number in range(2):
            store.sessions.create(model="m", mode="default", session_id=f"s{number}")
        db.checkpoint()
        assert sessions_in_the_database_file(path) == 0
        for number in range(2, 4):
            store.sessions.create(model="m", mode="default", session_id=f"s{number}")
        db.checkpoint()
        assert sessions_in_the_database_file(path) == 4
    finally:
        db.close()

"""The write-ahead log is copied back into the database by a thread of its own, not by the commit that fills it
(``engine.storage.checkpoints``); commits stay durable, and closing leaves no log behind."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from engine.storage import checkpoints
from engine.storage.checkpoints import LAST_RESORT_PAGES
from engine.storage.db import Database, database_path


class RecordingConnection:
    """A connection that says which thread ran each statement; a checkpoint sets ``checkpointed``."""

    def __init__(self, connection: sqlite3.Connection, seen: list[tuple[str, str]], done: threading.Event) -> None:
        self._connection = connection
        self._seen = seen
        self._done = done

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        cursor = self._connection.execute(sql, *args)
        self._seen.append((threading.current_thread().name, sql))
        if "wal_checkpoint" in sql:
            self._done.set()
        return cursor

    def close(self) -> None:
        self._connection.close()


def insert_rows(db: Database, count: int) -> None:
    for number in range(count):
        with db.transaction() as conn:
            conn.execute(
                "INSERT INTO sessions (id, created_at, updated_at, title, model, mode) VALUES (?, '', '', '', '', '')",
                (f"s{number}",),
            )


def test_the_commit_that_fills_the_log_does_not_checkpoint_it(workspace: Path) -> None:
    db = Database.open(database_path(workspace))
    try:
        with db.read() as conn:
            assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == LAST_RESORT_PAGES
    finally:
        db.close()


def test_checkpoints_run_in_their_own_thread_and_keep_every_commit(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    seen: list[tuple[str, str]] = []
    checkpointed = threading.Event()
    connect = checkpoints._connect
    monkeypatch.setattr(checkpoints, "EVERY_COMMITS", 5)
    monkeypatch.setattr(checkpoints, "_connect", lambda path: RecordingConnection(connect(path), seen, checkpointed))
    db = Database.open(database_path(workspace))
    insert_rows(db, 5)
    assert checkpointed.wait(timeout=30)
    assert seen and set(seen) == {("coder-checkpoint", "PRAGMA wal_checkpoint(PASSIVE)")}
    for number in range(3):
        with db.transaction() as conn:
            conn.execute("UPDATE sessions SET title = ? WHERE id = 's0'", (f"title {number}",))
    db.close()
    assert not database_path(workspace).with_name("coder.db-wal").exists()
    reopened = sqlite3.connect(database_path(workspace))
    try:
        assert reopened.execute("SELECT COUNT(*), MAX(title) FROM sessions").fetchone() == (5, "title 2")
    finally:
        reopened.close()


def test_a_database_with_few_commits_starts_no_thread(workspace: Path) -> None:
    before = {thread.name for thread in threading.enumerate()}
    db = Database.open(database_path(workspace))
    insert_rows(db, 3)
    assert "coder-checkpoint" not in {thread.name for thread in threading.enumerate()} - before
    db.close()

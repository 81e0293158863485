"""Deferred writes (``Database.defer``): a write that joins the next transaction instead of paying for its own. It
is never lost by being deferred: a read, ``commit_deferred`` and ``close`` commit it, and a transaction whose own
part fails keeps it for the next one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.storage.db import Database, database_path
from engine.storage.errors import StorageError
from engine.storage.log.records import PermissionDecided, ToolCallCompleted, ToolCallRequested
from engine.storage.store import Store


def statements_of(db: Database) -> list[str]:
    seen: list[str] = []
    with db.read() as conn:
        conn.set_trace_callback(seen.append)
    return seen


def requested(store: Store, session_id: str, call_id: str, *, defer: bool) -> None:
    store.audit.record(ToolCallRequested(session_id, None, call_id, "read", {"path": "a"}), defer=defer)


def test_a_deferred_row_joins_the_next_transaction(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    seen = statements_of(store.db)
    requested(store, session_id, "call_1", defer=True)
    store.audit.record(
        PermissionDecided(session_id, None, "call_1", "read", {"path": "a"}, "allow", (), "policy"), defer=True
    )
    assert seen == []
    store.audit.record(ToolCallCompleted(session_id, None, "call_1", "read", {"ok": True}, False, 1.0))
    assert [s.split()[0] for s in seen] == ["BEGIN", "INSERT", "INSERT", "UPDATE", "COMMIT"]
    (entry,) = store.audit.entries(session_id)
    assert (entry.call_id, entry.input, entry.output) == ("call_1", {"path": "a"}, {"ok": True})
    assert [p.decision for p in store.audit.permissions(session_id)] == ["allow"]


def test_commit_deferred_commits_at_once_and_only_when_needed(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    seen = statements_of(store.db)
    store.commit_deferred()
    assert seen == []
    requested(store, session_id, "call_1", defer=True)
    store.commit_deferred()
    assert [s.split()[0] for s in seen] == ["BEGIN", "INSERT", "COMMIT"]


def test_a_read_sees_the_deferred_rows(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    requested(store, session_id, "call_1", defer=True)
    assert [entry.call_id for entry in store.audit.entries(session_id)] == ["call_1"]


def test_close_commits_the_deferred_rows(workspace: Path) -> None:
    store = Store.open(workspace, environ={})
    session_id = store.sessions.create(model="m", mode="default")
    requested(store, session_id, "call_1", defer=True)
    store.close()
    with sqlite3.connect(database_path(workspace)) as conn:
        assert conn.execute("SELECT call_id FROM audit_log").fetchall() == [("call_1",)]


def test_deferred_rows_wait_for_the_next_transaction_when_the_callers_part_fails(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    requested(store, session_id, "call_1", defer=True)
    with pytest.raises(StorageError):
        with store.db.transaction() as conn:
            conn.execute("INSERT INTO no_such_table VALUES (1)")
    assert [entry.call_id for entry in store.audit.entries(session_id)] == ["call_1"]


def test_a_failing_deferred_write_is_dropped_and_reported(store: Store) -> None:
    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO no_such_table VALUES (1)")

    store.db.defer(broken)
    with pytest.raises(StorageError, match="no_such_table"):
        store.commit_deferred()
    store.commit_deferred()  # nothing is left to fail again

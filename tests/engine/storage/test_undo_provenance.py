"""SPEC 19: a journal's rows are checked before use. A row naming a path outside the workspace (by `..`, an
absolute path, or a link that now points outside) is refused and nothing is written; a foreign session's journal
is dropped when its journal is opened, so /undo never replays it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.storage.db import Database, database_path
from engine.storage.provenance import StateKey
from engine.storage.redact import Redactor
from engine.storage.sessions.seals import SessionSeals
from engine.storage.store import Store
from engine.storage.undo.journal import NOTHING_TO_UNDO
from engine.storage.undo.session_journal import open_journal


def plant_turn(store: Store, session_id: str, workspace: Path, path: str) -> None:
    blob = workspace / ".coder" / "undo" / session_id / "1" / "0"
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_text("FROM THE JOURNAL\n")
    with store.db.transaction() as conn:
        conn.execute("INSERT INTO undo_turns (id, session_id, turn_id, label, started_at, ended_at) "
                     "VALUES (1, ?, 't1', 'planted', 'x', 'x')", (session_id,))
        conn.execute("INSERT INTO undo_files (turn, path, existed, mode, blob) VALUES (1, ?, 1, 420, '1/0')", (path,))


@pytest.mark.parametrize("how", ["dotdot", "absolute", "link"])
def test_a_row_naming_a_path_outside_is_refused(store: Store, workspace: Path, tmp_path: Path, how: str) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    if how == "link":
        (workspace / "inside").symlink_to(outside)
    path = {"dotdot": "../outside.txt", "absolute": str(outside), "link": "inside"}[how]
    session_id = store.sessions.create(model="m", mode="default")
    plant_turn(store, session_id, workspace, path)
    result = open_journal(store, session_id, workspace, max_turns=5).undo_last_turn(force=True)
    assert outside.read_text() == "mine\n"
    if how == "link":
        # The row names a path inside: undo puts back what stood there (a file), replacing the link, never
        # writing through it.
        assert not (workspace / "inside").is_symlink() and (workspace / "inside").read_text() == "FROM THE JOURNAL\n"
    else:
        assert not result.applied and "not a path inside the workspace" in result.reason


def test_a_foreign_sessions_journal_is_not_used(workspace: Path, tmp_path: Path) -> None:
    (workspace / "a.txt").write_text("current\n")
    seals = SessionSeals(StateKey.load({"XDG_CONFIG_HOME": str(tmp_path / "xdg")}), workspace)
    store = Store(Database.open(database_path(workspace)), redactor=Redactor({}), seals=seals)
    try:
        session_id = store.sessions.create(model="m", mode="yolo", own=False)
        plant_turn(store, session_id, workspace, "a.txt")
        journal = open_journal(store, session_id, workspace, max_turns=5)
        assert journal.undo_last_turn().reason == NOTHING_TO_UNDO
        assert (workspace / "a.txt").read_text() == "current\n"
        # What this user does in it from now on is undoable as ever.
        journal.begin_turn("t2", "mine")
        journal.record(workspace / "a.txt")
        (workspace / "a.txt").write_text("changed\n")
        journal.end_turn()
        assert journal.undo_last_turn().applied and (workspace / "a.txt").read_text() == "current\n"
    finally:
        store.close()

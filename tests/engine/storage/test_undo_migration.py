"""Journals written before undo kept every copy in the content store (``data/undo_journal_v5``, made by that
version's writer) keep working: their copies move into the store when the session's journal is opened, and /undo
puts the files back as before. A journal that is not this user's (its seal) is still never used, and its copies
never reach the store."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.storage.db import Database, database_path
from engine.storage.errors import StorageError
from engine.storage.provenance import StateKey
from engine.storage.redact import Redactor
from engine.storage.sessions.seals import SessionSeals
from engine.storage.store import Store
from engine.storage.undo.journal import NOTHING_TO_UNDO
from engine.storage.undo.session_journal import open_journal
from tests.support.tree import tree_state

FIXTURE = Path(__file__).parent / "data" / "undo_journal_v5"
SESSION = "legacy-session"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The fixture's workspace, database and copies, as the older version left them."""
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE / "workspace", root)
    (root / ".coder").mkdir(mode=0o700)
    shutil.copytree(FIXTURE / "undo", root / ".coder" / "undo")
    with sqlite3.connect(database_path(root)) as conn:
        conn.executescript((FIXTURE / "coder.sql").read_text())
    return root


def open_store(workspace: Path, tmp_path: Path, *, own: bool) -> Store:
    seals = SessionSeals(StateKey.load({"XDG_CONFIG_HOME": str(tmp_path / "xdg")}), workspace)
    store = Store(Database.open(database_path(workspace)), redactor=Redactor({}), seals=seals)
    if own:
        with store.db.transaction() as conn:
            seals.seal(conn, SESSION)
    return store


@pytest.fixture
def own_store(workspace: Path, tmp_path: Path) -> Iterator[Store]:
    store = open_store(workspace, tmp_path, own=True)
    yield store
    store.close()


def stored_objects(workspace: Path) -> set[bytes]:
    return {p.read_bytes() for p in (workspace / ".coder" / "undo" / "objects").rglob("*") if p.is_file()}


def test_an_older_journal_is_undone_turn_by_turn(own_store: Store, workspace: Path) -> None:
    journal = open_journal(own_store, SESSION, workspace, max_turns=5)
    assert not (workspace / ".coder" / "undo" / SESSION).exists()
    with own_store.db.read() as conn:
        names = [row[0] for row in conn.execute("SELECT blob FROM undo_files WHERE blob IS NOT NULL")]
    assert names and all(name.startswith("sha256:") for name in names)

    second = journal.undo_last_turn()
    assert second.applied and second.turn_id == "t2", second.summary()
    assert (workspace / "a.txt").read_bytes() == b"a after t1\n"
    assert (workspace / "run.sh").read_bytes() == b"#!/bin/sh\necho hi\n"
    assert stat.S_IMODE((workspace / "run.sh").stat().st_mode) == 0o751

    first = journal.undo_last_turn()
    assert first.applied and first.turn_id == "t1", first.summary()
    assert (workspace / "a.txt").read_bytes() == b"original a\r\n"
    assert not (workspace / "new").exists()
    assert journal.undo_last_turn().summary() == NOTHING_TO_UNDO


def test_an_older_journals_first_states_still_show_in_diff(own_store: Store, workspace: Path) -> None:
    journal = open_journal(own_store, SESSION, workspace, max_turns=5)
    changes = {c.path: (c.before.data, c.after.data) for c in journal.session_changes()}
    assert changes == {
        "a.txt": (b"original a\r\n", b"a after t2\n"),
        "new/deep/made.txt": (None, b"made by t1\n"),
        "run.sh": (b"#!/bin/sh\necho hi\n", None),
    }


def test_a_foreign_older_journal_is_not_used_and_its_copies_are_not_kept(workspace: Path, tmp_path: Path) -> None:
    """The fixture's seal was made with another key in another folder: the journal is not this user's."""
    before = tree_state(workspace)
    store = open_store(workspace, tmp_path, own=False)
    try:
        journal = open_journal(store, SESSION, workspace, max_turns=5)
        assert journal.undo_last_turn().summary() == NOTHING_TO_UNDO
    finally:
        store.close()
    assert tree_state(workspace) == before
    assert b"original a\r\n" not in stored_objects(workspace)
    assert not (workspace / ".coder" / "undo" / SESSION).exists()


def test_a_legacy_name_leading_outside_the_copies_folder_is_never_read(
    own_store: Store, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_bytes(b"not a copy\n")
    with own_store.db.transaction() as conn:
        conn.execute("UPDATE undo_files SET blob = '../../../../secret.txt' WHERE blob = '2/0'")
    journal = open_journal(own_store, SESSION, workspace, max_turns=5)
    assert b"not a copy\n" not in stored_objects(workspace)
    result = journal.undo_last_turn()
    assert not result.applied and "a.txt: its content before the turn was not kept" in result.errors
    assert (workspace / "a.txt").read_bytes() == b"a after t2\n"


def test_a_legacy_copies_folder_that_is_a_link_is_refused(
    own_store: Store, workspace: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.move(workspace / ".coder" / "undo" / SESSION, elsewhere)
    os.symlink(elsewhere, workspace / ".coder" / "undo" / SESSION)
    with pytest.raises(StorageError, match="symbolic link"):
        open_journal(own_store, SESSION, workspace, max_turns=5)
    assert (elsewhere / "1" / "0").exists() and b"original a\r\n" not in stored_objects(workspace)

"""A forged or shipped undo journal (rows naming paths) must never make /undo write, delete or create anything
outside the workspace, in .git/ or .coder/, or through a link planted in a folder's place. Asserted on what the
attack reached: the outside folder's files and the workspace's tree, before and after."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.capture.objects import ObjectStore, object_name
from engine.storage.db import Database, database_path
from engine.storage.redact import Redactor
from engine.storage.store import Store
from engine.storage.undo.session_journal import open_journal
from tests.security.conftest import snapshot
from tests.support.tree import tree_state

PAYLOAD = b"planted by the journal\n"

HOSTILE_PATHS = [
    "../out/secret.txt",
    "../out/new.txt",
    "{outside}/secret.txt",
    "src/../../out/secret.txt",
    "./../out/secret.txt",
    "link_out/secret.txt",
    "link_out/new.txt",
    "src/up/README.md",  # a link to the workspace itself: inside, but through a link, so refused as well
    "src/up/../../out/secret.txt",
    ".git/config",
    ".git/hooks/post-checkout",
    ".coder/config.json",
    "src//x",
    "src/\x00x",
]


@pytest.mark.parametrize("kind", ["file", "absent", "dir", "link"])
@pytest.mark.parametrize("hostile", HOSTILE_PATHS)
def test_undo_never_acts_on_a_path_outside_the_workspace(world: tuple[Path, Path], hostile: str, kind: str) -> None:
    root, outside = world
    store = Store(Database.open(database_path(root)), redactor=Redactor({}))
    session = store.sessions.create(model="m", mode="yolo")
    journal = open_journal(store, session, root, max_turns=5)
    digest = ObjectStore(root / ".coder" / "undo" / "objects").put_file(_payload(root))
    path = hostile.format(outside=outside)
    outside_before = snapshot(outside)
    git_before = {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / ".git").rglob("*") if p.is_file()}
    workspace_before = tree_state(root)
    with store.db.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO undo_turns (session_id, turn_id, label, started_at, ended_at) VALUES (?, 't', 'x', 'a', 'b')",
            (session,),
        )
        conn.execute(
            "INSERT INTO undo_files (turn, path, existed, mode, blob, kind, target) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (cursor.lastrowid, path, int(kind != "absent"), 0o644, object_name(digest), kind, str(outside)),
        )
    result = journal.undo_last_turn(force=True)
    store.close()
    assert snapshot(outside) == outside_before
    assert not (outside / "new.txt").exists()
    git_after = {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / ".git").rglob("*") if p.is_file()}
    assert git_after == git_before
    assert tree_state(root) == workspace_before
    assert not result.applied
    assert os.readlink(root / "link_out") == str(outside)


def _payload(root: Path) -> Path:
    source = root.parent / "payload.bin"
    source.write_bytes(PAYLOAD)
    return source

"""A saved capture index (``.coder/undo/index.json``) can be stale or come with a repository. Whatever it says, undo
puts back what the workspace held when the turn began, never the content a planted index and object name, and
nothing outside the workspace is read or written; a content store reached through a link is refused. Asserted on
what the attack reached: the workspace's file after undo, the outside folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from engine.capture.capture import WorkspaceCapture
from engine.capture.index_file import INDEX_FILE
from engine.capture.objects import ObjectStore, ObjectStoreError, open_object_store
from engine.capture.skip import SkipRules
from engine.storage.db import Database, database_path
from engine.storage.errors import StorageError
from engine.storage.redact import Redactor
from engine.storage.store import Store
from engine.storage.undo.session_journal import open_journal
from tests.security.conftest import snapshot
from tests.support.fakes import make_orchestrator

ORIGINAL = b"the user's own text\n"
PLANTED = b"planted by the index\n"  # the same size as ORIGINAL, so only the stat fields can tell


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "out"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    root = tmp_path / "ws"
    (root / ".coder").mkdir(parents=True)
    (root / "notes.txt").write_bytes(ORIGINAL)
    (root / "link_out").symlink_to(outside)
    return root, outside


def plant(root: Path, files: dict[str, list[object]], *, root_id: list[int] | None = None) -> str:
    """An index naming a planted object for ``files``; returns the object's digest."""
    digest = ObjectStore(root / ".coder" / "undo" / "objects").put_bytes(PLANTED)
    info = os.stat(root)
    saved = {"format": 1, "root": root_id or [info.st_dev, info.st_ino], "files": files}
    for fields in files.values():
        fields.insert(1, digest)
    (root / ".coder" / "undo" / INDEX_FILE).write_text(json.dumps(saved))  # the store made the folder
    return digest


def stat_fields(path: Path, **override: int) -> list[object]:
    info = path.lstat()
    fields = {"mode": info.st_mode & 0o7777, "size": info.st_size, "mtime": info.st_mtime_ns,
              "ctime": info.st_ctime_ns, "inode": info.st_ino, **override}
    return [fields["mode"], fields["size"], fields["mtime"], fields["ctime"], fields["inode"]]


def a_turn_then_undo(root: Path) -> bytes:
    """A new process's capture, a turn whose command rewrites notes.txt, then /undo: what notes.txt holds after."""
    store = Store(Database.open(database_path(root)), redactor=Redactor({}))
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), root, max_turns=5)
    capture = WorkspaceCapture(
        root, journal.objects, SkipRules(root, [], use_gitignore=True), max_file_bytes=1 << 20,
        index_path=root / ".coder" / "undo" / INDEX_FILE,
    )
    capture.start_watching()
    try:
        capture.first_capture()
        journal.begin_turn("t1", "rewrite")
        mark = capture.mark()
        subprocess.run("echo by the turn > notes.txt", shell=True, cwd=root, check=True)
        journal.record_captured(capture.collect(mark))
        journal.end_turn()
        assert journal.undo_last_turn(force=True).applied
    finally:
        capture.close()
        store.close()
    return (root / "notes.txt").read_bytes()


@pytest.mark.parametrize("unknown", ["ctime", "inode", "mtime"])
def test_an_index_whose_stat_fields_a_clone_cannot_know_is_not_trusted(world: tuple[Path, Path], unknown: str) -> None:
    """A shipped index can copy size and times from the attacker's checkout, never the change time and inode the
    user's checkout got."""
    root, _ = world
    plant(root, {"notes.txt": stat_fields(root / "notes.txt", **{unknown: 12345})})
    assert a_turn_then_undo(root) == ORIGINAL


def test_an_index_made_for_another_folder_is_not_used(world: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = world
    elsewhere = os.stat(tmp_path)
    plant(root, {"notes.txt": stat_fields(root / "notes.txt")}, root_id=[elsewhere.st_dev, elsewhere.st_ino])
    assert a_turn_then_undo(root) == ORIGINAL


@pytest.mark.parametrize(
    "named", ["../out/secret.txt", "link_out/secret.txt", "/etc/passwd", "{outside}/secret.txt", "link_out"]
)
def test_an_index_naming_paths_outside_reaches_nothing(world: tuple[Path, Path], named: str) -> None:
    root, outside = world
    before = snapshot(outside)
    plant(root, {named.format(outside=outside): stat_fields(outside / "secret.txt")})
    assert a_turn_then_undo(root) == ORIGINAL
    assert snapshot(outside) == before and os.readlink(root / "link_out") == str(outside)


def test_an_index_reached_through_a_link_is_not_read(world: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = world
    plant(root, {"notes.txt": stat_fields(root / "notes.txt")})  # an exact index: used if read
    planted = tmp_path / "index.json"
    os.replace(root / ".coder" / "undo" / INDEX_FILE, planted)
    (root / ".coder" / "undo" / INDEX_FILE).symlink_to(planted)
    assert a_turn_then_undo(root) == ORIGINAL


@pytest.mark.parametrize(
    "text", ["not json", "[]", '{"format": 1, "root": [], "files": []}', '{"format": 1, "files": {"notes.txt": 7}}']
)
def test_a_damaged_index_costs_a_read_nothing_else(world: tuple[Path, Path], text: str) -> None:
    root, _ = world
    (root / ".coder" / "undo").mkdir()
    (root / ".coder" / "undo" / INDEX_FILE).write_text(text)
    assert a_turn_then_undo(root) == ORIGINAL


@pytest.mark.parametrize("digest", [["a list"], {"a": "map"}, 7, None, "../../../out/secret.txt"])
def test_an_exact_entry_with_a_damaged_digest_costs_a_read_nothing_else(
    world: tuple[Path, Path], digest: object
) -> None:
    root, outside = world
    before = snapshot(outside)
    plant(root, {"notes.txt": stat_fields(root / "notes.txt")})
    saved = json.loads((root / ".coder" / "undo" / INDEX_FILE).read_text())
    saved["files"]["notes.txt"][1] = digest
    (root / ".coder" / "undo" / INDEX_FILE).write_text(json.dumps(saved))
    assert a_turn_then_undo(root) == ORIGINAL
    assert snapshot(outside) == before


@pytest.mark.parametrize("linked", ["undo/objects", "undo"])
def test_a_content_store_reached_through_a_link_is_refused(world: tuple[Path, Path], linked: str) -> None:
    root, outside = world
    before = snapshot(outside)
    target = root / ".coder" / linked
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(outside)
    with pytest.raises(ObjectStoreError, match="link"):
        open_object_store(root)
    assert snapshot(outside) == before


def test_a_linked_content_store_stops_the_engine_with_a_clear_error(world: tuple[Path, Path]) -> None:
    """Refused before any copy is written: the engine's opening says what to move away."""
    root, outside = world
    before = snapshot(outside)
    (root / ".coder" / "undo").mkdir()
    (root / ".coder" / "undo" / "objects").symlink_to(outside)
    with pytest.raises(StorageError, match="objects is a (symbolic )?link"):
        make_orchestrator(root, "http://127.0.0.1:9/v1")
    assert snapshot(outside) == before

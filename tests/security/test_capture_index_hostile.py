"""A saved capture index (``.coder/undo/index.bin``) can be stale or come with a repository. Whatever it says, undo
puts back what the workspace held when the turn began, never the content a planted index and object name, and
nothing outside the workspace is read or written; a content store reached through a link is refused. Asserted on
what the attack reached: the workspace's file after undo, the outside folder."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from engine.capture.capture import WorkspaceCapture
from engine.capture.index_file import ENTRY, HEADER, INDEX_FILE, MAGIC, index_bytes
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


def plant(root: Path, files: dict[str, list[int]], *, made_for: Path | None = None, digest: str | None = None) -> str:
    """An index naming a planted object (or ``digest``) for ``files``, made for the folder ``made_for`` (default:
    the workspace); returns the digest."""
    digest = digest or ObjectStore(root / ".coder" / "undo" / "objects").put_bytes(PLANTED)
    rows = [(path, mode, digest, *rest) for path, (mode, *rest) in files.items()]
    index = root / ".coder" / "undo" / INDEX_FILE
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_bytes(index_bytes(made_for or root, rows))  # type: ignore[arg-type]
    return digest


def stat_fields(path: Path, **override: int) -> list[int]:
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
    plant(root, {"notes.txt": stat_fields(root / "notes.txt")}, made_for=tmp_path)
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
    planted = tmp_path / INDEX_FILE
    os.replace(root / ".coder" / "undo" / INDEX_FILE, planted)
    (root / ".coder" / "undo" / INDEX_FILE).symlink_to(planted)
    assert a_turn_then_undo(root) == ORIGINAL


def with_count(exact: bytes, count: int) -> bytes:
    device, inode, _ = HEADER.unpack_from(exact, len(MAGIC))
    return exact[: len(MAGIC)] + HEADER.pack(device, inode, count) + exact[len(MAGIC) + HEADER.size :]


def test_a_whole_index_exact_in_every_stat_field_is_used(world: tuple[Path, Path]) -> None:
    """The control for the damages below: an index this user's own process could have saved is trusted, so a
    damaged one that is not used fails for its damage."""
    root, _ = world
    plant(root, {"notes.txt": stat_fields(root / "notes.txt")})
    assert a_turn_then_undo(root) == PLANTED


DAMAGES = {
    "not an index": lambda exact: b"not an index",
    "the header cut": lambda exact: exact[: len(MAGIC) + 4],
    "more entries than it holds": lambda exact: with_count(exact, 9),
    "no entries": lambda exact: with_count(exact, 0),
    "a path cut off": lambda exact: exact[:-3],
    "a path too many": lambda exact: exact + b"\0other.txt",
    "entries but no paths": lambda exact: exact[: len(MAGIC) + HEADER.size + ENTRY.size],
    "another format's name": lambda exact: b"coder-tui capture index 9\n" + exact[len(MAGIC) :],
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_index_costs_a_read_nothing_else(world: tuple[Path, Path], damage: str) -> None:
    """Each damage of an index that would be used if read whole (it vouches for the planted content)."""
    root, _ = world
    plant(root, {"notes.txt": stat_fields(root / "notes.txt")})
    index = root / ".coder" / "undo" / INDEX_FILE
    index.write_bytes(DAMAGES[damage](index.read_bytes()))
    assert a_turn_then_undo(root) == ORIGINAL


@pytest.mark.parametrize("digest", ["0" * 64, hashlib.sha256(b"never stored").hexdigest()])
def test_an_exact_entry_naming_an_object_the_store_lacks_costs_a_read_nothing_else(
    world: tuple[Path, Path], digest: str
) -> None:
    root, outside = world
    before = snapshot(outside)
    plant(root, {"notes.txt": stat_fields(root / "notes.txt")}, digest=digest)
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

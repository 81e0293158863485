"""The capture's index saved between processes (issue 41): a new process's first capture reads again only the files
that changed since (by their stat fields) and what the store no longer holds; what changed while no process ran is
still put back as it was when the next turn began."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.capture.capture import WorkspaceCapture
from engine.capture.index_file import INDEX_FILE
from engine.capture.objects import ObjectStore, open_object_store
from engine.capture.skip import SkipRules
from engine.storage.store import Store
from engine.storage.undo.journal import UndoJournal
from engine.storage.undo.session_journal import open_journal


class Reads:
    """Counts the files the content store reads, by path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        put_file = ObjectStore.put_file

        def counting(store: ObjectStore, path: Path) -> str:
            self.paths.append(path.name)
            return put_file(store, path)

        monkeypatch.setattr(ObjectStore, "put_file", counting)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    return Reads(monkeypatch)


def index_path(workspace: Path) -> Path:
    return workspace / ".coder" / "undo" / INDEX_FILE


def a_process(workspace: Path) -> WorkspaceCapture:
    """A capture as a new process makes it: watching, then the first capture (which reads the saved index)."""
    capture = WorkspaceCapture(
        workspace, open_object_store(workspace), SkipRules(workspace, [], use_gitignore=True),
        max_file_bytes=1 << 20, index_path=index_path(workspace),
    )
    capture.start_watching()
    capture.first_capture()
    return capture


@pytest.fixture
def files(workspace: Path) -> Iterator[Path]:
    for index in range(30):
        (workspace / "src").mkdir(exist_ok=True)
        (workspace / "src" / f"f{index}.txt").write_text(f"file {index}\n")
    a_process(workspace).close()
    yield workspace


def run_turn(journal: UndoJournal, capture: WorkspaceCapture, command: str, root: Path) -> None:
    journal.begin_turn("t1", "a command")
    mark = capture.mark()
    subprocess.run(command, shell=True, cwd=root, check=True)
    journal.record_captured(capture.collect(mark))
    journal.end_turn()


def test_a_new_process_reads_no_unchanged_file(files: Path, reads: Reads) -> None:
    capture = a_process(files)
    capture.close()
    assert reads.paths == []
    assert len(capture.index) == 31 and capture.index["src/f3.txt"].digest


def test_a_file_changed_while_no_process_ran_is_read_again(files: Path, reads: Reads) -> None:
    (files / "src" / "f3.txt").write_text("changed meanwhile\n")
    (files / "src" / "new.txt").write_text("made meanwhile\n")
    capture = a_process(files)
    capture.close()
    assert sorted(reads.paths) == ["f3.txt", "new.txt"]


def test_a_content_change_that_kept_size_and_time_is_seen(files: Path, store: Store, reads: Reads) -> None:
    """Rewritten in place with its size and modification time put back (``touch -r``): only the change time, which
    no program can set, tells. Undo of the next turn restores the rewritten bytes, not the saved index's."""
    target = files / "src" / "f3.txt"
    times = target.stat()
    target.write_text("FILE 3\n")  # the same size
    os.utime(target, ns=(times.st_atime_ns, times.st_mtime_ns))
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), files, max_turns=5)
    capture = a_process(files)
    try:
        assert reads.paths == ["f3.txt"]
        run_turn(journal, capture, "echo by the turn > src/f3.txt", files)
    finally:
        capture.close()
    assert journal.undo_last_turn().applied
    assert target.read_text() == "FILE 3\n"


def test_an_object_gone_from_the_store_is_read_again(files: Path, reads: Reads) -> None:
    digest = hashlib.sha256(b"file 3\n").hexdigest()
    (files / ".coder" / "undo" / "objects" / digest[:2] / digest[2:]).unlink()
    capture = a_process(files)
    capture.close()
    assert reads.paths == ["f3.txt"]


def test_a_shell_change_after_a_restart_is_undone_from_the_saved_index(files: Path, store: Store) -> None:
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), files, max_turns=5)
    capture = a_process(files)
    try:
        run_turn(journal, capture, "rm -rf src && echo new > new.txt", files)
    finally:
        capture.close()
    result = journal.undo_last_turn()
    assert result.applied, result.summary()
    assert [(files / "src" / f"f{i}.txt").read_text() for i in range(30)] == [f"file {i}\n" for i in range(30)]
    assert not (files / "new.txt").exists()


def test_an_object_the_saved_index_names_outlives_a_prune_during_the_first_capture(
    workspace: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn falls off the undo stack while the walk is still taking the saved index's entries: the object a saved
    entry names (also the dropped turn's) stays, so the file's change by the next turn is put back."""
    (workspace / "b.txt").write_text("same\n")
    a_process(workspace).close()
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=1)
    c = workspace / "c.txt"
    c.write_text("x\n")
    for turn, text in (("t1", "same\n"), ("t2", "y\n")):  # t2's row names "same\n" (t1's baseline names "x\n")
        journal.begin_turn(turn)
        journal.record(c)
        c.write_text(text)
        journal.end_turn()
    listed = WorkspaceCapture._listed

    def dropping_t2_meanwhile(capture: WorkspaceCapture, folder: str):  # type: ignore[no-untyped-def]
        if journal.turn_ids() == ["t2"]:
            journal.begin_turn("t3")
            journal.record(c)
            c.write_text("z\n")
            journal.end_turn()  # t2 falls off: "same\n" is pruned unless something still names it
        return listed(capture, folder)

    monkeypatch.setattr(WorkspaceCapture, "_listed", dropping_t2_meanwhile)
    capture = WorkspaceCapture(
        workspace, journal.objects, SkipRules(workspace, [], use_gitignore=True), max_file_bytes=1 << 20,
        index_path=index_path(workspace),
    )
    capture.start_watching()
    try:
        capture.first_capture()
        assert journal.turn_ids() == ["t3"]
        run_turn(journal, capture, "echo by the turn > b.txt", workspace)
    finally:
        capture.close()
    assert journal.undo_last_turn().applied
    assert (workspace / "b.txt").read_text() == "same\n"

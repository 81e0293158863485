"""The workspace capture (SPEC 7, issue 28): what a tool call changed, from file events and the content store,
recorded in the undo journal and put back; what it could not keep is named."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.capture.capture import WorkspaceCapture
from engine.capture.objects import ObjectStore, open_object_store
from engine.capture.skip import SkipRules
from engine.capture.tool_capture import ToolCapture
from engine.config.schema import UndoConfig
from engine.storage.store import Store
from engine.storage.undo.journal import UndoJournal
from engine.storage.undo.session_journal import open_journal
from tests.support.tree import tree_state


@pytest.fixture
def journal(store: Store, workspace: Path) -> UndoJournal:
    return open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=2)


@pytest.fixture
def capture(workspace: Path) -> Iterator[WorkspaceCapture]:
    (workspace / "src").mkdir()
    (workspace / "src" / "a.txt").write_text("a\n")
    (workspace / "src" / "b.txt").write_text("b\n")
    tool = ToolCapture(workspace, UndoConfig(), open_object_store(workspace))
    started = tool.wait_built()
    assert started is not None
    yield started
    tool.close()


def run_turn(journal: UndoJournal, capture: WorkspaceCapture, turn: str, command: str, root: Path) -> None:
    journal.begin_turn(turn, turn)
    mark = capture.mark()
    subprocess.run(command, shell=True, cwd=root, check=True)
    journal.record_captured(capture.collect(mark))
    journal.end_turn()


def test_a_change_made_during_the_first_capture_is_named_not_lost(
    journal: UndoJournal, workspace: Path
) -> None:
    """The call runs after the watcher started and before the walk read anything: what it changed cannot be put
    back, so each path is named in the undo result; what it created is still removed."""
    (workspace / "src").mkdir()
    (workspace / "src" / "a.txt").write_text("a\n")
    (workspace / "src" / "gone.txt").write_text("gone\n")
    capture = WorkspaceCapture(
        workspace, ObjectStore(workspace / ".coder" / "undo" / "objects"),
        SkipRules(workspace, [], use_gitignore=True), max_file_bytes=1 << 20,
    )
    capture.start_watching()
    try:
        journal.begin_turn("t1", "during the first capture")
        mark = capture.mark()
        (workspace / "src" / "a.txt").write_text("changed\n")
        (workspace / "src" / "gone.txt").unlink()
        journal.record_captured(capture.collect(mark))
        journal.end_turn()
        capture.first_capture()
    finally:
        capture.close()
    result = journal.undo_last_turn()
    assert result.applied
    reason = "changed while the first capture was still reading the workspace"
    assert f"src/a.txt ({reason})" in result.not_captured
    assert f"src/gone.txt ({reason})" in result.not_captured
    assert "src/a.txt" in result.summary() and "src/gone.txt" in result.summary()


def test_a_change_after_the_first_capture_read_its_folder_is_restorable(
    journal: UndoJournal, workspace: Path
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "a.txt").write_text("a\n")
    capture = WorkspaceCapture(
        workspace, ObjectStore(workspace / ".coder" / "undo" / "objects"),
        SkipRules(workspace, [], use_gitignore=True), max_file_bytes=1 << 20,
    )
    capture.start_watching()
    try:
        capture.first_capture()
        run_turn(journal, capture, "t1", "rm -rf src && echo new > new.txt", workspace)
    finally:
        capture.close()
    result = journal.undo_last_turn()
    assert result.applied and not result.not_captured
    assert (workspace / "src" / "a.txt").read_text() == "a\n" and not (workspace / "new.txt").exists()


def test_a_shell_command_is_undone_from_the_content_store(
    journal: UndoJournal, capture: WorkspaceCapture, workspace: Path
) -> None:
    capture.wait_ready(10)
    before = tree_state(workspace)
    run_turn(journal, capture, "t1", "rm -rf src && mkdir out && echo x > out/y && ln -s out z", workspace)
    result = journal.undo_last_turn()
    assert result.applied, result.summary()
    assert tree_state(workspace) == before
    assert set(result.recreated) >= {"src", "src/a.txt", "src/b.txt"}
    assert set(result.deleted) == {"out", "out/y", "z"}


def test_equal_contents_are_stored_once_and_dropped_turns_free_their_objects(
    store: Store, capture: WorkspaceCapture, workspace: Path
) -> None:
    session = store.sessions.create(model="m", mode="yolo")
    journal = open_journal(store, session, workspace, max_turns=2, objects=capture.objects)
    capture.wait_ready(10)
    objects = workspace / ".coder" / "undo" / "objects"
    (workspace / "src" / "copy.txt").write_text("a\n")  # the same bytes as src/a.txt
    run_turn(journal, capture, "t0", "true", workspace)
    stored = {path.name for path in objects.rglob("*") if path.is_file()}
    assert len(stored) == 2  # "a\n" and "b\n", once each
    for turn in ("t1", "t2", "t3"):
        run_turn(journal, capture, turn, f"echo {turn} > src/b.txt", workspace)
    # The stack is two deep: t1 fell off. "b\n" stays as the session's baseline (/diff), "t1\n" and "t2\n" as
    # what t2 and t3 put back, "t3\n" as the workspace now; nothing else is kept.
    stored = {path.parent.name + path.name for path in objects.rglob("*") if path.is_file()}
    assert len(stored) == 5
    (workspace / "src" / "b.txt").write_text("t4\n")
    run_turn(journal, capture, "t4", "true", workspace)  # absorbs the outside change: "t3\n" is history now
    run_turn(journal, capture, "t5", "echo t5 > src/b.txt", workspace)
    run_turn(journal, capture, "t6", "echo t6 > src/b.txt", workspace)
    stored = {path.parent.name + path.name for path in objects.rglob("*") if path.is_file()}
    assert len(stored) == 5  # a, b (baseline), t4 (before t5), t5 (before t6), t6 (now): t1, t2, t3 pruned
    assert journal.depth == 2


def test_a_file_over_max_file_mb_is_named_and_left_as_it_is(journal: UndoJournal, workspace: Path) -> None:
    (workspace / "big.bin").write_bytes(b"x" * 4096)
    (workspace / "small.txt").write_text("small\n")
    tool = ToolCapture(workspace, UndoConfig(max_file_mb=0.002), journal.objects)
    capture = tool.wait_built()
    assert capture is not None and capture.wait_ready(10)
    try:
        run_turn(journal, capture, "t1", "echo changed > big.bin && echo changed > small.txt", workspace)
    finally:
        tool.close()
    result = journal.undo_last_turn()
    assert result.applied
    assert (workspace / "small.txt").read_text() == "small\n"
    assert (workspace / "big.bin").read_text() == "changed\n"
    assert any(item.startswith("big.bin (over undo.max_file_mb") for item in result.not_captured)
    assert "big.bin" in result.summary()

"""SPEC 7 `/diff`: in git, the `git diff` summary (files, +/-) and the full text, untracked files listed; outside
git, the changes this session's tools made. coder's own `.coder/` never shows."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine.storage.store import Store
from engine.storage.undo.journal import UndoJournal
from engine.storage.undo.session_journal import open_journal
from engine.storage.undo.workspace_diff import FileDiff, collect_workspace_diff, git_diff, session_diff


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No repository above the test folder and no user configuration may change what git prints."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", *args],
        cwd=root, check=True, capture_output=True,
    )


def by_path(files: tuple[FileDiff, ...]) -> dict[str, FileDiff]:
    return {f.path: f for f in files}


def test_git_diff_lists_tracked_staged_and_untracked_changes(workspace: Path, store: Store) -> None:
    git(workspace, "init", "-q")
    (workspace / "a.txt").write_text("one\ntwo\nthree\n")
    (workspace / "b.txt").write_text("to delete\n")
    (workspace / "old name.txt").write_text("moving file with enough content to be a rename\n" * 5)
    (workspace / "logo.bin").write_bytes(b"\x00\x01\x02")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "start")
    (workspace / "a.txt").write_text("one\nTWO\nthree\nfour\n")
    git(workspace, "rm", "-q", "b.txt")
    git(workspace, "mv", "old name.txt", "new name.txt")
    (workspace / "c.txt").write_text("staged\nnew\n")
    git(workspace, "add", "c.txt")
    (workspace / "logo.bin").write_bytes(b"\x00\x09")
    (workspace / "notes.md").write_text("untracked\nfile\nthree lines")

    diff = collect_workspace_diff(workspace, None)
    assert diff.source == "git" and diff.note == ""
    files = by_path(diff.files)
    assert set(files) == {"a.txt", "b.txt", "new name.txt", "c.txt", "logo.bin", "notes.md"}
    assert files["a.txt"] == FileDiff("a.txt", 2, 1, "modified")
    assert files["b.txt"] == FileDiff("b.txt", 0, 1, "deleted")
    assert files["new name.txt"] == FileDiff("new name.txt", 0, 0, "renamed", old_path="old name.txt")
    assert files["c.txt"] == FileDiff("c.txt", 2, 0, "added")
    assert files["logo.bin"] == FileDiff("logo.bin", 0, 0, "modified", binary=True)
    assert files["notes.md"] == FileDiff("notes.md", 3, 0, "untracked")
    assert "-two\n+TWO\n" in diff.text and "+staged\n" in diff.text
    assert (diff.added, diff.removed) == (7, 2)
    assert ".coder" not in diff.text and not any(path.startswith(".coder") for path in files)


def test_git_diff_in_a_repository_with_no_commit_yet(workspace: Path) -> None:
    git(workspace, "init", "-q")
    (workspace / "first.py").write_text("print(1)\n")
    git(workspace, "add", "first.py")
    diff = git_diff(workspace)
    assert diff is not None
    assert diff.files == (FileDiff("first.py", 1, 0, "added"),)


def test_a_clean_repository_has_an_empty_diff(workspace: Path) -> None:
    git(workspace, "init", "-q")
    (workspace / "a.txt").write_text("x\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "c")
    diff = collect_workspace_diff(workspace, None)
    assert (diff.source, diff.files, diff.text) == ("git", (), "")


def record_session(store: Store, workspace: Path) -> UndoJournal:
    (workspace / "edited.txt").write_text("keep\nold line\n")
    (workspace / "gone.txt").write_text("bye\n")
    (workspace / "tool.sh").write_text("#!/bin/sh\n")
    os.chmod(workspace / "tool.sh", 0o644)
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=5)
    journal.begin_turn("t1")
    for path in ("edited.txt", "gone.txt", "tool.sh", "new/made.txt"):
        journal.record(workspace / path)
    (workspace / "edited.txt").write_text("keep\nnew line\nadded\n")
    (workspace / "gone.txt").unlink()
    os.chmod(workspace / "tool.sh", 0o755)
    (workspace / "new").mkdir()
    (workspace / "new" / "made.txt").write_text("hello\n")
    journal.end_turn()
    return journal


def test_outside_git_the_session_tool_changes_are_the_diff(workspace: Path, store: Store) -> None:
    journal = record_session(store, workspace)
    diff = collect_workspace_diff(workspace, journal)
    assert diff.source == "session"
    assert by_path(diff.files) == {
        "edited.txt": FileDiff("edited.txt", 2, 1, "modified"),
        "gone.txt": FileDiff("gone.txt", 0, 1, "deleted"),
        "new/made.txt": FileDiff("new/made.txt", 1, 0, "added"),
        "tool.sh": FileDiff("tool.sh", 0, 0, "modified"),
    }
    assert "diff --git a/edited.txt b/edited.txt\n--- a/edited.txt\n+++ b/edited.txt\n" in diff.text
    assert "-old line\n+new line\n+added\n" in diff.text
    assert "deleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n" in diff.text
    assert "diff --git a/tool.sh b/tool.sh\nold mode 100644\nnew mode 100755\n" in diff.text


def test_without_git_installed_the_session_changes_are_shown(
    workspace: Path, store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    git(workspace, "init", "-q")
    journal = record_session(store, workspace)
    empty_bin = tmp_path / "no-git-here"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    assert collect_workspace_diff(workspace, journal).source == "session"


def test_a_line_ending_change_shows_in_the_session_diff(workspace: Path, store: Store) -> None:
    (workspace / "dos.txt").write_bytes(b"a\r\nb\r\n")
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=5)
    journal.begin_turn("t1")
    journal.record(workspace / "dos.txt")
    (workspace / "dos.txt").write_bytes(b"a\nb\n")
    journal.end_turn()
    assert session_diff(journal).files == (FileDiff("dos.txt", 2, 2, "modified"),)


def test_outside_git_with_no_tool_changes_says_so(workspace: Path) -> None:
    diff = collect_workspace_diff(workspace, None)
    assert (diff.source, diff.files, diff.text) == ("session", (), "")
    assert diff.note == "not a git repository; this session's tools changed no file"

"""ACP's diff content: a tool's unified diff turned back into each file's whole old and new text."""

from __future__ import annotations

from pathlib import Path

from engine.server.acp.diffs import FileDiff, file_diffs
from engine.text_diff import unified_diff

OLD = "".join(f"line {n}\n" for n in range(1, 30))
NEW = OLD.replace("line 3\n", "line three\n").replace("line 25\n", "") + "tail\n"


def test_an_edit_gives_the_whole_old_and_new_text(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(NEW)
    assert file_diffs(unified_diff(OLD, NEW, "a.txt"), tmp_path) == [FileDiff(tmp_path / "a.txt", OLD, NEW)]


def test_created_deleted_and_several_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(NEW)
    (tmp_path / "new.py").write_text("x = 1\n")
    diff = unified_diff(OLD, NEW, "a.txt") + unified_diff(None, "x = 1\n", "new.py") + unified_diff("bye\n", None, "gone.txt")
    assert file_diffs(diff, tmp_path) == [
        FileDiff(tmp_path / "a.txt", OLD, NEW),
        FileDiff(tmp_path / "new.py", None, "x = 1\n"),
        FileDiff(tmp_path / "gone.txt", "bye\n", ""),
    ]


def test_a_file_changed_again_since_is_left_out_rather_than_shown_wrong(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("something else entirely\n")
    assert file_diffs(unified_diff(OLD, NEW, "a.txt"), tmp_path) == []
    assert file_diffs("not a diff", tmp_path) == []

"""The unified diffs that write, edit and patch report (SPEC 5: every change returns the diff it made)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from engine.text_diff import NO_NEWLINE_MARKER, diff_stats, unified_diff


def test_diff_of_a_new_file_comes_from_dev_null() -> None:
    diff = unified_diff(None, "a\nb\n", "src/new.py")
    assert diff.startswith("--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1,2 @@\n")
    assert diff.endswith("+a\n+b\n")


def test_diff_of_a_deleted_file_goes_to_dev_null() -> None:
    diff = unified_diff("a\n", None, "old.py")
    assert diff.startswith("--- a/old.py\n+++ /dev/null\n")
    assert diff_stats(diff) == (0, 1)


def test_diff_of_an_unchanged_file_is_empty() -> None:
    assert unified_diff("same\n", "same\n", "x") == ""


def test_diff_of_a_new_empty_file_still_shows_its_headers() -> None:
    assert unified_diff(None, "", "empty.txt") == "--- /dev/null\n+++ b/empty.txt\n"


def test_diff_marks_a_last_line_without_newline() -> None:
    diff = unified_diff("a\nb", "a\nc", "x")
    assert f"-b\n{NO_NEWLINE_MARKER}\n+c\n{NO_NEWLINE_MARKER}\n" in diff


def test_diff_splits_only_on_newlines() -> None:
    diff = unified_diff("page\x0cbreak\n", "page\x0cbreak!\n", "x")
    assert diff_stats(diff) == (1, 1)
    assert "-page\x0cbreak\n" in diff


def test_diff_stats_count_content_lines_that_look_like_headers() -> None:
    diff = unified_diff("--- old\nkeep\n", "+++ new\nkeep\n", "notes.md")
    assert diff_stats(diff) == (1, 1)


def test_diff_stats_add_up_several_files() -> None:
    diff = unified_diff("a\nb\nc\n", "a\nB\nc\nd\n", "one") + unified_diff(None, "x\ny\n", "two")
    assert diff_stats(diff) == (4, 1)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to check the patch")
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("no newline", "no newline\nnow two"),
        (None, "created\n"),
        ("deleted\n", None),
        ("".join(f"line {i}\n" for i in range(40)), "".join(f"line {i}\n" for i in range(40) if i % 9)),
    ],
)
def test_diff_is_a_patch_that_git_applies(tmp_path: Path, old: str | None, new: str | None) -> None:
    target = tmp_path / "f.txt"
    if old is not None:
        target.write_bytes(old.encode())
    (tmp_path / "change.diff").write_text(unified_diff(old, new, "f.txt"))
    subprocess.run(["git", "apply", "change.diff"], cwd=tmp_path, check=True, capture_output=True)
    if new is None:
        assert not target.exists()
    else:
        assert target.read_bytes() == new.encode()

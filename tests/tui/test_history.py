"""Input history (SPEC 15): Up/Down walk it, the draft comes back, it survives a restart."""

from __future__ import annotations

from pathlib import Path

from coder_tui.history import HISTORY_FILE, InputHistory


def test_walk_back_and_forth_returns_the_draft(tmp_path: Path) -> None:
    history = InputHistory(None, ["one", "two"])
    assert history.previous("draft") == "two"
    assert history.previous("two") == "one"
    assert history.previous("one") is None
    assert history.next() == "two"
    assert history.next() == "draft"
    assert not history.walking


def test_history_is_kept_across_sessions(tmp_path: Path) -> None:
    first = InputHistory.load(tmp_path)
    first.add("fix the build")
    first.add("multi\nline")
    first.add("multi\nline")
    assert InputHistory.load(tmp_path).entries == ["fix the build", "multi\nline"]


def test_a_broken_history_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    path.parent.mkdir(parents=True)
    path.write_text('"ok"\n{not json\n"also ok"\n')
    assert InputHistory.load(tmp_path).entries == ["ok", "also ok"]


def test_unwritable_history_does_not_break_submitting(tmp_path: Path) -> None:
    blocker = tmp_path / ".coder"
    blocker.write_text("a file where the folder should be")
    history = InputHistory.load(tmp_path)
    history.add("still works")
    assert history.entries == ["still works"]

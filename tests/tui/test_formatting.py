"""How numbers, paths and tool results read on screen."""

from __future__ import annotations

from pathlib import Path

from coder_tui.input.bindings import KEY_TABLE, bindings_for, display_keys, help_rows
from coder_tui.transcript.formatting import display_path, format_context, format_duration, format_tokens, tool_output_text


def test_token_counts_and_context() -> None:
    assert [format_tokens(n) for n in (950, 12_345, 128_000, 1_200_000)] == ["950", "12.3k", "128k", "1.2M"]
    assert format_context(12_345, 128_000) == "12.3k / 128k (10%)"


def test_durations() -> None:
    assert [format_duration(ms) for ms in (850, 1234, 65_000)] == ["850ms", "1.2s", "1m 05s"]


def test_paths_under_home_start_with_a_tilde(tmp_path: Path) -> None:
    assert display_path(tmp_path / "proj", home=tmp_path) == "~/proj"
    assert display_path(Path("/opt/x"), home=tmp_path) == "/opt/x"


def test_tool_output_shows_errors_bash_results_and_data() -> None:
    assert tool_output_text({"ok": False, "error": "file not found: a.txt"}) == "file not found: a.txt"
    bash = tool_output_text({"ok": True, "command": "ls", "exit_code": 1, "stdout": "a\n", "stderr": "oops\n"})
    assert bash == "$ ls\nexit code 1\nstdout:\na\nstderr:\noops"
    listing = tool_output_text({"ok": True, "path": ".", "entries": ["a.txt", "src/"], "truncated": False})
    assert listing == "path: .  truncated: no\na.txt\nsrc/"


def test_every_binding_is_in_help_and_built_from_the_table() -> None:
    rows = help_rows()
    # Every binding is there; the nine digits of a question share one row.
    assert len(rows) == len(KEY_TABLE) - 8
    assert ("question", "1…9", "pick the option with that number") in rows
    helps = {spec.help for spec in KEY_TABLE}
    assert helps == {row[2] for row in rows}
    assert ("anywhere", "Shift+Tab", "cycle the mode: default → auto-edit → plan") in rows
    assert display_keys("ctrl+j,shift+enter") == "Ctrl+J / Shift+Enter"
    shift_tab = next(b for b in bindings_for("app") if b.key == "shift+tab")
    assert shift_tab.priority
    escape = next(b for b in bindings_for("app") if b.key == "escape")
    assert not escape.priority  # a modal's own Esc must win


def test_friendly_times_say_today_yesterday_or_the_date() -> None:
    from datetime import datetime, timedelta, timezone

    from coder_tui.transcript.formatting import friendly_time, session_details

    now = datetime(2026, 11, 21, 10, 0, tzinfo=timezone(timedelta(hours=2)))
    assert friendly_time("2026-11-21T07:31:00.000000+00:00", now) == "today 09:31"
    assert friendly_time("2026-11-20T16:02:10+00:00", now) == "yesterday 18:02"
    assert friendly_time("2026-11-19T12:05:00+00:00", now) == "2026-11-19 14:05"
    assert friendly_time("2026-11-20T22:30:00+00:00", now) == "today 00:30"  # the local date decides
    assert friendly_time("2026-11-21T06:00:00", now) == "today 08:00"  # no zone: UTC, as the store writes
    assert friendly_time("not a time", now) == "not a time"
    row = {"id": "a1b2c3", "updated_at": "2026-11-21T07:31:00+00:00", "message_count": 1}
    assert session_details(row, now) == "today 09:31 · 1 message · a1b2c3"

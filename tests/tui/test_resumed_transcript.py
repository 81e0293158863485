"""Issue 18 in the TUI: a resumed transcript shows the whole history as the live one did (each edit's diff, a
"context compacted here" line per compaction, each sub-agent's conversation on a click) and builds only its tail
at once, the older entries as the user scrolls up to them."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.history_entries import RestoredHistory
from coder_tui.widgets.notice_line import NoticeLine
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.transcript_window import OLDER_BATCH, RESUMED_ENTRIES
from coder_tui.widgets.user_message import UserMessage
from engine.events import HistoryRestored
from engine.restored import RestoredEntry
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle, submit, wait_until

FILLER = "The parser reads tokens, builds a tree, and the checker walks it to report each error. " * 5


@pytest.fixture(autouse=True)
def numbered_session_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Session ids the snapshots can show: session01, session02..."""
    numbers = count(1)
    monkeypatch.setattr("engine.orchestrator.session.new_session_id", lambda: f"session{next(numbers):02d}")


def script_two_compactions(server: ScriptedServer) -> None:
    server.add(
        reply(tool_call("write", path="notes.txt", content="one\n")),
        reply(text(f"Written. {FILLER}")),
        reply(text("SUMMARY 1: notes.txt was created.")),
        reply(tool_call("edit", path="notes.txt", old_string="one", new_string="two")),
        reply(text(f"Edited. {FILLER}")),
        reply(text("SUMMARY 2: notes.txt says two.")),
    )


async def compact_twice_then_resume(pilot: Pilot[object]) -> None:
    """Through the app: write a file, compact, edit it, compact again; then a new session and /resume the first."""
    app = await ready(pilot)
    for request in ("create notes.txt", "/compact", "change one to two", "/compact", "/new"):
        await submit(pilot, request)
        await settle(pilot)
    await submit(pilot, "/resume session01")
    await settle(pilot)
    await wait_until(pilot, lambda: app.link.state.session_id == "session01", "the resumed session")
    app.session.prompt.input.cursor_blink = False


async def test_resumed_transcript_shows_the_first_edits_diff_and_both_markers(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    script_two_compactions(scripted_server)
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test(size=(120, 40)) as pilot:
        await compact_twice_then_resume(pilot)
        entries = app.session.transcript.entries
        shown = [
            type(entry).__name__ + ":" + (entry.text if isinstance(entry, (UserMessage, NoticeLine)) else
                                          entry.tool if isinstance(entry, ToolCallView) else "")
            for entry in entries
        ]
        assert shown[:4] == ["UserMessage:create notes.txt", "ToolCallView:write", "MarkdownLines:",
                             "NoticeLine:" + next(e.text for e in entries if isinstance(e, NoticeLine))]
        markers = [e.text for e in entries if isinstance(e, NoticeLine)]
        assert len(markers) == 2 and all(m.startswith("context compacted here:") for m in markers)
        write, edit = [e for e in entries if isinstance(e, ToolCallView)]
        assert "+one" in write.diff and "-one" in edit.diff and "+two" in edit.diff
        assert isinstance(entries[-1], CommandOutput) and "resumed session session01" in entries[-1].result.text


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_resumed_transcript_with_a_marker_and_a_diff(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size
) -> None:
    script_two_compactions(scripted_server)
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    assert snap_compare(app, terminal_size=size, run_before=compact_twice_then_resume)


async def test_a_subagents_conversation_expands_live_and_after_a_resume(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    (workspace / "notes.txt").write_text("the id is 42\n")
    scripted_server.add(
        reply(tool_call("task", id="call_t", description="Find the id", prompt="Read notes.txt; what is the id?")),
        reply(tool_call("read", id="sub_1", path="notes.txt")),
        reply(text("The id is 42 (notes.txt:1).")),
        reply(text("The id is 42.")),
    )
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "what is the id?")
        await settle(pilot)
        live = app.session.transcript.tool_call("call_t")
        assert isinstance(live, ToolCallView)
        assert "▸ conversation, 4 messages" in live.subagent.shown_text
        assert "Read notes.txt; what is the id?" not in live.subagent.shown_text
        await pilot.click(live.subagent)
        live_lines = live.subagent.shown_text
        assert "prompt Read notes.txt; what is the id?" in live_lines
        assert "→ read" in live_lines and "answer The id is 42 (notes.txt:1)." in live_lines

        await submit(pilot, "/new")
        await settle(pilot)
        await submit(pilot, "/resume session01")
        await settle(pilot)
        restored = app.session.transcript.tool_call("call_t")
        assert isinstance(restored, ToolCallView) and restored is not live
        assert restored.nested_text.startswith("↳ ✓ read  notes.txt  success")
        await pilot.click(restored.subagent)
        assert restored.subagent.shown_text.splitlines()[1:] == live_lines.splitlines()[1:]


async def test_older_entries_are_built_when_the_user_scrolls_up(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    entries = tuple(RestoredEntry("message", {"role": "user", "content": f"question {n}"}) for n in range(500))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        transcript = app.session.transcript
        transcript.show_history(RestoredHistory(HistoryRestored.of("s", entries)))
        await pilot.pause()
        # Only the entries that fill the transcript are built: more than a screen, fewer than the cap.
        shown = len(transcript.entries)
        assert shown < RESUMED_ENTRIES and transcript.max_scroll_y > 0
        assert transcript.older_count == 500 - shown
        first_shown = transcript.entries[0]
        transcript.scroll_home(animate=False)
        await wait_until(pilot, lambda: len(transcript.entries) == shown + OLDER_BATCH, "older entries")
        await pilot.pause()
        assert [e.text for e in transcript.entries[:2]] == [f"question {500 - shown - OLDER_BATCH + n}"
                                                             for n in range(2)]
        # The view stays where it was: the entry that was first is still on screen, not pushed away.
        await wait_until(pilot, lambda: transcript.scroll_y > 0, "the view kept below the new entries")
        await pilot.pause()
        assert transcript.region.overlaps(first_shown.region)
        assert f"{500 - shown - OLDER_BATCH} earlier entries: scroll up" in str(
            transcript.query_one(".elided").visual)

"""Issue 32: a live session keeps only its last entries mounted, and what it pruned comes back when scrolled up to,
built from the messages the engine stored, as a resumed session's older entries are."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

import coder_tui.screens.session as session_screen
from coder_tui.widgets.markdown_lines import MarkdownLines
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.transcript_window import KEEP_SCREENS, MAX_ENTRIES
from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, submit, wait_until

# Each exchange: the question, a read call, the answer: three entries.
EXCHANGES = MAX_ENTRIES // 3 + 6


async def test_pruned_live_exchanges_come_back_when_scrolled_up_to(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    (workspace / "notes.txt").write_text("the limit is 10\n")
    for index in range(EXCHANGES):
        scripted_server.add(reply(tool_call("read", path="notes.txt")), reply(text(f"answer **{index}** done")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        transcript = app.session.transcript
        drawn: list[weakref.ref[object]] = []  # the render caches of the first exchange's widgets
        for index in range(EXCHANGES):
            await submit(pilot, f"question {index}")
            await wait_until(pilot, lambda i=index: len(scripted_server.requests) == 2 * (i + 1) and not app.link.busy)
            if index == 0:
                await pilot.pause()
                drawn = [weakref.ref(entry._styles_cache) for entry in transcript.entries[-3:]]
        await pilot.pause()
        assert len(transcript.entries) <= MAX_ENTRIES
        # What was pruned is freed, the lines it drew too (Textual's lru_cache on StylesCache.get_inner_outer kept
        # them: coder_tui.runtime.textual_fixes). Unfrozen first: the app's quiet moments froze them, and their own
        # collection of frozen objects is the next test's.
        gc.unfreeze()
        gc.collect()
        assert drawn and [ref() for ref in drawn] == [None] * len(drawn)
        assert transcript.older_count > 0  # pruned, not lost
        assert "scroll up to show them" in str(transcript.query_one(".elided").visual)

        while transcript.older_count:
            transcript.scroll_home(animate=False, immediate=True)
            await pilot.pause()
            await wait_until(pilot, lambda: transcript.scroll_y > 0 or not transcript.older_count, "older entries")

        entries = transcript.entries
        first = entries[:3]
        assert isinstance(first[0], UserMessage) and first[0].text == "question 0"
        assert isinstance(first[1], ToolCallView) and first[1].call_id
        assert isinstance(first[2], MarkdownLines) and "answer **0** done" in first[2].text
        questions = [entry.text for entry in entries if isinstance(entry, UserMessage)]
        assert questions == [f"question {index}" for index in range(len(questions))]  # in order, none twice


async def test_what_is_pruned_is_freed_when_the_keys_never_rest(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: a user typing the next request while each answer is read never leaves the keys alone for a
    second, which the pass over every object waited for: it never ran, and every pruned exchange stayed in memory
    (the UI grew 0.25 MB an exchange). Pruned widgets are freed by the app's own collections: no ``gc.collect``
    here."""
    monkeypatch.setattr(session_screen, "KEYS_IDLE_S", 1e9)  # the keys never rest
    monkeypatch.setattr(session_screen, "QUIET_AFTER_S", 0.01)
    exchanges = MAX_ENTRIES // 2 + 6  # two entries each: the question and its answer
    for index in range(exchanges):
        scripted_server.add(reply(text(f"answer {index}")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.session._collector._full_every = 2
        transcript = app.session.transcript
        first: list[weakref.ref[object]] = []
        for index in range(exchanges):
            await submit(pilot, f"question {index}")
            await wait_until(pilot, lambda i=index: len(scripted_server.requests) == i + 1 and not app.link.busy)
            await pilot.pause(0.05)  # the quiet moment after the answer
            if index == 0:
                first = [weakref.ref(entry) for entry in transcript.entries[-2:]]
        assert transcript.older_count > 0  # the first exchange was pruned...
        assert gc.get_freeze_count() > 0  # ... after the app's quiet moments froze it
        assert first and [ref() for ref in first] == [None] * len(first)  # ... and freed


async def test_short_exchanges_are_pruned_by_height_but_never_while_the_user_reads_above(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    """Issue 32: every layout arranges each mounted exchange, so forty entries of short ones (four screens) cost
    a long session a layout twice as long as a short one's. While the user follows the end, the exchanges kept
    are those that fill ``KEEP_SCREENS`` screens; scrolled up, what they read stays."""
    exchanges = 16
    for index in range(exchanges):
        scripted_server.add(reply(text(f"answer {index}")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        transcript = app.session.transcript
        for index in range(exchanges):
            await submit(pilot, f"question {index}")
            await wait_until(pilot, lambda i=index: len(scripted_server.requests) == i + 1 and not app.link.busy)
            await pilot.pause()
        viewport = transcript.scrollable_content_region.height
        groups = transcript._groups
        heights = [group.outer_size.height for group in groups]
        assert len(transcript.entries) < 2 * exchanges <= MAX_ENTRIES  # fewer than the count alone keeps
        assert transcript.older_count > 0
        # Two screens to scroll back through before anything is built again, and not much more.
        assert KEEP_SCREENS * viewport <= sum(heights) < KEEP_SCREENS * viewport + max(heights) + heights[0]

        # The user scrolls up while the exchange goes on (entries arrive: notices here): what they read stays.
        transcript.scroll_by_key("page_up")
        await pilot.pause()
        first, mounted = groups[0], len(transcript.entries)
        for index in range(8):
            transcript.add_notice(f"notice {index}")
            await pilot.pause()
        assert transcript._groups[0] is first and len(transcript.entries) == mounted + 8
        # Back at the end, the next entry prunes again.
        transcript.scroll_by_key("bottom")
        await pilot.pause()
        transcript.add_notice("one more")
        await pilot.pause()
        assert transcript._groups[0] is not first and len(transcript.entries) < mounted + 9

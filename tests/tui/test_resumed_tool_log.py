"""A resumed session's calls in the tool-event log (issue 14): the last ones only, a line each in one widget, shown
after the conversation, above any call that started meanwhile."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot

from coder_tui.widgets.history_entries import RestoredHistory, StoredCall
from coder_tui.widgets.stored_call_lines import StoredCallLines
from coder_tui.widgets.tool_log import MAX_ROWS, ToolLog
from coder_tui.widgets.tool_log_row import ToolLogRow
from engine.events import HistoryRestored, ToolStatus
from engine.restored import RestoredEntry
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready


def exchange(number: int, *, result: bool = True) -> list[RestoredEntry]:
    call = {"id": f"c{number}", "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": f"f{number}.py"})}}
    entries = [RestoredEntry("message", {"role": "assistant", "content": None, "tool_calls": [call]})]
    if result:
        content = json.dumps({"ok": number % 2 == 0})
        entries.append(RestoredEntry("message", {"role": "tool", "tool_call_id": f"c{number}", "content": content}))
    return entries


async def next_frames(pilot: Pilot[object]) -> None:
    """Until the frame after the next one has been drawn (rows wait for a refresh, and their own mount)."""
    await pilot.pause()
    await pilot.pause()


def test_the_log_gets_the_last_calls_oldest_first_with_how_each_ended() -> None:
    entries = [entry for number in range(6) for entry in exchange(number, result=number != 5)]
    history = RestoredHistory(HistoryRestored.of("s", entries))
    assert history.stored_calls(3) == [
        StoredCall("c3", "read", "f3.py", ToolStatus.ERROR),
        StoredCall("c4", "read", "f4.py", ToolStatus.SUCCESS),
        StoredCall("c5", "read", "f5.py", ToolStatus.CANCELLED),
    ]
    assert len(history.stored_calls(100)) == 6


@asynccontextmanager
async def tool_log_of(workspace: Path, server: ScriptedServer) -> AsyncIterator[tuple[Pilot[object], ToolLog]]:
    """The app running, its engine ready, and its tool-event log."""
    app = make_app(workspace, server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        yield pilot, app.session.tool_log


def shown(log: ToolLog) -> list[str]:
    """The call ids the log shows, top down: a resumed session's lines, then the rows."""
    stored = [call.call_id for lines in log.query(StoredCallLines) for call in lines.calls]
    return stored + [row.call_id for row in log.query(ToolLogRow)]


async def test_restored_calls_come_a_frame_later_above_a_call_started_meanwhile(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    async with tool_log_of(workspace, scripted_server) as (pilot, log):
        log.show_stored([StoredCall(f"c{n}", "read", f"f{n}.py", ToolStatus(status)) for n, status in
                         enumerate(("success", "error", "cancelled"))])
        log.add_call("live", "bash", "ls")
        await next_frames(pilot)
        assert shown(log) == ["c0", "c1", "c2", "live"]
        # One widget, a line a call, as each call's row showed it when it ended.
        (lines,) = log.query(StoredCallLines)
        assert str(lines.visual).splitlines() == ["✓ read  f0.py  success", "✗ read  f1.py  error",
                                                  "■ read  f2.py  cancelled"]
        assert lines.region.height == 3

        log.show_stored([StoredCall("old", "read", "x.py", ToolStatus.SUCCESS)])
        log.clear()  # /new before the calls were shown: they never are
        await next_frames(pilot)
        assert shown(log) == []


async def test_restored_calls_wait_for_the_conversation_to_be_drawn(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    import asyncio

    async with tool_log_of(workspace, scripted_server) as (pilot, log):
        conversation_drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        log.show_stored([StoredCall("c0", "read", "f0.py", ToolStatus.SUCCESS)], after=conversation_drawn)
        await next_frames(pilot)
        assert shown(log) == []
        conversation_drawn.set_result(None)
        await next_frames(pilot)
        assert shown(log) == ["c0"]


async def test_the_resumed_sessions_calls_go_first_when_the_log_is_full(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    async with tool_log_of(workspace, scripted_server) as (pilot, log):
        log.show_stored([StoredCall(f"c{n}", "read", f"f{n}.py", ToolStatus.SUCCESS) for n in range(3)])
        await next_frames(pilot)
        for n in range(MAX_ROWS - 3):
            log.add_call(f"live{n}", "bash", "ls")
        await next_frames(pilot)
        assert len(shown(log)) == MAX_ROWS and shown(log)[:3] == ["c0", "c1", "c2"]
        log.add_call("one more", "bash", "ls")
        await next_frames(pilot)
        assert shown(log) == [f"live{n}" for n in range(MAX_ROWS - 3)] + ["one more"]

"""Issue 43 item 12: a resumed transcript shows each exchange as the live run showed it. A session with a call of
each outcome (success, error, denied, an edit denied with a reason, cancelled, not run after a plain "no"), an `/undo`
note to the model and a request the engine added a system reminder to, run live, then resumed: the conversation's
entries are the same (a slash command's own echo and output, and the engine's passing notices, are not part of the
conversation and are not replayed)."""

from __future__ import annotations

from itertools import count
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from coder_tui.app import CoderApp
from coder_tui.screens.approval import ApprovalScreen
from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.history_entries import note_text
from coder_tui.widgets.notice_line import NoticeLine
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.user_message import UserMessage
from engine.events import ToolStatus
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until

COMPLEX_REQUEST = "1. read a.txt and missing.txt 2. write new.txt and fix a.txt"


@pytest.fixture(autouse=True)
def numbered_session_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = count(1)
    monkeypatch.setattr("engine.orchestrator.session.new_session_id", lambda: f"session{next(numbers):02d}")


def conversation(app: CoderApp) -> list[tuple[Any, ...]]:
    """The transcript's conversation entries, each as what it shows."""
    shown: list[tuple[Any, ...]] = []
    for entry in app.session.transcript.entries:
        if isinstance(entry, UserMessage) and not entry.text.startswith("/"):
            shown.append(("user", entry.text))
        elif isinstance(entry, ToolCallView):
            shown.append(("call", entry.tool, entry.key_argument, entry.status, entry.duration_ms))
        elif isinstance(entry, NoticeLine) and entry.text.startswith(note_text("")):
            shown.append(("note", entry.text))
        elif not isinstance(entry, (UserMessage, NoticeLine, CommandOutput)) and hasattr(entry, "text"):
            shown.append(("text", entry.text))
    return shown


async def answer_dialog(pilot: Pilot[object], app: CoderApp, *keys: str) -> None:
    await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
    for _ in range(3):
        await pilot.pause()
    await pilot.press(*keys)


async def test_a_resumed_session_shows_what_the_live_one_did(workspace: Path, scripted_server: ScriptedServer) -> None:
    (workspace / "a.txt").write_text("one\n")
    scripted_server.add(
        reply(
            tool_call("read", path="a.txt"),
            tool_call("read", path="missing.txt"),
            tool_call("write", path="new.txt", content="new\n"),
            tool_call("edit", path="a.txt", old_string="one", new_string="two"),
        ),
        text("Read, wrote new.txt, left a.txt."),
        reply(tool_call("bash", command="touch made.txt")),
        reply(tool_call("bash", command="touch one.txt"), tool_call("bash", command="touch two.txt")),
    )
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, COMPLEX_REQUEST)
        await answer_dialog(pilot, app, "y")  # the write
        await answer_dialog(pilot, app, "t", *"not that file", "enter")  # the edit
        await settle(pilot)
        await submit(pilot, "/undo")
        await settle(pilot)
        await submit(pilot, "make a file")
        await answer_dialog(pilot, app, "escape")
        await settle(pilot)
        await submit(pilot, "make two files")
        await answer_dialog(pilot, app, "n")  # a plain "no": the second call is not run
        await settle(pilot)
        live = conversation(app)
        for request in ("/new", "/resume session01"):
            await submit(pilot, request)
            await settle(pilot)
        await wait_until(pilot, lambda: app.link.state.session_id == "session01", "the resumed session")
        await settle(pilot)
        resumed = conversation(app)
    statuses = [entry[3] for entry in live if entry[0] == "call"]
    assert statuses == [
        ToolStatus.SUCCESS, ToolStatus.ERROR, ToolStatus.SUCCESS, ToolStatus.DENIED, ToolStatus.CANCELLED,
        ToolStatus.DENIED, ToolStatus.CANCELLED,
    ]
    assert ("user", COMPLEX_REQUEST) in live and sum(entry[0] == "note" for entry in live) == 1
    assert resumed == live

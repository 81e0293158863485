"""SPEC 23: the approval dialog's "no, and tell the model why": t (or its button) opens a line for the reason,
Enter refuses the call and the model reads the reason in the tool result; the keys of the dialog do not fire while
the reason is typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input

from coder_tui.screens.approval import ApprovalScreen
from engine.events import ToolStatus
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle
from tests.tui.test_dialogs import assert_choices_on_screen, on_screen, run_until_approval, tool_statuses

TOUCH = "touch made.txt"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_t_refuses_with_a_typed_reason_the_model_reads(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    scripted_server.add(reply(tool_call("bash", command=TOUCH)), reply(text("I will use the notes file.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "make a file")
        assert_choices_on_screen(app)
        await pilot.press("t")
        await pilot.pause()
        reason = dialog.query_one("#reason", Input)
        assert reason.has_focus and on_screen(app, reason)
        await pilot.press(*"not yet, and use notes.md", "enter")  # y and n here are letters, not choices
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalScreen) and not (workspace / "made.txt").exists()
        assert tool_statuses(app) == [ToolStatus.DENIED]
        tool_message = scripted_server.requests[1].body["messages"][-1]
        assert json.loads(tool_message["content"])["error"] == (
            "the user refused this call and says: not yet, and use notes.md"
        )


async def test_the_reason_button_opens_the_line_too(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command=TOUCH)), reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "make a file")
        await pilot.click("#explain")
        await pilot.pause()
        assert dialog.query_one("#reason", Input).has_focus
        await pilot.press("enter")  # no reason typed: a plain "no", which stops the turn
        await settle(pilot)
        assert len(scripted_server.requests) == 1 and not isinstance(app.screen, ApprovalScreen)


def test_the_reason_crosses_the_engine_pipe() -> None:
    from engine.interaction import ApprovalAnswer, ApprovalDecision
    from engine.protocol import CODEC, AnswerRequest

    message = AnswerRequest("r1", ApprovalAnswer(ApprovalDecision.NO, "use notes.md"))
    assert CODEC.loads(CODEC.dumps(message)) == message

"""SPEC 5 (decision of 2026-12-07): "always" is offered only when what it saves lets the same call through next
time. A call with a risk reason offers no "always"; a line whose `>` makes a file offers one that covers the same
line when, run again, it overwrites that file."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Static

from coder_tui.screens.approval import ApprovalScreen
from engine.events import ToolStatus
from engine.interaction import ApprovalDecision
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle
from tests.tui.test_dialogs import assert_choices_on_screen, record_decisions, run_until_approval, tool_statuses

WRITE_OUT = "echo result > out.txt"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_risky_call_offers_no_always(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    (workspace / "blob.bin").write_text("x")
    scripted_server.add(reply(tool_call("bash", command="rm -f blob.bin")), reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "remove the blob")
        assert_choices_on_screen(app)
        assert {button.id for button in dialog.query(Button)} == {"yes", "no", "explain", "cancel"}
        shown = "\n".join(str(widget.visual) for widget in dialog.query(Static))
        assert "This call can only be allowed once." in shown and "Always allows" not in shown
        await pilot.press("a")  # not offered: nothing happens
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_always_covers_the_same_call_next_time(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    """The first run makes out.txt; the identical second call overwrites it and runs without asking."""
    scripted_server.add(
        reply(tool_call("bash", command=WRITE_OUT)),
        reply(tool_call("bash", command=WRITE_OUT)),
        reply(text("twice")),
    )
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        decisions = record_decisions(app)
        dialog = await run_until_approval(pilot, app, "write the result twice")
        assert_choices_on_screen(app)
        assert dialog.request.always_scope is not None and f"`{WRITE_OUT}`" in dialog.request.always_scope
        await pilot.press("a")
        await settle(pilot)
        assert decisions == [ApprovalDecision.ALWAYS]
        assert tool_statuses(app) == [ToolStatus.SUCCESS, ToolStatus.SUCCESS]
        assert not isinstance(app.screen, ApprovalScreen)

"""Approvals from several agents (SPEC 26): one dialog at a time, in the order they arrived, each naming its agent
and its worktree; a withdrawn request never opens its dialog."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import Static

from coder_tui.link.interaction import TuiInteraction
from coder_tui.screens.approval import ApprovalScreen
from engine.interaction import ApprovalDecision, ApprovalRequest
from tests.tui.helpers import wait_until


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("main")


def request(agent: str) -> ApprovalRequest:
    return ApprovalRequest(
        call_id=f"call-{agent}", tool="write", key_argument=f"{agent}.txt", arguments={}, reasons=("writes a file",),
        agent=agent, worktree=f"/repo/.coder/worktrees/{agent}",
    )


def dialog_text(app: App[None]) -> str:
    screen = app.screen
    if not isinstance(screen, ApprovalScreen) or not screen.is_mounted:
        return ""
    return " ".join(str(static.render()) for static in screen.query("#title, #worktree"))


async def test_approvals_of_agents_are_answered_one_at_a_time_in_arrival_order() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        interaction = TuiInteraction(app)
        asked = [asyncio.create_task(interaction.request_approval(request(name))) for name in ("first", "second")]
        withdrawn = asyncio.create_task(interaction.request_approval(request("third")))
        await wait_until(pilot, lambda: "first" in dialog_text(app), "the first dialog")
        first = dialog_text(app)
        withdrawn.cancel()
        await pilot.press("y")
        await wait_until(pilot, lambda: asked[0].done(), "the first answer")
        await wait_until(pilot, lambda: "second" in dialog_text(app), "the second dialog")
        await pilot.pause()
        second = dialog_text(app)
        await pilot.press("n")
        answers = await asyncio.wait_for(asyncio.gather(*asked), 5)
        await pilot.pause()
        left_open = isinstance(app.screen, ApprovalScreen)

    assert first == "Agent first asks: allow write? in its worktree /repo/.coder/worktrees/first"
    assert second == "Agent second asks: allow write? in its worktree /repo/.coder/worktrees/second"
    assert answers == [ApprovalDecision.YES, ApprovalDecision.NO]
    assert withdrawn.cancelled() and not left_open

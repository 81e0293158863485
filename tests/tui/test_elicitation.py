"""The form an MCP server asks for (SPEC 22), in the full screen: shown over the session as the TUI's interaction
handler shows it, filled in with the keyboard, checked against the schema, declined and dismissed. Snapshots at
120x40 and 80x24."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Switch

from coder_tui.app import CoderApp
from coder_tui.screens.elicitation import ElicitationScreen
from engine.interaction import ElicitationAnswer, ElicitationRequest
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, wait_until

SIGNUP = ElicitationRequest(
    server="accounts",
    message="Create your account on the team's server.\x1b[31m (red?)",
    schema={
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "as colleagues know you", "minLength": 2},
            "email": {"type": "string", "title": "Email", "format": "email"},
            "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
            "plan": {"type": "string", "title": "Plan", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"],
                     "default": "free"},
            "newsletter": {"type": "boolean", "title": "Newsletter", "default": False},
        },
        "required": ["name", "email"],
    },
)


async def open_form(pilot: Pilot[object], request: ElicitationRequest) -> tuple[CoderApp, asyncio.Task]:
    app = await ready(pilot)
    answer = asyncio.ensure_future(app.link.interaction.elicit(request))
    await wait_until(pilot, lambda: isinstance(app.screen, ElicitationScreen), "the form")
    await pilot.pause()
    return app, answer


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_form_snapshot(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    async def run_before(pilot: Pilot[object]) -> None:
        await open_form(pilot, SIGNUP)

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_filled_in_with_the_keyboard_and_checked(workspace: Path, scripted_server: ScriptedServer, size) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        _, answer = await open_form(pilot, SIGNUP)
        screen = app.screen
        assert isinstance(screen, ElicitationScreen)
        assert "␛[31m" in str(screen.query_one("#message").render())  # the server's escape shown, not obeyed
        await pilot.press(*"A")
        await pilot.press("ctrl+s")  # too short, and the email missing: nothing is sent
        await pilot.pause()
        assert not answer.done()
        assert "at least 2 characters" in str(screen.query_one("#error-name").render())
        assert "required" in str(screen.query_one("#error-email").render())
        screen.query_one("#field-name", Input).value = "Ada"
        screen.query_one("#field-email", Input).value = "ada@example.com"
        screen.query_one("#field-age", Input).value = "36"
        screen.query_one("#field-plan", Select).value = "pro"
        screen.query_one("#field-newsletter", Switch).value = True
        screen.query_one("#field-email", Input).focus()
        await pilot.press("enter")
        result = await asyncio.wait_for(answer, 10)
    assert result == ElicitationAnswer(
        "accept", {"name": "Ada", "email": "ada@example.com", "age": 36, "plan": "pro", "newsletter": True}
    )


async def test_declined_and_dismissed(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        _, answer = await open_form(pilot, SIGNUP)
        await pilot.press("ctrl+n")
        assert (await asyncio.wait_for(answer, 10)).action == "decline"
        url = ElicitationRequest(server="accounts", message="Sign in", schema={}, url="https://example.com/in")
        _, answer = await open_form(pilot, url)
        await pilot.press("escape")
        assert (await asyncio.wait_for(answer, 10)).action == "cancel"
        _, answer = await open_form(pilot, url)
        await pilot.press("ctrl+s")
        assert await asyncio.wait_for(answer, 10) == ElicitationAnswer("accept")

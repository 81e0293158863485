"""SPEC 23: when a turn ends or an approval waits while the terminal is not focused, a notification: OSC 9 where
the terminal shows it, else the bell; nothing while the terminal is focused."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_tui.runtime.attention import osc9, supports_osc9
from coder_tui.screens.approval import ApprovalScreen
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until


@pytest.fixture
def bells(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    rung: list[str] = []
    from coder_tui.app import CoderApp

    monkeypatch.setattr(CoderApp, "bell", lambda self: rung.append("bell"))
    return rung


async def test_a_turn_ending_while_unfocused_rings_the_bell(
    workspace: Path, scripted_server: ScriptedServer, bells: list[str]
) -> None:
    scripted_server.add(reply(text("First.")), reply(text("Second.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "while you watch")
        await settle(pilot)
        assert bells == []  # focused: nothing
        app.app_focus = False
        app.link.submit("while you are away")  # not typed: a key would bring the focus back
        await settle(pilot)
        assert bells == ["bell"]


async def test_an_approval_waiting_while_unfocused_rings_the_bell(
    workspace: Path, scripted_server: ScriptedServer, bells: list[str]
) -> None:
    scripted_server.add(reply(tool_call("bash", command="touch x")), reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        app.app_focus = False
        app.link.submit("make x")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
        assert bells == ["bell"]
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)


def test_osc9_where_the_terminal_shows_it() -> None:
    assert supports_osc9({"TERM_PROGRAM": "iTerm.app"}) and supports_osc9({"WT_SESSION": "x"})
    assert not supports_osc9({"TERM_PROGRAM": "Apple_Terminal"})
    assert osc9("done\x07\x1b]evil") == "\x1b]9;done]evil\x07"

"""Vim keys on screen (SPEC 27): ``/vim`` switches them on (saved in the user's config, applied at the next start),
the status line shows the mode, keys edit the prompt as the table in ``test_vim_keys`` says, Enter still sends, Esc
in normal mode still does what Esc does, and ``/vim off`` gives the plain prompt back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, prompt_of, ready, settle, submit, wait_until


async def test_vim_keys_edit_the_prompt_and_the_status_shows_the_mode(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "/vim")
        await wait_until(pilot, lambda: prompt_of(app).vim is not None, "vim keys on")
        status = app.session.status
        assert status.vim_mode == "insert" and "-- INSERT --" in str(status.render())
        await pilot.press(*"one two three", "escape")
        await settle(pilot)
        assert status.vim_mode == "normal" and "-- NORMAL --" in str(status.render())
        await pilot.press("0", "w", "d", "w")  # delete "two "
        assert prompt_of(app).text == "one three"
        await pilot.press("u")
        assert prompt_of(app).text == "one two three"
        await pilot.press("A", *" four")
        assert prompt_of(app).text == "one two three four" and status.vim_mode == "insert"
        await pilot.press("enter")
        await settle(pilot)
        sent = [entry.text for entry in app.session.transcript.entries if isinstance(entry, UserMessage)]
        assert sent[-1] == "one two three four" and status.vim_mode == "insert"
        config = json.loads((Path(os.environ["XDG_CONFIG_HOME"]) / "coder" / "config.json").read_text())
        assert config["vim"] is True

        await submit(pilot, "/vim off")
        await wait_until(pilot, lambda: prompt_of(app).vim is None, "vim keys off")
        await pilot.press("escape", "h")
        assert prompt_of(app).text == "h" and status.vim_mode == ""


async def test_the_configured_setting_starts_the_prompt_in_vim_mode(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server, vim=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: prompt_of(app).vim is not None, "vim keys from the config")
        await pilot.press(*"abc", "escape", "x")
        assert prompt_of(app).text == "ab"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_vim_prompt_in_normal_mode(snap_compare, workspace: Path, scripted_server: ScriptedServer,
                                   size: tuple[int, int]) -> None:
    app = make_app(workspace, scripted_server, vim=True)

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await wait_until(pilot, lambda: prompt_of(app).vim is not None, "vim keys from the config")
        await pilot.press(*"fix the parser and run its tests", "escape", "b", "b")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)

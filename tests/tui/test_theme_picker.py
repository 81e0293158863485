"""Issue 43 item 13: ``/theme`` with no name opens a picker like ``/model``'s: the highlighted theme shows at once,
Enter keeps it (saved in the user's config), Esc puts the theme in force back."""

from __future__ import annotations

import json
import os
from pathlib import Path

from textual.pilot import Pilot

from coder_tui.screens.theme_picker import ThemePickerScreen
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until


async def open_picker(pilot: Pilot[object]) -> None:
    await submit(pilot, "/theme")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ThemePickerScreen), "the theme picker")
    await pilot.pause()


async def test_theme_picker_previews_keeps_on_enter_and_restores_on_escape(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await open_picker(pilot)
        await pilot.press("down")
        await pilot.pause()
        assert app.theme == "textual-light"  # the next one, shown while highlighted
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == "textual-dark" and app.screen is app.session
        await open_picker(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert app.theme == "nord"
        saved = Path(os.environ["XDG_CONFIG_HOME"]) / "coder" / "config.json"
        assert json.loads(saved.read_text())["theme"] == "nord"


def test_theme_picker_snapshot(snap_compare, workspace: Path, scripted_server: ScriptedServer) -> None:
    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await open_picker(pilot)

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=(80, 24), run_before=run_before)

"""Issue 29 item 6: ``/model`` with no name offers a picker of the server's models; Enter switches (and saves),
Esc changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from coder_tui.screens.model_picker import ModelPickerScreen
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until


async def test_model_picker_switches_to_the_chosen_model(workspace: Path) -> None:
    with ScriptedServer(models=("scripted-model", "big-model", "small-model")) as server:
        app = make_app(workspace, server)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await submit(pilot, "/model")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the picker")
            # The list is sorted with the current model highlighted: big-model is just above it.
            await pilot.press("up", "enter")
            await settle(pilot)
            assert app.session.status.model == "big-model"
            saved = json.loads((workspace / ".coder" / "config.json").read_text())
            assert saved["model"] == "big-model"


async def test_esc_closes_the_picker_and_keeps_the_model(workspace: Path) -> None:
    with ScriptedServer(models=("scripted-model", "big-model")) as server:
        app = make_app(workspace, server)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await submit(pilot, "/model")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the picker")
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, ModelPickerScreen)
            assert app.session.status.model == "scripted-model"
            assert not (workspace / ".coder" / "config.json").exists()

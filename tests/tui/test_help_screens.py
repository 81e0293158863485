"""Issue 43 item 11: ``?`` on an empty prompt opens the keys overlay (Esc closes it); ``/help`` opens a screen that
narrows its commands and keys to what is typed, instead of printing them into the transcript."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.screens.help_screen import HelpScreen
from coder_tui.screens.keys_overlay import KeysOverlay
from coder_tui.widgets.help_view import HelpView
from coder_tui.widgets.table_view import TableView
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, prompt_of, ready, settle, submit


def shown_text(view: TableView) -> str:
    return " ".join(view.render().plain.split())


async def test_question_mark_on_an_empty_prompt_lists_the_keys(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysOverlay) and prompt_of(app).text == ""
        keys = shown_text(app.screen.query_one(TableView))
        assert "Ctrl+R search the input history" in keys and "Shift+Tab cycle the mode" in keys
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.session
        # In a sentence, ? is text.
        await pilot.press(*"why", "question_mark")
        assert prompt_of(app).text == "why?" and app.screen is app.session


async def test_help_opens_a_screen_that_narrows_to_what_is_typed(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "/help")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert not app.session.transcript.query(TableView)  # nothing printed into the transcript
        view = app.screen.query_one(HelpView)
        assert "/model" in shown_text(view) and "Ctrl+G" in shown_text(view)
        await pilot.press(*"editor")
        await pilot.pause()
        narrowed = shown_text(view)
        assert "Ctrl+G edit the input in $VISUAL / $EDITOR" in narrowed and "/model" not in narrowed
        await pilot.press(*" zzz")
        await pilot.pause()
        assert app.screen.query_one("#none").display
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.session


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_keys_overlay_snapshot(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_help_screen_snapshot(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    """The help screen narrowed to the rows about the model."""
    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "/help")
        await settle(pilot)
        await pilot.press(*"model")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)

"""Scrolling the transcript from the keyboard (issue 13 item 1): PageUp/PageDown (Shift too) from the prompt,
Ctrl+Home/Ctrl+End, and Home/End when the input is empty; the footer and ``/help`` list them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.app import CoderApp
from coder_tui.widgets.help_view import HelpView
from coder_tui.widgets.transcript import Transcript
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, prompt_of, ready, settle, submit

LONG_ANSWER = "\n\n".join(f"Paragraph {index} of a long answer." for index in range(60))


async def long_transcript(pilot: Pilot[object], server: ScriptedServer) -> Transcript:
    """A transcript several screens tall, scrolled to its end (where it follows new output)."""
    server.add(reply(text(LONG_ANSWER)))
    app = await ready(pilot)
    await submit(pilot, "write a lot")
    await settle(pilot)
    transcript = app.session.transcript
    assert transcript.max_scroll_y > 2 * transcript.size.height
    assert transcript.scroll_y == transcript.max_scroll_y
    return transcript


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize(("up", "down"), [("pageup", "pagedown"), ("shift+pageup", "shift+pagedown")])
async def test_page_keys_scroll_the_transcript_from_the_prompt(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int], up: str, down: str
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        transcript = await long_transcript(pilot, scripted_server)
        assert app.focused is prompt_of(app)
        bottom = transcript.scroll_y
        await pilot.press(up)
        await pilot.pause()
        after_one = transcript.scroll_y
        assert 0 < bottom - after_one <= transcript.scrollable_content_region.height
        await pilot.press(up)
        await pilot.pause()
        assert transcript.scroll_y < after_one
        await pilot.press(down)
        await pilot.pause()
        assert transcript.scroll_y == after_one
        assert app.focused is prompt_of(app)


async def test_ctrl_home_and_ctrl_end_jump_to_the_ends(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = await long_transcript(pilot, scripted_server)
        prompt_of(app).set_text("half-written request")
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert transcript.scroll_y == 0
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
        assert prompt_of(app).text == "half-written request"


async def test_home_and_end_scroll_only_when_the_input_is_empty(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = await long_transcript(pilot, scripted_server)
        prompt = prompt_of(app)
        prompt.set_text("fix it")
        await pilot.press("home")
        await pilot.pause()
        assert prompt.cursor_location == (0, 0)  # the line's start, as in any editor
        assert transcript.scroll_y == transcript.max_scroll_y
        await pilot.press("end")
        assert prompt.cursor_location == (0, len("fix it"))
        prompt.clear()
        await pilot.press("home")
        await pilot.pause()
        assert transcript.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_a_transcript_scrolled_up_stays_put_and_follows_again_at_the_bottom(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = await long_transcript(pilot, scripted_server)

        async def more_output() -> None:
            for index in range(10):
                transcript.add_notice(f"output {index} arrives")
            await pilot.pause()
            await pilot.pause()

        await pilot.press("pageup")
        await pilot.pause()
        reading, length = transcript.scroll_y, transcript.max_scroll_y
        await more_output()
        assert transcript.max_scroll_y > length
        assert transcript.scroll_y == reading  # output goes on below; the reader is not pulled down
        await pilot.press("ctrl+end")
        await pilot.pause()
        await more_output()
        assert transcript.scroll_y == transcript.max_scroll_y  # and follows it again


async def test_the_footer_and_help_list_the_scroll_keys(workspace: Path, scripted_server: ScriptedServer) -> None:
    app: CoderApp = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        shown = {active.binding.key for active in app.session.active_bindings.values() if active.binding.show}
        assert {"pageup", "pagedown"} <= shown
        await submit(pilot, "/help")
        await settle(pilot)
        help_text = app.screen.query_one(HelpView).render().plain
        for keys in ("PgUp / Shift+PgUp", "PgDn / Shift+PgDn", "Ctrl+Home / Home", "Ctrl+End / End"):
            assert keys in help_text

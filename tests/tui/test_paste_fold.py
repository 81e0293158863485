"""Issue 43 item 10: a large paste is folded. The prompt shows ``[pasted 300 lines]`` (one token: Backspace at it
removes the paste), the transcript a folded block that Ctrl+O opens, and the model gets every line."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot

from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, prompt_of, ready, settle

PASTE = "\n".join(f"log line {number}: all well" for number in range(1, 301))


def shown(widget: UserMessage) -> str:
    return "\n".join(strip.text.rstrip() for strip in widget.render_lines(widget.content_region.reset_offset))


def last_user_words(server: ScriptedServer) -> str:
    messages = server.requests[-1].body["messages"]
    return [message for message in messages if message["role"] == "user"][-1]["content"]


async def test_a_large_paste_is_one_token_and_the_model_gets_all_of_it(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("Read them.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await pilot.press(*"why these? ")
        app.post_message(events.Paste(PASTE + "\n"))  # as a terminal pastes copied lines
        await pilot.pause()
        assert prompt_of(app).text == "why these? [pasted 300 lines]"
        await pilot.press("enter")
        await settle(pilot)
        assert PASTE in str(last_user_words(scripted_server))
        message = app.session.query_one(UserMessage)
        folded = shown(message)
        assert "log line 150" not in folded and "+295 lines (ctrl+o to expand)" in folded
        assert folded.rstrip().endswith("log line 300: all well")  # no empty line for the last line break
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "log line 150: all well" in message.visual.plain and not message.folded  # type: ignore[union-attr]


async def test_backspace_at_the_token_removes_the_paste(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        app.post_message(events.Paste(PASTE))
        await pilot.pause()
        await pilot.press(*" ok", "left", "left", "left", "backspace")
        assert prompt_of(app).text == " ok"
        await pilot.press("enter")
        await settle(pilot)
        assert last_user_words(scripted_server).strip() == "ok"


async def test_a_short_paste_and_a_typed_token_stay_text(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        ten = "\n".join(f"line {number}" for number in range(10))
        app.post_message(events.Paste(ten))
        await pilot.pause()
        await pilot.press(*" [pasted 3 lines]")
        assert prompt_of(app).text == ten + " [pasted 3 lines]"
        await pilot.press("backspace")
        assert prompt_of(app).text == ten + " [pasted 3 lines"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_paste_fold_snapshot(snap_compare, workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]) -> None:
    """The folded paste in the transcript, and a second one waiting in the prompt as its token."""
    scripted_server.add(reply(text("All 300 lines say the service is well.")))

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await pilot.press(*"what do these say? ")
        app.post_message(events.Paste(PASTE))
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        app.post_message(events.Paste(PASTE.replace("well", "down")))
        await pilot.press(*" and these?")

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)

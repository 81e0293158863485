"""Issue 43 item 6: selected text stays legible when the terminal shows 256 or 16 colours (tmux without
``COLORTERM``, macOS Terminal.app). What is checked is what the terminal is sent: the selected cells' text and
background colours are different palette entries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from coder_tui.app import CoderApp
from coder_tui.widgets.markdown_lines import MarkdownLines
from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app
from tests.tui.test_selection import ANSWER, drag, session_with_every_entry

SGR = re.compile(r"\x1b\[([0-9;]*)m([^\x1b]*)")


def colours(parameters: str) -> tuple[str | None, str | None]:
    """The text and background colours an SGR sequence sets, as the terminal reads them."""
    codes = [int(code) for code in parameters.split(";") if code]
    foreground = background = None
    index = 0
    while index < len(codes):
        code = codes[index]
        if code in (38, 48):
            width = 2 if codes[index + 1] == 5 else 4
            value = ";".join(map(str, codes[index + 1 : index + 1 + width]))
            foreground, background = (value, background) if code == 38 else (foreground, value)
            index += width
        elif 30 <= code <= 37 or 90 <= code <= 97:
            foreground = f"5;{code - 30 if code < 90 else code - 82}"
        elif 40 <= code <= 47 or 100 <= code <= 107:
            background = f"5;{code - 40 if code < 100 else code - 92}"
        index += 1
    return foreground, background


def drawn_colours_of(app: CoderApp, words: str) -> tuple[str | None, str | None]:
    """The colours the terminal is told to draw ``words`` in (a run of text in one style, as selected)."""
    update = app.screen._compositor.render_update(full=True)
    for segment in (segment for line in update.strips for strip in line for segment in strip):
        if segment.text == words and segment.style is not None:
            # Rich keeps a style's escape codes for the first colour count it was written in; the styles are shared
            # by the tests of this process, each with its own count.
            segment.style._ansi = None
            sent = app.console._render_buffer([segment])
            return colours(SGR.findall(sent)[0][0])
    raise AssertionError(f"{words!r} is not in what the terminal was sent")


@pytest.mark.parametrize("colour_system", ["256", "standard", "truecolor"])
async def test_selected_text_differs_from_its_background(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, colour_system: str
) -> None:
    monkeypatch.setattr("textual.constants.COLOR_SYSTEM", colour_system)
    scripted_server.add(reply(text(ANSWER)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 40)) as pilot:
        app = await session_with_every_entry(pilot, workspace)
        assert app.console.color_system == colour_system
        answer = app.session.query(MarkdownLines).filter(".finished").first()
        user: Widget = app.session.query_one(UserMessage)
        for widget, span, words in ((answer, ((4, 0), (11, 0)), "greeting"), (user, ((0, 0), (11, 0)), "where is the")):
            assert await drag(pilot, widget, *span) == words
            foreground, background = drawn_colours_of(app, words)
            assert background is not None and foreground != background, (colour_system, words, foreground, background)


def test_selection_snapshot_in_256_colours(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The selection as a 256-colour terminal gets it: its text in the colour contrasting its background."""
    monkeypatch.setattr("textual.constants.COLOR_SYSTEM", "256")
    scripted_server.add(reply(text(ANSWER)))

    async def run_before(pilot: Pilot[object]) -> None:
        app = await session_with_every_entry(pilot, workspace)
        await drag(pilot, app.session.query(MarkdownLines).filter(".finished").first(), (19, 0), (6, 2))

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=(80, 24), run_before=run_before)

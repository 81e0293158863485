"""SPEC 15: text in the transcript is selected with the mouse, as in a terminal, and exactly what was selected is
copied (issue 29 item 1: a drag over an answer copied the widget's CSS name, and showed no highlight)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widget import Widget

from coder_tui.app import CoderApp
from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.diff_view import DiffView
from coder_tui.widgets.markdown_lines import MarkdownLines
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit

ANSWER = "The greeting lives in `src/app.py`.\n\n- first point here\n- second point there\n"


async def drag(pilot: Pilot[object], widget: Widget, start: tuple[int, int], end: tuple[int, int]) -> str | None:
    """Presses the button over ``start`` (in ``widget``'s content), moves to ``end`` and lets go; what is selected."""
    app = pilot.app
    assert isinstance(app, CoderApp)
    app.session.transcript.scroll_to_widget(widget, animate=False, immediate=True)
    await pilot.pause()
    left, top = widget.content_region.offset - app.screen.region.offset
    await pilot.mouse_down(None, (left + start[0], top + start[1]))
    await pilot.hover(None, (left + end[0], top + end[1]))
    await pilot.mouse_up(None, (left + end[0], top + end[1]))
    await pilot.pause()
    return app.screen.get_selected_text()


async def session_with_every_entry(pilot: Pilot[object], workspace: Path) -> CoderApp:
    app = await ready(pilot)
    await submit(pilot, "where is the greeting?")
    await settle(pilot)
    await submit(pilot, "!printf 'alpha\\nbeta\\n'")
    await settle(pilot)
    return app


async def test_a_drag_over_an_answer_selects_its_words(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text(ANSWER)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 40)) as pilot:
        app = await session_with_every_entry(pilot, workspace)
        answer = app.session.query(MarkdownLines).filter(".finished").first()
        shown = [strip.text.rstrip() for strip in (answer.render_line(y) for y in range(4))]
        assert shown == ["The greeting lives in src/app.py.", "", "• first point here", "• second point there"]
        assert await drag(pilot, answer, (4, 0), (11, 0)) == "greeting"
        # Over three lines: the end of the first, the blank line between blocks, and the start of the list.
        selected = await drag(pilot, answer, (19, 0), (6, 2))
        assert selected == "in src/app.py.\n\n• first", selected
        # The highlight is drawn where the selection is.
        app.screen.clear_selection()
        await pilot.pause()
        unselected = {segment.style.bgcolor for segment in answer.render_line(0) if segment.style}
        await drag(pilot, answer, (19, 0), (6, 2))
        line = answer.render_line(0)
        assert "".join(s.text for s in line if s.style and s.style.bgcolor not in unselected).rstrip() == "in src/app.py."


async def test_ctrl_c_copies_the_selection_not_the_widget_name(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text(ANSWER)))
    app = make_app(workspace, scripted_server)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=(100, 40)) as pilot:
        app = await session_with_every_entry(pilot, workspace)
        answer = app.session.query(MarkdownLines).filter(".finished").first()
        await drag(pilot, answer, (0, 2), (13, 3))
        await pilot.press("ctrl+c")
        assert copied == ["• first point here\n• second point"]
        assert not app.link.busy and app.screen.get_selected_text() is None


async def test_a_drag_selects_in_every_kind_of_entry(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("edit", path="src/util.py", old_string="return a + b", new_string="return b + a")),
        reply(tool_call("bash", command="printf 'one\\ntwo\\nthree\\n'")),
        reply(text("Done.")),
    )
    app = make_app(workspace, scripted_server, start_mode="yolo")
    async with app.run_test(size=(100, 50)) as pilot:
        app = await session_with_every_entry(pilot, workspace)
        user = app.session.query_one(UserMessage)
        assert await drag(pilot, user, (0, 0), (60, 0)) == str(user.visual)
        calls = list(app.session.query(ToolCallView))
        diff = calls[0].query_one(DiffView)
        assert "return b + a" in (await drag(pilot, diff, (0, 0), (40, 20)) or "")
        output = calls[1].query_one(".output")
        assert "one\ntwo\nthree" in (await drag(pilot, output, (0, 0), (60, 9)) or "")
        summary = calls[1].query_one(".summary")
        assert "printf" in (await drag(pilot, summary, (0, 0), (60, 0)) or "")
        bang = app.session.query(CommandOutput).last()
        selected = await drag(pilot, bang.query_one(".text"), (0, 0), (60, 10)) or ""
        assert "alpha\nbeta" in selected

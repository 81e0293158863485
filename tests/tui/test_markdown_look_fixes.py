"""Issue 29 item 12: level-2 headings do not look like links (no underline), and a ```diff fence is coloured as
the diffs of edits are."""

from __future__ import annotations

from pathlib import Path

from coder_tui.widgets.markdown_lines import MarkdownLines
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit

ANSWER = "## Plan\n\nA [link](https://example.com).\n\n```diff\n-old line\n+new line\n```\n"


async def test_headings_are_not_underlined_and_diff_fences_are_coloured(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text(ANSWER)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "plan")
        await settle(pilot)
        answer = app.session.query(MarkdownLines).filter(".finished").first()
        strips = [answer.render_line(y) for y in range(answer.size.height)]

        def segments(word: str):  # type: ignore[no-untyped-def]
            return [s for strip in strips for s in strip if word in s.text]

        heading, link = segments("Plan")[0], segments("link")[0]
        assert heading.style.bold and not heading.style.underline
        assert link.style.underline
        removed, added = segments("-old line")[0], segments("+new line")[0]
        assert removed.style.bgcolor is not None and added.style.bgcolor is not None
        assert removed.style.bgcolor != added.style.bgcolor and removed.style.color != added.style.color


async def test_a_theme_switch_redraws_earlier_answers(workspace: Path, scripted_server: ScriptedServer) -> None:
    """Issue 29 item 12: after /theme textual-light, answers shown before were left as dark strips."""
    scripted_server.add(reply(text("Here:\n\n```python\nx = 1\n```\n")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await settle(pilot)
        answer = app.session.query(MarkdownLines).filter(".finished").first()

        def background() -> object:
            return next(s for s in answer.render_line(0) if "Here" in s.text).style.bgcolor

        dark = background()
        await submit(pilot, "/theme textual-light")
        await settle(pilot)
        assert background() != dark

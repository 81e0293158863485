"""Issue 29 item 12: ``/compact`` shows its summary rendered as Markdown, once, under the one line that says what
happened (not raw Markdown under two lines saying the same)."""

from __future__ import annotations

from pathlib import Path

from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.markdown_lines import MarkdownLines
from coder_tui.widgets.notice_line import NoticeLine
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit

FILLER = " ".join(f"word{n}" for n in range(300))


async def test_compact_shows_the_summary_as_markdown(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(text(f"First answer. {FILLER}")),
        reply(text(f"Second answer. {FILLER}")),
        reply(text("## Summary\n\n- the user asked **twice**")),
    )
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        for request in ("first", "second", "/compact"):
            await submit(pilot, request)
            await settle(pilot)
        output = app.session.query(CommandOutput).last()
        summary = output.query_one(MarkdownLines)
        shown = [summary.render_line(y).text.rstrip() for y in range(summary.size.height)]
        assert "Summary" in shown[0] and "## " not in "".join(shown) and "**" not in "".join(shown)
        assert any("• the user asked twice" in line for line in shown)
        said = [n.text for n in app.session.query(NoticeLine) if "compacted" in n.text]
        assert len(said) == 1 and "compacted" not in str(output.query_one(".text").visual)

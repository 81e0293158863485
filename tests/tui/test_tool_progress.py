"""A running call's progress (an MCP server's progress notifications, SPEC 22) on its row in the transcript."""

from __future__ import annotations

from textual.app import App, ComposeResult

from coder_tui.widgets.tool_call_view import ToolCallView
from engine.events import ToolProgress, ToolStatus


class OneCall(App[None]):
    def compose(self) -> ComposeResult:
        yield ToolCallView("c1", "mcp__build__compile", "all")


async def test_progress_shows_on_the_row_while_the_call_runs() -> None:
    app = OneCall()
    async with app.run_test(size=(100, 10)) as pilot:
        view = app.query_one(ToolCallView)
        view.set_status(ToolStatus.EXECUTING)
        view.set_progress(ToolProgress("c1", "mcp__build__compile", 2, 3, "linking"))
        await pilot.pause()
        assert "2/3 (67%) linking" in str(view._summary.visual)
        view.set_progress(ToolProgress("c1", "mcp__build__compile", 7, None, None))
        await pilot.pause()
        assert "7" in str(view._summary.visual) and "linking" not in str(view._summary.visual)
        view.show_result(ToolStatus.SUCCESS, {"ok": True, "content": "built"}, duration_ms=12)
        await pilot.pause()
        assert "linking" not in str(view._summary.visual) and " 7" not in str(view._summary.visual)

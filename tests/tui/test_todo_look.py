"""Issue 29 item 9: ``todowrite`` shows its checklist once (not its JSON first), and ``/todos`` uses the pane's
marks (☑ ◐ ☐), not ``[x] [~] [ ]``."""

from __future__ import annotations

from pathlib import Path

from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.tool_call_view import ToolCallView
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit

TODOS = [
    {"id": "1", "content": "read the code", "status": "completed"},
    {"id": "2", "content": "fix the bug", "status": "in_progress"},
    {"id": "3", "content": "run the tests", "status": "pending"},
]


async def test_todowrite_shows_a_checklist_not_json(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("todowrite", todos=TODOS)), reply(text("Planned.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "plan it")
        await settle(pilot)
        view = app.session.query_one(ToolCallView)
        assert "{" not in view.output_text and "'status'" not in view.output_text
        assert view.output_text == "1 of 3 done, 1 in progress"
        await submit(pilot, "/todos")
        await settle(pilot)
        shown = str(app.session.query(CommandOutput).last().query_one(".text").visual)
        assert shown.splitlines() == ["☑ read the code", "◐ fix the bug", "☐ run the tests", "1 of 3 done, 1 in progress"]
        assert "[x]" not in shown and "[~]" not in shown

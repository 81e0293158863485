"""Issue 29 item 12: ``/status`` is a table whose long values wrap under their own column."""

from __future__ import annotations

from pathlib import Path

from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.table_view import TableView
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit


async def test_status_values_wrap_under_their_column(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(60, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "/status")
        await settle(pilot)
        table = app.session.query(CommandOutput).last().query_one(TableView)
        lines = table.render().plain.splitlines()
        value_column = lines[0].index("scripted-model")
        assert any(line.strip().startswith("sandbox") for line in lines)
        # Every line that continues a value starts at the value column.
        continued = [line for line in lines if line[:value_column].strip() == "" and line.strip()]
        assert continued and all(len(line) - len(line.lstrip()) == value_column for line in continued)

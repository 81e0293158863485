"""SPEC 15: a running command's output shows live in its block (its last lines); on Esc what it printed stays;
long output is folded to its first and last lines with "+N lines", Ctrl+O unfolds it, and one call is one output
widget however much it printed (issue 29 items 3 and 4)."""

from __future__ import annotations

from pathlib import Path

from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.tool_output import FOLD_AT, HEAD, LIVE_LINES, TAIL, ToolOutput
from engine.events import ToolStatus
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until

WAIT_FOR_GO = "while [ ! -e go ]; do sleep 0.05; done"


def shown(output: ToolOutput) -> list[str]:
    return str(output.visual).split("\n")


async def test_the_last_lines_show_while_the_command_runs(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command=f"seq 1 30; {WAIT_FOR_GO}; echo finished")), text("ok"))
    app = make_app(workspace, scripted_server, start_mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "count")
        await wait_until(pilot, lambda: bool(app.session.query(ToolCallView))
                         and "30" in app.session.query_one(ToolCallView).output.visual.plain, "the live output")
        view = app.session.query_one(ToolCallView)
        assert view.status is ToolStatus.EXECUTING
        lines = shown(view.output)
        assert lines[0] == f"… {30 - LIVE_LINES} earlier lines"
        assert lines[1:] == [str(n) for n in range(31 - LIVE_LINES, 31)]
        (workspace / "go").touch()
        await settle(pilot)
        assert "finished" in view.output_text and view.status is ToolStatus.SUCCESS


async def test_esc_keeps_what_the_command_printed(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command=f"echo before-esc; {WAIT_FOR_GO}")))
    app = make_app(workspace, scripted_server, start_mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "run")
        await wait_until(pilot, lambda: bool(app.session.query(ToolCallView))
                         and "before-esc" in app.session.query_one(ToolCallView).output.visual.plain, "the output")
        await pilot.press("escape")
        await settle(pilot)
        view = app.session.query_one(ToolCallView)
        assert view.status is ToolStatus.CANCELLED
        assert "interrupted" in view.output_text and "stdout:\nbefore-esc" in view.output_text


async def test_long_output_is_folded_and_ctrl_o_unfolds_it(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="seq 1 10000")), text("Counted."))
    app = make_app(workspace, scripted_server, start_mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        widgets_before = len(app.screen.query("*"))
        await submit(pilot, "count")
        await settle(pilot)
        output = app.session.query_one(ToolCallView).output
        lines = shown(output)
        assert len(lines) == HEAD + 1 + TAIL
        whole = output.text.split("\n")
        assert lines[:HEAD] == whole[:HEAD] and lines[-TAIL:] == whole[-TAIL:] and lines[-1] == "10000"
        assert lines[HEAD] == f"… +{len(whole) - HEAD - TAIL} lines (ctrl+o to expand)"
        # One call, a handful of widgets: the entry, its parts, the answer; never a widget a line.
        assert len(app.screen.query("*")) - widgets_before < 30
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert shown(output)[:-1] == whole
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert len(shown(output)) == HEAD + 1 + TAIL


async def test_short_output_is_shown_whole(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command=f"seq 1 {FOLD_AT - 5}")), text("Counted."))
    app = make_app(workspace, scripted_server, start_mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "count")
        await settle(pilot)
        output = app.session.query_one(ToolCallView).output
        assert not output.is_long and shown(output) == output.text.split("\n")

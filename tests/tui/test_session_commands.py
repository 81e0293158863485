"""The session's own commands and sub-agents in the TUI, against the engine and the scripted server: ``/undo``
conflicts asked in the question dialog, ``/diff`` read from its summary down, the ``/resume`` picker's rows, and a
sub-agent's calls nested under its ``task`` call (issues 5 and 8)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from coder_tui.screens.question import QuestionScreen
from coder_tui.screens.session_picker import SessionPickerScreen
from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.tool_call_view import ToolCallView
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until, write_sessions


async def test_undo_of_files_changed_outside_asks_in_the_question_dialog(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("write", path="notes.md", content="hello\n")), reply(text("Written.")))
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "write the notes")
        await settle(pilot)
        (workspace / "notes.md").write_text("changed by hand\n")
        await submit(pilot, "/undo")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question dialog")
        question = app.screen
        assert isinstance(question, QuestionScreen) and "notes.md" in question.request.question
        assert question.request.options[0].startswith("Undo anyway")
        await pilot.pause()
        await pilot.press("enter")  # the first option: undo anyway
        await settle(pilot)
        assert not (workspace / "notes.md").exists()  # the turn created it: undone means gone
        last = app.session.transcript.entries[-1]
        assert isinstance(last, CommandOutput) and last.result.command == "/undo" and last.result.ok


async def test_diff_shows_the_summary_then_the_whole_diff_from_its_top(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    module = "".join(f"def step_{index}(value):\n    return value + {index}\n\n" for index in range(40))
    scripted_server.add(reply(tool_call("write", path="src/steps.py", content=module)), reply(text("Done.")))
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "add the steps module")
        await settle(pilot)
        await submit(pilot, "/diff")
        await settle(pilot)
        await pilot.pause()
        output = app.session.transcript.entries[-1]
        assert isinstance(output, CommandOutput) and "+def step_39(value):" in output.diff
        summary = str(output.query_one(".text").visual)
        assert "src/steps.py  +120 -0  added" in summary
        # The whole diff is there to scroll through; the view starts at its summary, not its last lines.
        transcript = app.session.transcript
        assert transcript.max_scroll_y > 0 and transcript.region.y <= output.region.y <= transcript.region.y + 1


async def test_resume_picker_rows_show_title_friendly_time_and_message_count(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    write_sessions(workspace, [("Fix the pager", "2026-11-21T09:31:00+00:00", 12),
                               ("Tidy the readme", "2026-11-20T18:02:00+00:00", 1)])
    now = datetime(2026, 11, 21, 11, 0, tzinfo=timezone.utc)
    app = make_app(workspace, scripted_server, clock=lambda: now)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "/resume")
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        options = app.screen.query_one("#sessions").options  # type: ignore[attr-defined]
        rows = [str(option.prompt) for option in options]
        assert rows == [
            "Fix the pager\ntoday 09:31 · 12 messages · session00000",
            "Tidy the readme\nyesterday 18:02 · 1 message · session00001",
        ]


async def test_subagent_calls_show_under_the_task_call_in_the_transcript_and_the_log(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    (workspace / "notes.txt").write_text("the id is 42\n")
    scripted_server.add(
        reply(tool_call("task", id="call_t", description="Find the id", prompt="Read notes.txt; what is the id?")),
        reply(tool_call("read", id="sub_1", path="notes.txt")),
        reply(tool_call("bash", id="sub_2", command="touch x.txt")),
        reply(text("The id is 42 (notes.txt:1).")),
        reply(text("The id is 42.")),
    )
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "what is the id?")
        await settle(pilot)
        view = app.session.transcript.tool_call("call_t")
        row = app.session.tool_log.row("call_t")
        assert isinstance(view, ToolCallView) and row is not None
        for nested in (view.nested_text, row.nested_text):
            lines = nested.splitlines()
            assert len(lines) == 2
            assert lines[0].startswith("↳ ✓ read  notes.txt  success")
            assert lines[1].startswith("↳ ⊘ bash  touch x.txt  denied")
        # The sub-agent's calls are not rows of their own.
        assert app.session.tool_log.row("sub_1") is None and app.session.transcript.tool_call("sub_1") is None
        assert "The id is 42 (notes.txt:1)." in view.output_text

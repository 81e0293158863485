"""After ``/new``, ``/resume`` and ``--continue`` the panes and the context meter show the session in view (issue 13
item 4), and a resumed session keeps the model named by ``--model`` (item 5)."""

from __future__ import annotations

from pathlib import Path

from coder_tui.app import CoderApp
from coder_tui.widgets.stored_call_lines import StoredCallLines
from coder_tui.widgets.tool_log_row import ToolLogRow
from engine.events import ToolStatus
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until

TODOS = [{"id": "1", "content": "Fix the pager", "status": "in_progress"}]


def log_rows(app: CoderApp) -> list[tuple[str, ToolStatus]]:
    """The calls the tool-event log shows: a resumed session's lines, then the rows."""
    log = app.session.tool_log
    stored = [(call.tool, call.status) for lines in log.query(StoredCallLines) for call in lines.calls]
    return stored + [(row.tool, row.status) for row in log.query(ToolLogRow)]


async def first_session(pilot, app: CoderApp, server: ScriptedServer) -> str:  # type: ignore[no-untyped-def]
    """Two exchanges with a read and a todo list; returns the session's id."""
    server.add(
        reply(tool_call("read", path="src/util.py"), tool_call("todowrite", todos=TODOS), usage=(3000, 20)),
        reply(text("read it"), usage=(3100, 10)),
    )
    await ready(pilot)
    await submit(pilot, "look at util")
    await settle(pilot)
    assert log_rows(app) == [("read", ToolStatus.SUCCESS), ("todowrite", ToolStatus.SUCCESS)]
    assert app.session.status.context_used > 0
    assert app.link.state is not None
    return app.link.state.session_id


async def test_new_clears_the_tool_log_the_todos_and_the_context_meter(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await first_session(pilot, app, scripted_server)
        assert app.session.todo_pane.todos
        await submit(pilot, "/new")
        await settle(pilot)
        assert log_rows(app) == []
        assert not app.session.todo_pane.todos
        assert app.session.status.context_used == 0


async def test_resume_shows_the_resumed_sessions_calls_and_context(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        session_id = await first_session(pilot, app, scripted_server)
        await submit(pilot, "/new")
        await settle(pilot)
        await submit(pilot, f"/resume {session_id}")
        await settle(pilot)
        assert log_rows(app) == [("read", ToolStatus.SUCCESS), ("todowrite", ToolStatus.SUCCESS)]
        assert [todo.content for todo in app.session.todo_pane.todos] == ["Fix the pager"]
        assert app.session.status.context_used > 1000  # system prompt, tools and the 4 messages


async def test_resume_shows_its_result_below_the_resumed_conversation(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    """The resumed conversation is mounted in one go (held); the command's result, arriving with it in one read of
    the engine's pipe, still comes after it."""
    from coder_tui.widgets.command_output import CommandOutput
    from coder_tui.widgets.user_message import UserMessage
    from engine.command_results import SessionResumed
    from engine.events import HistoryRestored
    from engine.restored import RestoredEntry

    history = HistoryRestored.of("s1", [
        RestoredEntry("message", {"role": "user", "content": "look at util"}),
        RestoredEntry("message", {"role": "assistant", "content": "read it"}),
    ])
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.session.show_event(history)
        app.session.show_event(SessionResumed("/resume", "resumed session s1", "s1"))
        await settle(pilot)
        shown = list(app.session.transcript.walk_children(with_self=False))  # in the order they are drawn
        (result,) = [w for w in shown if isinstance(w, CommandOutput)]
        (request,) = [w for w in shown if isinstance(w, UserMessage)]
        assert shown.index(request) < shown.index(result)


async def test_continue_shows_the_context_of_the_session_it_resumes(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await first_session(pilot, app, scripted_server)
    continued = make_app(workspace, scripted_server, first_inputs=("/resume --last",))
    async with continued.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await settle(pilot)
        await wait_until(pilot, lambda: continued.session.status.context_used > 0, "the context of the session")
        assert continued.session.status.context_used > 1000
        assert log_rows(continued) == [("read", ToolStatus.SUCCESS), ("todowrite", ToolStatus.SUCCESS)]


async def test_resume_keeps_the_model_given_by_flag(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        session_id = await first_session(pilot, app, scripted_server)
    scripted_server.add(reply(text("hello again")))
    flagged = make_app(workspace, scripted_server, model="fake-model")
    async with flagged.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, f"/resume {session_id}")
        await settle(pilot)
        assert flagged.session.status.model == "fake-model"
        await submit(pilot, "go on")
        await settle(pilot)
        assert scripted_server.requests[-1].body["model"] == "fake-model"


async def test_a_session_started_with_a_shell_command_is_titled_with_it(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    from coder_tui.screens.session_picker import SessionPickerScreen

    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "!echo hi")
        await settle(pilot)
        await submit(pilot, "/resume")
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        assert [session["title"] for session in picker.sessions] == ["$ echo hi"]

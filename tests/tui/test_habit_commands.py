"""SPEC 23 commands in the TUI: /rewind's picker (also from Esc twice on an empty prompt) and the request back in
the prompt, /copy to the clipboard, /clear, /theme applied, /quit and /exit, /status, /fork, /export, /init."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_tui.screens.rewind_picker import RewindPickerScreen
from coder_tui.widgets.command_output import CommandOutput
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, prompt_of, ready, settle, submit, wait_until


def last_output(app) -> CommandOutput:
    entry = app.session.transcript.entries[-1]
    assert isinstance(entry, CommandOutput)
    return entry


async def _two_edits(pilot, app, workspace: Path) -> None:
    await submit(pilot, "create the notes")
    await settle(pilot)
    await submit(pilot, "rewrite the app")
    await settle(pilot)
    assert (workspace / "notes.md").exists() and "Bye" in (workspace / "src" / "app.py").read_text()


def _script_two_edits(server: ScriptedServer) -> None:
    server.add(
        reply(tool_call("write", path="notes.md", content="notes\n")),
        reply(text("Created.")),
        reply(tool_call("read", path="src/app.py")),
        reply(tool_call("write", path="src/app.py", content="print('Bye')\n")),
        reply(text("Rewritten.")),
    )


async def test_rewind_picker_restores_files_and_puts_the_request_back(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    original = (workspace / "src" / "app.py").read_bytes()
    _script_two_edits(scripted_server)
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test() as pilot:
        await ready(pilot)
        await _two_edits(pilot, app, workspace)
        await submit(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindPickerScreen), "the rewind picker")
        await pilot.pause()
        await pilot.press("down", "enter")  # newest first: the second row is the first request
        await pilot.pause()
        await pilot.press("enter")  # the first choice: code and conversation
        await settle(pilot)
        assert not isinstance(app.screen, RewindPickerScreen)
        assert not (workspace / "notes.md").exists()
        assert (workspace / "src" / "app.py").read_bytes() == original
        assert prompt_of(app).text == "create the notes"
        assert last_output(app).result.command == "/rewind" and "deleted notes.md" in last_output(app).result.text


async def test_escape_twice_on_an_empty_prompt_opens_the_rewind_picker_and_escape_closes_it(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    _script_two_edits(scripted_server)
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test() as pilot:
        await ready(pilot)
        await _two_edits(pilot, app, workspace)
        entries_before = list(app.session.transcript.entries)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindPickerScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindPickerScreen), "the rewind picker")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindPickerScreen)
        assert (workspace / "notes.md").exists()  # nothing changed
        # Issue 29 item 7: closing the picker leaves no /rewind entry nor the list of requests behind.
        assert list(app.session.transcript.entries) == entries_before
        assert not any(
            isinstance(entry, CommandOutput) and entry.result.command == "/rewind"
            for entry in app.session.transcript.entries
        )


@pytest.mark.parametrize(("choice", "files_back", "conversation_back"), [
    ("code", True, False),
    ("conversation", False, True),
])
async def test_rewind_picker_restores_code_only_or_conversation_only(
    workspace: Path, scripted_server: ScriptedServer, choice: str, files_back: bool, conversation_back: bool
) -> None:
    original = (workspace / "src" / "app.py").read_bytes()
    _script_two_edits(scripted_server)
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test() as pilot:
        await ready(pilot)
        await _two_edits(pilot, app, workspace)
        await submit(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindPickerScreen), "the rewind picker")
        await pilot.pause()
        await pilot.press("enter")  # the newest request: "rewrite the app"
        await pilot.pause()
        await pilot.press(*(["down"] if choice == "code" else ["down", "down"]), "enter")
        await settle(pilot)
        assert not isinstance(app.screen, RewindPickerScreen)
        assert ((workspace / "src" / "app.py").read_bytes() == original) is files_back
        assert (workspace / "notes.md").exists()  # the earlier request's file stays
        result = last_output(app).result
        assert result.command == "/rewind" and result.ok
        assert (prompt_of(app).text == "rewrite the app") is conversation_back


async def test_copy_puts_the_last_answer_on_the_clipboard(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("The answer is 42.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "what is it?")
        await settle(pilot)
        await submit(pilot, "/copy")
        await settle(pilot)
        assert app.clipboard == "The answer is 42."
        assert "copied the last answer" in last_output(app).result.text


async def test_clear_empties_the_transcript(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hello.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await settle(pilot)
        await submit(pilot, "/clear")
        await settle(pilot)
        entries = app.session.transcript.entries
        assert len(entries) == 1 and entries[0].result.command == "/clear"


async def test_theme_switches_the_app_theme(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "/theme nord")
        await settle(pilot)
        assert app.theme == "nord"
        await submit(pilot, "/theme nope")
        await settle(pilot)
        assert app.theme == "nord" and not last_output(app).result.ok


@pytest.mark.parametrize("command", ["/quit", "/exit"])
async def test_quit_and_exit_leave_the_app(workspace: Path, scripted_server: ScriptedServer, command: str) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, command)
        await wait_until(pilot, lambda: app._exit, "the app to exit")
    assert app.return_code == 0


async def test_status_fork_and_export_show_their_results(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hello.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "/status")
        await settle(pilot)
        assert "scripted-model" in last_output(app).result.text
        await submit(pilot, "hi")
        await settle(pilot)
        await submit(pilot, "/fork")
        await settle(pilot)
        assert last_output(app).result.ok and "forked into session" in last_output(app).result.text
        await submit(pilot, "/export")
        await settle(pilot)
        assert (workspace / "hi.md").read_text().startswith("# hi")


async def test_init_runs_a_turn_that_writes_agents_md(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", path="AGENTS.md", content="# demo\n")), reply(text("Done.")))
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "/init")
        await settle(pilot)
        assert (workspace / "AGENTS.md").read_text() == "# demo\n"


async def test_a_custom_command_completes_with_tab_and_runs(workspace: Path, scripted_server: ScriptedServer) -> None:
    from engine.commands.custom import user_commands_folder

    folder = user_commands_folder({})  # the app's engine gets no XDG_CONFIG_HOME: the home folder's
    folder.mkdir(parents=True)
    (folder / "standup.md").write_text("---\ndescription: what changed\n---\nSummarise $ARGUMENTS.\n")
    scripted_server.add(reply(text("Summary.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("slash", "s", "t", "a", "n", "tab")
        await pilot.pause()
        assert prompt_of(app).text == "/standup "
        await pilot.press(*"today", "enter")
        await settle(pilot)
        assert scripted_server.requests[0].body["messages"][-1]["content"].startswith("Summarise today.")

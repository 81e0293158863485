"""SPEC 23 input keys: Ctrl+G edits the prompt in $VISUAL/$EDITOR (the app suspended meanwhile) and the saved text
comes back; Ctrl+R searches the input history incrementally, Enter takes the match, Esc leaves it unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.drivers.headless_driver import HeadlessDriver
from textual.widgets import Input, OptionList

from coder_tui.input.external_editor import EditorError, editor_command
from coder_tui.input.history import InputHistory
from coder_tui.screens.history_search import HistorySearchScreen, matching
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, prompt_of, ready, wait_until

# An "editor" that appends a line to the file it is given, as a user would type one and save.
APPEND_EDITOR = f"{sys.executable} -c \"import sys; open(sys.argv[1], 'a').write('and run the tests\\n')\""


@pytest.fixture
def suspendable(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The test terminal cannot be handed over; this one records the suspends and resumes instead."""
    calls: list[str] = []
    monkeypatch.setattr(HeadlessDriver, "can_suspend", property(lambda self: True))
    monkeypatch.setattr(HeadlessDriver, "suspend_application_mode", lambda self: calls.append("suspend"), raising=False)
    monkeypatch.setattr(HeadlessDriver, "resume_application_mode", lambda self: calls.append("resume"), raising=False)
    return calls


async def test_ctrl_g_edits_the_prompt_in_the_editor(
    workspace: Path, scripted_server: ScriptedServer, suspendable: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", APPEND_EDITOR)
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        prompt_of(app).set_text("fix the parser\n")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert prompt_of(app).text == "fix the parser\nand run the tests"
        assert suspendable == ["suspend", "resume"]


async def test_ctrl_g_with_a_failing_editor_keeps_the_prompt(
    workspace: Path, scripted_server: ScriptedServer, suspendable: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", "false")
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        prompt_of(app).set_text("keep me")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert prompt_of(app).text == "keep me"
        assert any("exited with 1" in str(n.message) for n in app._notifications)


def test_editor_command_prefers_visual_then_editor_and_says_when_there_is_none() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_command({"EDITOR": "nano -w"}) == ["nano", "-w"]
    with pytest.raises(EditorError, match=r"set \$VISUAL or \$EDITOR"):
        editor_command({"PATH": "/nonexistent"})


def test_history_matches_every_word_newest_first_without_repeats() -> None:
    entries = ["fix the parser", "run tests", "fix the lexer", "fix the parser", "deploy"]
    assert matching(entries, "fix") == ["fix the parser", "fix the lexer"]
    assert matching(entries, "THE lex") == ["fix the lexer"]
    assert matching(entries, "") == ["deploy", "fix the parser", "fix the lexer", "run tests"]


async def test_ctrl_r_searches_the_history_and_enter_takes_the_match(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    history = InputHistory(None, ["fix the parser", "run the tests", "fix the lexer", "deploy to staging"])
    app = make_app(workspace, scripted_server, history=history)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, HistorySearchScreen), "the history search")
        await pilot.press(*"fix")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HistorySearchScreen) and screen.found == ["fix the lexer", "fix the parser"]
        await pilot.press("ctrl+r")  # the next older match
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, HistorySearchScreen)
        assert prompt_of(app).text == "fix the parser" and prompt_of(app).has_focus


async def test_esc_leaves_the_history_search_with_the_prompt_unchanged(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server, history=InputHistory(None, ["deploy to staging"]))
    async with app.run_test() as pilot:
        await ready(pilot)
        prompt_of(app).set_text("half-written")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, HistorySearchScreen), "the history search")
        screen = app.screen
        assert screen.query_one("#query", Input).value == "half-written"
        assert not screen.query_one("#found", OptionList).display  # nothing matches: "no input matches"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HistorySearchScreen) and prompt_of(app).text == "half-written"

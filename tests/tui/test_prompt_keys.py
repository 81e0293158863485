"""SPEC 15 input rules, key by key: submit, newlines, paste, history, completion, editing keys, Esc, Ctrl+D."""

from __future__ import annotations

from pathlib import Path

from textual import events

from coder_tui.input.history import InputHistory
from coder_tui.widgets.completion_list import CompletionList
from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, prompt_of, ready, settle, submit, wait_until


def user_messages(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [entry.text for entry in app.session.transcript.entries if isinstance(entry, UserMessage)]


async def test_enter_submits_and_clears_the_prompt(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("hi there")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press(*"hello", "enter")
        await settle(pilot)
        assert user_messages(app) == ["hello"]
        assert prompt_of(app).text == ""
        assert scripted_server.requests[0].body["messages"][-1]["content"] == "hello"


async def test_enter_right_after_fast_typing_sends_everything_typed(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        # Keys arriving in one burst, as a terminal delivers fast typing: Enter must not overtake them.
        for key, character in (("a", "a"), ("b", "b"), ("c", "c"), ("enter", "\r")):
            app.post_message(events.Key(key, character))
        await settle(pilot)
        assert user_messages(app) == ["abc"]
        assert prompt_of(app).text == ""


async def test_ctrl_j_and_shift_enter_insert_newlines(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        assert prompt_of(app).text == "a\nb\nc"
        assert user_messages(app) == []


async def test_multi_line_paste_stays_one_input(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        app.post_message(events.Paste("first line\nsecond line\nthird line"))
        await pilot.pause()
        assert prompt_of(app).text == "first line\nsecond line\nthird line"
        await pilot.press("enter")
        await settle(pilot)
        assert user_messages(app) == ["first line\nsecond line\nthird line"]


async def test_empty_input_does_nothing(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("space", "enter")
        await pilot.pause()
        assert user_messages(app) == [] and scripted_server.requests == []


async def test_up_and_down_walk_history_kept_across_sessions(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("one")), reply(text("two")))
    first = make_app(workspace, scripted_server, history=InputHistory.load(workspace))
    async with first.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "first question")
        await settle(pilot)
        await submit(pilot, "second question")
        await settle(pilot)

    second = make_app(workspace, scripted_server, history=InputHistory.load(workspace))
    async with second.run_test() as pilot:
        await ready(pilot)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt_of(second).text == "second question"
        await pilot.press("up")
        assert prompt_of(second).text == "first question"
        await pilot.press("up")
        assert prompt_of(second).text == "first question"
        await pilot.press("down")
        assert prompt_of(second).text == "second question"
        await pilot.press("down")
        assert prompt_of(second).text == "draft"


async def test_tab_completes_a_slash_command(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("slash", "h", "e")
        completions = app.session.query_one(CompletionList)
        assert [c.value for c in completions.completions] == ["/help"]
        await pilot.press("tab")
        assert prompt_of(app).text == "/help "
        assert not completions.is_open


async def test_arrows_choose_among_slash_suggestions(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("slash", "m", "o")
        completions = app.session.query_one(CompletionList)
        assert [c.value for c in completions.completions][:2] == ["/model", "/mode"]
        await pilot.press("down", "enter")
        assert prompt_of(app).text == "/mode "
        assert user_messages(app) == []


async def test_tab_completes_a_fuzzy_path_mention(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press(*"look at @utpy")
        completions = app.session.query_one(CompletionList)
        await wait_until(pilot, lambda: completions.is_open, "path suggestions")
        assert completions.completions[0].value == "@src/util.py"
        await pilot.press("tab")
        assert prompt_of(app).text == "look at @src/util.py "


async def test_esc_closes_suggestions_and_twice_clears_the_input(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("slash", "h")
        completions = app.session.query_one(CompletionList)
        assert completions.is_open
        await pilot.press("escape")
        assert not completions.is_open and prompt_of(app).text == "/h"
        await pilot.press("escape")
        assert prompt_of(app).text == "/h"
        await pilot.press("escape")
        assert prompt_of(app).text == ""


async def test_ctrl_k_kills_to_end_of_line_and_alt_backspace_deletes_a_word(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        prompt = prompt_of(app)
        prompt.set_text("fix the flaky test")
        await pilot.press("home", "right", "right", "right", "ctrl+k")
        assert prompt.text == "fix"
        prompt.set_text("fix the bug")
        await pilot.press("alt+backspace")
        assert prompt.text == "fix the "


async def test_ctrl_d_deletes_right_or_exits_on_empty_input(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("a", "b", "left", "ctrl+d")
        assert prompt_of(app).text == "a" and app.is_running
        await pilot.press("backspace", "ctrl+d")
        await pilot.pause()
        assert app.return_code == 0
        assert not app.is_running


async def test_keys_typed_before_the_screen_mounts_are_in_the_first_frame(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    session = app.session
    # Printable keys are held until the screen mounts; the first other key ends the holding, and it and the keys
    # after it take the usual way, behind the mount.
    assert session.hold_typed_ahead(events.Key("h", "h"))
    assert session.hold_typed_ahead(events.Key("i", "i"))
    assert not session.hold_typed_ahead(events.Key("ctrl+j", None))
    assert not session.hold_typed_ahead(events.Key("x", "x"))
    first_frame: list[str] = []
    session.call_after_refresh(lambda: first_frame.append(prompt_of(app).text))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert first_frame == ["hi"]
        assert not session.hold_typed_ahead(events.Key("y", "y"))

"""Issue 29 item 12: a question's options are numbered and a number key picks one; typed into the free-text
answer, a number is text."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from engine.interaction import QuestionAnswer, QuestionRequest
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, wait_until
from tests.tui.test_dialogs import ask


async def test_a_number_key_picks_that_option(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        answers = await ask(pilot, app, QuestionRequest("Which one?", options=("alpha", "beta", "gamma")))
        await pilot.press("9")  # no ninth option: nothing happens
        await pilot.pause()
        assert answers == []
        await pilot.press("3")
        await wait_until(pilot, lambda: bool(answers), "the answer")
        assert answers == [QuestionAnswer("gamma")]


async def test_digits_typed_as_an_answer_stay_text(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        answers = await ask(pilot, app, QuestionRequest("How many?", options=("one", "two"), allow_input=True))
        app.screen.query_one(Input).focus()
        await pilot.press("4", "2", "enter")
        await wait_until(pilot, lambda: bool(answers), "the answer")
        assert answers == [QuestionAnswer("42")]

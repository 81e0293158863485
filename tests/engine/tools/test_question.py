"""SPEC 5: question(question, options?, allow_input?) asks the user through the interaction interface; a run that
cannot ask gives the model an error it can act on; Esc in the dialog cancels the task."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.interaction import QuestionAnswer, QuestionRequest
from engine.tools.base import ToolContext, ToolKind
from engine.tools.question import QuestionTool
from tests.engine.tools.support import run_tool
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED, FakeInteraction, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer




class CancellingInteraction(FakeInteraction):
    """The user pressed Esc in the question dialog."""

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        self.questions.append(request)
        return QuestionAnswer(answer=None, cancelled=True)


def test_question_tool_is_an_interact_tool() -> None:
    tool = QuestionTool(FakeInteraction())
    assert tool.kind is ToolKind.INTERACT
    assert tool.definition().parameters["required"] == ["question"]


async def test_question_asks_through_the_interaction_and_returns_the_answer(ctx: ToolContext) -> None:
    interaction = FakeInteraction(answers=["Postgres"])
    tool = QuestionTool(interaction)
    output = await run_tool(
        tool, dataclasses.replace(ctx, call_id="call_q"), question="Which database?", options=["Postgres", "SQLite"]
    )
    assert output.data == {"question": "Which database?", "answer": "Postgres"}
    assert interaction.questions == [
        QuestionRequest(question="Which database?", options=("Postgres", "SQLite"), allow_input=True, call_id="call_q")
    ]


async def test_question_without_options_asks_for_typed_input(ctx: ToolContext) -> None:
    interaction = FakeInteraction(answers=["v2"])
    output = await run_tool(QuestionTool(interaction), ctx, question="Which API version?")
    assert output.data["answer"] == "v2"
    assert interaction.questions[0].options == () and interaction.questions[0].allow_input is True


async def test_question_can_force_a_choice(ctx: ToolContext) -> None:
    interaction = FakeInteraction(answers=["yes"])
    await run_tool(QuestionTool(interaction), ctx, question="Proceed?", options=["yes", "no"], allow_input=False)
    assert interaction.questions[0].allow_input is False


async def test_question_headless_is_an_error_the_model_sees(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"^the user could not be asked: this run is not interactive.*assumption"):
        await run_tool(QuestionTool(FakeInteraction()), ctx, question="Which database?")


async def test_question_dismissed_cancels_the_task(ctx: ToolContext) -> None:
    with pytest.raises(asyncio.CancelledError):
        await run_tool(QuestionTool(CancellingInteraction()), ctx, question="Which database?")


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"question": ""}, "question: String should have at least 1 character"),
        ({"question": "Q?", "allow_input": False}, "with no options, allow_input must be true"),
        ({"question": "Q?", "options": ["a", " "]}, "options must not be empty strings"),
        ({"question": "Q?", "options": ["a", "a"]}, "options must be distinct"),
        ({"question": "Q?", "options": [str(n) for n in range(11)]}, "options: List should have at most 10 items"),
    ],
)
def test_question_arguments_that_cannot_be_answered_are_refused(arguments: dict, problem: str) -> None:
    with pytest.raises(ToolError, match="invalid arguments for question") as caught:
        QuestionTool(FakeInteraction()).parse(arguments)
    assert problem in str(caught.value)


async def test_question_in_a_turn_reaches_the_user_and_headless_refuses(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(tool_call("question", id="call_q", question="Which database?", options=["Postgres", "SQLite"])),
        text("Using SQLite."),
        reply(tool_call("question", id="call_h", question="Which database?")),
        text("Assuming Postgres."),
    )
    orch, _, interaction = make_orchestrator(tmp_path, scripted_server.base_url,
                                             interaction=FakeInteraction(answers=["SQLite"]))
    assert (await orch.run_input("set up the db")).ok
    assert interaction.questions[0].call_id == "call_q"
    answered = json.loads(scripted_server.requests[1].body["messages"][-1]["content"])
    assert answered == {"ok": True, "question": "Which database?", "answer": "SQLite"}
    headless, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, interactive=False)
    assert (await headless.run_input("set up the db")).ok
    refused = json.loads(scripted_server.requests[3].body["messages"][-1]["content"])
    assert refused["ok"] is False and refused["error"].startswith("the user could not be asked")

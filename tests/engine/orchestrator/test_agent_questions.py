"""An agent that asks the user a question (its ``question`` tool) waits for you, as one waiting on an approval does
(SPEC 26), and the question names the agent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine.interaction import QuestionAnswer, QuestionRequest
from tests.engine.orchestrator.test_agents import make_repo, spawn
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import ReplyLike, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


class HeldQuestions(FakeInteraction):
    """Holds every question until the test answers it."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = asyncio.Event()

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        self.questions.append(request)
        await self.hold.wait()
        return QuestionAnswer("blue")


def asks_a_question(body: dict[str, Any]) -> ReplyLike:
    if body["messages"][-1]["role"] == "user":
        return reply(tool_call("question", question="Which colour?", options=["blue", "red"]))
    return reply(text("blue it is"))


async def test_an_agent_asking_a_question_waits_for_you_and_the_question_names_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    interaction = HeldQuestions()
    with ScriptedServer(fallback=asks_a_question) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url, interaction=interaction)
        await spawn(orchestrator, "asker")
        while not interaction.questions:
            await asyncio.sleep(0.02)
        asking = orchestrator.agents.get("asker").state.value
        listed = await orchestrator.run_input("/agents")
        interaction.hold.set()
        done = await asyncio.wait_for(orchestrator.agents.wait("asker"), 30)

    assert asking == "waiting for you"
    assert listed.reason == "completed"
    assert [(q.agent, q.question) for q in interaction.questions] == [("asker", "Which colour?")]
    assert done.state.value == "done"

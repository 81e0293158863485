"""SPEC 5: task(description, prompt) runs a sub-agent with a fresh conversation and read-only tools, returns its final
answer, and is cancelled with its parent. The tool is tested with a fake runner; the runner itself is the
orchestrator's (the turn pipeline, nested), tested at the end against the scripted server once it is wired."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.events import ToolCallFinished, ToolStatus
from engine.modes import Mode
from engine.tools.base import ToolContext, ToolKind
from engine.tools.registry import core_tools
from engine.tools.task import SUBAGENT_INSTRUCTIONS, SUBAGENT_TOOL_NAMES, TaskTool
from tests.engine.tools.support import run_tool
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer




class FakeSubagentRunner:
    """Answers from a script and records each run; ``hold`` keeps a run going until the test releases or cancels it."""

    def __init__(self, answer: str = "The answer.", error: str | None = None) -> None:
        self.answer = answer
        self.error = error
        self.runs: list[tuple[str, str, str]] = []
        self.started = asyncio.Event()
        self.hold: asyncio.Event | None = None
        self.cancelled = False

    async def run(self, description: str, prompt: str, parent_call_id: str) -> str:
        self.runs.append((description, prompt, parent_call_id))
        self.started.set()
        try:
            if self.hold is not None:
                await self.hold.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        if self.error is not None:
            raise ToolError(self.error)
        return self.answer


@pytest.fixture
def call_ctx(ctx: ToolContext) -> ToolContext:
    return dataclasses.replace(ctx, call_id="call_task_1")


def test_task_tool_is_the_subagent_kind() -> None:
    tool = TaskTool(FakeSubagentRunner())
    assert tool.kind is ToolKind.SUBAGENT
    assert tool.definition().parameters["required"] == ["description", "prompt"]


async def test_task_returns_the_subagent_answer(call_ctx: ToolContext) -> None:
    runner = FakeSubagentRunner(answer="Sessions get ids in engine/orchestrator/session.py:18.")
    output = await run_tool(TaskTool(runner), call_ctx, description="Find session ids", prompt="Where are ids made?")
    assert output.data == {
        "description": "Find session ids",
        "answer": "Sessions get ids in engine/orchestrator/session.py:18.",
    }
    assert runner.runs == [("Find session ids", "Where are ids made?", "call_task_1")]


async def test_task_failure_of_the_subagent_is_a_tool_error(call_ctx: ToolContext) -> None:
    runner = FakeSubagentRunner(error="the sub-agent reached its step limit (20 model calls) without an answer")
    with pytest.raises(ToolError, match="step limit"):
        await run_tool(TaskTool(runner), call_ctx, description="Search", prompt="Find it.")


async def test_task_with_an_empty_answer_is_a_tool_error(call_ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="the sub-agent for 'Search' ended without an answer"):
        await run_tool(TaskTool(FakeSubagentRunner(answer="  \n")), call_ctx, description="Search", prompt="Find it.")


async def test_task_is_cancelled_with_its_parent(call_ctx: ToolContext) -> None:
    runner = FakeSubagentRunner()
    runner.hold = asyncio.Event()
    parent = asyncio.create_task(run_tool(TaskTool(runner), call_ctx, description="Search", prompt="Find it."))
    await asyncio.wait_for(runner.started.wait(), 5)
    parent.cancel()
    with pytest.raises(asyncio.CancelledError):
        await parent
    assert runner.cancelled


async def test_task_needs_the_call_id_from_the_tool_chain(ctx: ToolContext) -> None:
    with pytest.raises(RuntimeError, match="ToolContext.call_id"):
        await run_tool(TaskTool(FakeSubagentRunner()), ctx, description="Search", prompt="Find it.")


@pytest.mark.parametrize("arguments", [{"description": "", "prompt": "p"}, {"description": "d", "prompt": ""},
                                       {"description": "x" * 81, "prompt": "p"}])
def test_task_arguments_are_validated(arguments: dict) -> None:
    with pytest.raises(ToolError, match="invalid arguments for task"):
        TaskTool(FakeSubagentRunner()).parse(arguments)


def test_subagent_tools_are_the_read_only_core_tools() -> None:
    names = [tool.name for tool in core_tools() if tool.name in SUBAGENT_TOOL_NAMES]
    assert names == ["read", "list", "glob", "grep", "bash"]
    assert "write" not in SUBAGENT_TOOL_NAMES and "edit" not in SUBAGENT_TOOL_NAMES
    assert "task" not in SUBAGENT_TOOL_NAMES  # no sub-agents of sub-agents
    assert "read-only" in SUBAGENT_INSTRUCTIONS and "final answer" in SUBAGENT_INSTRUCTIONS


# -- with the orchestrator's runner ----------------------------------------------------------------------------------


def _tool_results(server: ScriptedServer, index: int) -> dict[str, dict]:
    messages = server.requests[index].body["messages"]
    return {m["tool_call_id"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}


async def test_task_runs_a_read_only_subagent_and_returns_its_answer(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    from engine.events import SubagentEvent  # type: ignore[attr-defined]

    (tmp_path / "notes.txt").write_text("the id is 42\n")
    scripted_server.add(
        # parent: hands the job to a sub-agent
        reply(tool_call("task", id="call_t", description="Find the id", prompt="Read notes.txt; what is the id?")),
        # sub-agent: reads, runs a command that is not read-only (refused, never asked), answers
        reply(tool_call("read", id="sub_1", path="notes.txt")),
        reply(tool_call("bash", id="sub_2", command="touch x.txt")),
        text("The id is 42 (notes.txt:1)."),
        # parent: uses the answer
        text("The id is 42."),
    )
    orch, log, interaction = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    outcome = await orch.run_input("what is the id?")
    assert outcome.ok and outcome.text == "The id is 42."
    assert _tool_results(scripted_server, 4)["call_t"] == {
        "ok": True, "description": "Find the id", "answer": "The id is 42 (notes.txt:1).",
    }
    sub_request = scripted_server.requests[1].body
    assert [m["role"] for m in sub_request["messages"]] == ["system", "user"]  # a fresh conversation
    assert sub_request["messages"][1]["content"] == "Read notes.txt; what is the id?"
    assert sorted(t["function"]["name"] for t in sub_request["tools"]) == sorted(SUBAGENT_TOOL_NAMES)
    refused = _tool_results(scripted_server, 3)["sub_2"]
    assert refused["ok"] is False and not (tmp_path / "x.txt").exists()
    assert interaction.approval_requests == []  # the sub-agent never asks the user
    nested = [e for e in log.events if isinstance(e, SubagentEvent)]
    assert nested and all(e.parent_call_id == "call_t" for e in nested)
    inner_finished = [e.event for e in nested if isinstance(e.event, ToolCallFinished)]
    assert [(e.tool, e.status) for e in inner_finished] == [("read", ToolStatus.SUCCESS), ("bash", ToolStatus.DENIED)]
    # The main conversation holds only the parent's messages; the sub-agent's are not in it.
    assert [m.role for m in orch.session.messages] == ["user", "assistant", "tool", "assistant"]


async def test_task_is_blocked_in_plan_mode(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("task", id="call_t", description="Look", prompt="Look around.")), text("ok"))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.PLAN)
    await orch.run_input("look around")
    result = _tool_results(scripted_server, 1)["call_t"]
    assert result["ok"] is False and "disabled in plan mode" in result["error"]
    assert len(scripted_server.requests) == 2  # no sub-agent request was made


async def test_cancelling_the_parent_cancels_a_running_subagent(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    import asyncio

    from tests.support.scenario import stall

    scripted_server.add(
        reply(tool_call("task", id="call_t", description="Look", prompt="Look around.")),
        stall(after=reply(text("Looking at the")), seconds=60),
    )
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    running = asyncio.create_task(orch.run_input("look around"))
    for _ in range(1000):
        if len(scripted_server.requests) == 2:
            break
        await asyncio.sleep(0.01)
    assert orch.cancel()
    outcome = await running
    assert outcome.reason == "cancelled"
    assert scripted_server.requests[1].client_closed.wait(5)  # the sub-agent's stream was aborted
    last = orch.session.messages[-1]
    assert last.role == "tool" and last.tool_call_id == "call_t" and "interrupted" in (last.content or "")

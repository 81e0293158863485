"""The ``task`` tool (SPEC 5): hands a self-contained job to a sub-agent and returns its final answer.

The sub-agent has a fresh conversation (it sees only ``prompt``), read-only tools (``SUBAGENT_TOOL_NAMES``, with bash
held to the read-only whitelist), a step limit of its own, and runs inside this tool call, so cancelling the parent
cancels it. The tool does not run it: it calls a ``SubagentRunner``, which the orchestrator implements with the same
turn pipeline as the main conversation (no second agent loop), so everything the main loop does (streaming, tool
chain, loop detection, events) the sub-agent does too.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput

# The tools a sub-agent is offered. bash among them runs only what the plan-mode policy allows without asking.
SUBAGENT_TOOL_NAMES: tuple[str, ...] = ("read", "list", "glob", "grep", "bash")

# The sub-agent's system prompt, in place of the main agent's role and mode rules (its environment section follows).
SUBAGENT_INSTRUCTIONS = """\
You are a sub-agent of coder-tui, a coding agent. Another agent gave you one task; do it and report back. You \
cannot talk to the user: your final answer goes to the agent that gave you the task.
- You may only read: read, list, glob, grep, and bash for read-only commands (ls, cat, grep, rg, find, git status/\
diff/log/show...). Any other command is refused; do not retry it in another form. Change nothing.
- Paths are relative to the workspace root. Tool results are JSON: {"ok": true, ...} or {"ok": false, "error": "..."}.
- Work efficiently: search before you read, read only what you need, and stop as soon as you can answer.
- Your last message is your answer: make it complete and self-contained, since the other agent sees nothing else of \
your work. Give file paths with line numbers for what you found, quote the code that matters, and say plainly what \
you could not find or verify."""


class SubagentRunner(Protocol):
    async def run(self, description: str, prompt: str, parent_call_id: str) -> str:
        """Runs a sub-agent on ``prompt`` to its end and returns its final answer.

        Raises ``ToolError`` with a readable reason when it ends without one (step limit, provider error, loop);
        lets ``asyncio.CancelledError`` through untouched. ``parent_call_id`` tags the sub-agent's events so a
        front end can show them nested under this call.
        """
        ...


class TaskParams(BaseModel):
    description: str = Field(
        min_length=1, max_length=80, description="A short title of the job (3-6 words), shown to the user."
    )
    prompt: str = Field(
        min_length=1,
        description="The complete job for the sub-agent. It sees nothing of this conversation: include every path, "
        "name and constraint it needs, and say exactly what its answer must contain.",
    )


class TaskTool(Tool[TaskParams]):
    name = "task"
    description = (
        "Hand a self-contained, read-only job to a sub-agent with a fresh conversation and get its final answer "
        "back. The sub-agent can read, list, glob, grep and run read-only shell commands; it cannot change files "
        "or ask the user. Use it for broad searches and investigations (\"find every place that builds a "
        "session and explain how ids are chosen\") whose many intermediate steps would clutter this conversation. "
        "Independent questions go in separate calls. Do not use it for a single read or grep: call those directly."
    )
    params = TaskParams
    kind = ToolKind.SUBAGENT

    def __init__(self, runner: SubagentRunner) -> None:
        self._runner = runner

    def key_argument(self, params: TaskParams) -> str:
        return params.description

    async def run(self, params: TaskParams, ctx: ToolContext) -> ToolOutput:
        if ctx.call_id is None:
            raise RuntimeError("the task tool needs ToolContext.call_id, set by the tool chain for each call")
        answer = await self._runner.run(params.description, params.prompt, ctx.call_id)
        if not answer.strip():
            raise ToolError(f"the sub-agent for {params.description!r} ended without an answer")
        return ToolOutput(data={"description": params.description, "answer": answer})

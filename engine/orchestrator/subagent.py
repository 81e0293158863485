"""The sub-agent behind the ``task`` tool: the same turn pipeline as the main conversation, run inside the tool
call with a fresh conversation, read-only tools and plan-mode rules, its events forwarded nested under the call.
Its conversation is stored under the parent session and the ``task`` call (``Conversation.subagent_conversations``), so it
can be shown after a restart. Nothing it meets can ask the user: what would ask is refused, and the model is told
why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.context.compaction import CompactionState
from engine.context.system_prompt import Environment
from engine.context.tokens import TokenCounter
from engine.errors import ToolError
from engine.events import Event, SubagentEvent
from engine.modes import Mode
from engine.orchestrator.deps import ApprovalSettings, TurnDeps
from engine.orchestrator.message_log import SubagentLog
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.session import Session
from engine.orchestrator.turn import TurnState, run_turn
from engine.orchestrator.fetch_gate import PolicyFetchGate
from engine.policy import PermissionPolicy
from engine.tools.base import ToolContext
from engine.tools.registry import ToolRegistry, core_tools
from engine.tools.task import SUBAGENT_INSTRUCTIONS, SUBAGENT_TOOL_NAMES
from engine.workflow.loop_detection import LoopDetector

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts

REFUSAL_HINT = "A sub-agent may only read; leave changes and other commands to the agent that gave you the task."


def subagent_prompt(mode: Mode, environment: Environment, instructions: str) -> str:
    sections = [SUBAGENT_INSTRUCTIONS, f"# Environment\n{environment.render()}"]
    if instructions.strip():
        sections.append(f"# Project instructions\n{instructions.strip()}")
    return "\n\n".join(sections)


class NestedTurnRunner:
    """Implements ``engine.tools.task.SubagentRunner`` for an orchestrator."""

    def __init__(self, orchestrator: EngineParts) -> None:
        self._orchestrator = orchestrator

    async def run(self, description: str, prompt: str, parent_call_id: str) -> str:
        orch = self._orchestrator
        parent = orch.active_runtime()

        def emit(event: Event) -> None:
            parent.emit(SubagentEvent(parent_call_id, event))

        registry = ToolRegistry([tool for tool in core_tools() if tool.name in SUBAGENT_TOOL_NAMES])
        session = Session(
            orch.workspace_root,
            model=parent.session.model,
            tools=registry.wire(),
            emit=emit,
            store=None,
            session_id=f"{parent.id}-{parent_call_id}",
            mode=Mode.PLAN.value,
            log=SubagentLog(orch.store, parent.id, parent_call_id, parent.task_id),
        )
        config = orch.config.model_copy(update={"max_steps": orch.config.subagent.max_steps})
        # An agent's sub-agent reads the agent's worktree, never the main checkout.
        workspace = parent.tool_context.workspace
        policy = PermissionPolicy.for_settings(config, Mode.PLAN.value, workspace.root)
        gate = PolicyFetchGate(lambda: policy, lambda: config.fetch.allow_private)
        deps = TurnDeps(
            session=session,
            provider=orch.provider(),
            registry=registry,
            tool_context=ToolContext(workspace=workspace, limits=parent.tool_context.limits, fetch_gate=gate),
            policy=policy,
            interaction=orch.interaction,
            approvals=ApprovalSettings(interactive=False, auto_approve_ask=False, refusal_hint=REFUSAL_HINT),
            config=config,
            emit=emit,
            # Its tool calls go to the audit log under the parent's task.
            recorder=TaskRecorder(orch.store, parent.id, parent.task_id),
            build_prompt=subagent_prompt,
            counter=TokenCounter(parent.session.model),
            compaction=CompactionState(),
            loops=LoopDetector(),
            # The user's PreToolUse / PostToolUse hooks see the sub-agent's calls too, as in Claude Code.
            hooks=parent.hooks or orch.hooks,
            spend=orch.spend,  # counted in the parent session's spend (the recorder's session)
        )
        state = await run_turn(TurnState(turn_id=f"sub-{parent_call_id}", user_text=prompt), deps)
        if state.end_reason != "completed":
            raise ToolError(f"the sub-agent stopped without an answer: {state.error or state.end_reason}")
        answer = next((m.content for m in reversed(session.messages) if m.role == "assistant" and m.content), None)
        if not answer:
            raise ToolError("the sub-agent ended without an answer")
        return answer

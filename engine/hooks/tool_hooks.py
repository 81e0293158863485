"""The hooks around one tool call, as the tool chain calls them: ``PreToolUse`` before the policy (a deny stops
the call, an allow skips the approval, an ask forces it), ``PostToolUse`` after a call ran (its feedback joins the
result the model reads), ``Notification`` when an approval waits for the user."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.hooks.dispatcher import HookScope, PreToolDecision
from engine.hooks.tool_input import hook_tool_input
from engine.messages import ToolCall

if TYPE_CHECKING:
    from engine.orchestrator.deps import TurnDeps

NO_OPINION = PreToolDecision()


def scope_of(deps: TurnDeps) -> HookScope:
    session = deps.session
    try:
        transcript = str(session.path)
    except RuntimeError:  # a sub-agent's conversation lives in memory only
        transcript = ""
    # The recorder's session: a sub-agent's calls belong to its parent's session (and audit log).
    return HookScope(deps.recorder.session_id, deps.recorder.task_id, transcript)


async def before_tool(deps: TurnDeps, call: ToolCall, arguments: dict[str, Any]) -> PreToolDecision:
    if deps.hooks is None or not deps.hooks.configured("PreToolUse"):
        return NO_OPINION
    tool_input = hook_tool_input(arguments, deps.tool_context.workspace.root)
    return await deps.hooks.pre_tool_use(scope_of(deps), call.id, call.name, tool_input)


async def after_tool(
    deps: TurnDeps, call: ToolCall, arguments: dict[str, Any], result: dict[str, Any]
) -> dict[str, Any]:
    """The result the model reads: unchanged, or with the PostToolUse hooks' feedback under ``hook_feedback``."""
    if deps.hooks is None or not deps.hooks.configured("PostToolUse"):
        return result
    tool_input = hook_tool_input(arguments, deps.tool_context.workspace.root)
    feedback = await deps.hooks.post_tool_use(scope_of(deps), call.id, call.name, tool_input, result)
    return {**result, "hook_feedback": feedback} if feedback else result


async def approval_waiting(deps: TurnDeps, tool: str) -> None:
    if deps.hooks is not None and deps.hooks.configured("Notification"):
        await deps.hooks.notification(scope_of(deps), f"coder-tui needs your permission to use {tool}")


def refusal_by_hook(decision: PreToolDecision) -> str | None:
    if decision.decision != "deny":
        return None
    return f"blocked by a PreToolUse hook: {decision.reason}"

"""One tool call through the chain of SPEC 5: mode check and policy, the tool's own approval reasons, at most one
approval, execution, and the `tool` message written back. Every failure becomes ``{"ok": false, "error": ...}``."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from engine.errors import ToolError
from engine.events import (
    Notice,
    ToolCallAwaitingApproval,
    ToolCallExecuting,
    ToolCallFinished,
    ToolCallScheduled,
    ToolStatus,
)
from engine.interaction import ApprovalDecision, ApprovalRequest
from engine.messages import Message, ToolCall
from engine.modes import Mode
from engine.orchestrator.deps import TurnDeps
from engine.policy import Action
from engine.tools.base import Tool, ToolKind


class ApprovalCancelled(asyncio.CancelledError):
    """Esc in the approval dialog: the whole task is cancelled, it is not a "no"."""


@dataclass
class ToolCallOutcome:
    message: Message
    status: ToolStatus
    result: dict[str, Any]
    diff: str | None = None
    edited_path: str | None = None
    notes: list[str] = field(default_factory=list)


def error_result(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error}


def tool_message(call: ToolCall, result: dict[str, Any]) -> Message:
    return Message.tool(call.id, call.name, json.dumps(result, ensure_ascii=False))


async def run_tool_call(call: ToolCall, deps: TurnDeps) -> ToolCallOutcome:
    """Runs one call to completion. Cancellation propagates after the event says "cancelled"."""
    started = time.perf_counter()
    key_argument = ""
    tool = deps.registry.get(call.name)

    def finish(status: ToolStatus, result: dict[str, Any], diff: str | None = None) -> ToolCallOutcome:
        duration_ms = (time.perf_counter() - started) * 1000
        deps.emit(ToolCallFinished(call.id, call.name, key_argument, status, duration_ms, result, diff))
        return ToolCallOutcome(tool_message(call, result), status, result, diff)

    if tool is None:
        known = ", ".join(deps.registry.names())
        deps.emit(ToolCallScheduled(call.id, call.name, "", {}))
        return finish(ToolStatus.ERROR, error_result(f"unknown tool {call.name!r}; available tools: {known}"))
    try:
        arguments = call.parsed_arguments()
        params = tool.parse(arguments)
    except (ValueError, ToolError) as exc:
        deps.emit(ToolCallScheduled(call.id, call.name, "", {}))
        return finish(ToolStatus.ERROR, error_result(str(exc)))

    key_argument = tool.key_argument(params)
    deps.emit(ToolCallScheduled(call.id, call.name, key_argument, arguments))
    try:
        refusal = await _authorize(call, tool, params, arguments, key_argument, deps)
        if refusal is not None:
            return finish(ToolStatus.DENIED, error_result(refusal))
        deps.emit(ToolCallExecuting(call.id, call.name))
        output = await tool.run(params, deps.tool_context)
    except asyncio.CancelledError:
        finish(ToolStatus.CANCELLED, error_result("cancelled by the user"))
        raise
    except ToolError as exc:
        return finish(ToolStatus.ERROR, error_result(str(exc)))
    except Exception as exc:  # a bug in a tool must not end the turn: the model sees it and decides
        return finish(ToolStatus.ERROR, error_result(f"{call.name} failed: {type(exc).__name__}: {exc}"))
    outcome = finish(ToolStatus.SUCCESS, {"ok": True, **output.data}, output.diff)
    if tool.kind is ToolKind.EDIT:
        outcome.edited_path = key_argument
    return outcome


async def _authorize(
    call: ToolCall, tool: Tool[Any], params: Any, arguments: dict[str, Any], key_argument: str, deps: TurnDeps
) -> str | None:
    """Steps 1-4 of SPEC 5. Returns why the call is refused, or None when it may run."""
    decision = deps.policy.decide(call.name, tool.kind, arguments)
    if decision.action is Action.BLOCKED:
        return f"{call.name} is disabled in {deps.policy.mode.value} mode ({decision.rule})"
    if decision.action is Action.DENY:
        reasons = "; ".join(decision.reasons) or decision.rule
        return f"denied by policy: {reasons}"
    reasons = list(decision.reasons) if decision.action is Action.ASK else []
    yolo_bash = deps.policy.mode is Mode.YOLO and tool.kind is ToolKind.EXECUTE
    if not yolo_bash:
        reasons += [r for r in await tool.approval_reasons(params, deps.tool_context) if r not in reasons]
    if decision.action is Action.ALLOW and not reasons:
        return None
    if not reasons:
        reasons = [decision.rule]
    if deps.approvals.auto_approve_ask:
        return None
    if not deps.approvals.interactive:
        return (
            "this call needs the user's approval, which a non-interactive run cannot give "
            f"({'; '.join(reasons)}). Set auto_approve_ask or use a mode that allows it."
        )
    deps.emit(ToolCallAwaitingApproval(call.id, call.name, tuple(reasons)))
    answer = await deps.interaction.request_approval(
        ApprovalRequest(
            call_id=call.id,
            tool=call.name,
            key_argument=key_argument,
            arguments=arguments,
            reasons=tuple(reasons),
            preview=await tool.preview(params, deps.tool_context),
            always_scope=decision.always_scope,
        )
    )
    if answer is ApprovalDecision.CANCEL:
        raise ApprovalCancelled()
    if answer is ApprovalDecision.NO:
        return "the user refused this call"
    if answer is ApprovalDecision.ALWAYS:
        if decision.allowances:
            deps.emit(Notice(deps.policy.allow_always(decision)))
        else:
            # Nothing can be remembered for this call (a risk reason, or a reason of the tool's own): yes, once.
            deps.emit(Notice(f"{call.name}: allowed this once; this call cannot be allowed always"))
    return None

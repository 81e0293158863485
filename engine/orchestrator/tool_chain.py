"""One tool call through the chain of SPEC 5: mode check and policy, the tool's own approval reasons, at most one
approval, execution, and the `tool` message written back. Every failure becomes ``{"ok": false, "error": ...}``."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import replace
from typing import Any

from engine.config.project_file import update_project_config
from engine.config.trust import untrusted_rule_notice
from engine.errors import ToolError
from engine.events import (
    Notice,
    ToolCallAwaitingApproval,
    ToolCallExecuting,
    ToolCallFinished,
    ToolCallScheduled,
    ToolStatus,
)
from engine.hooks.dispatcher import PreToolDecision
from engine.hooks.tool_hooks import after_tool, approval_waiting, before_tool, refusal_by_hook
from engine.interaction import ApprovalAnswer, ApprovalDecision, ApprovalRequest
from engine.messages import ImageRef, Message, ToolCall
from engine.modes import Mode
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.live_output import LiveOutput
from engine.policy import Action, Allowance, PolicyDecision
from engine.record import record
from engine.storage.log.records import DecidedBy
from engine.tools.base import Tool, ToolKind, ToolOutput


class ApprovalCancelled(asyncio.CancelledError):
    """Esc in the approval dialog: the whole task is cancelled, it is not a "no"."""


class CallCancelled(asyncio.CancelledError):
    """Esc while a call ran: the task is cancelled, and ``result`` is what the model is told of the call (with
    what the command printed before it was stopped)."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__("cancelled by the user")
        self.result = result


INTERRUPTED = "interrupted: the user cancelled the task"
# What the model reads of a call the user refused with a plain "no": the turn stopped there, and the user's next
# message says what to do instead.
REFUSED_AND_STOPPED = (
    "the user refused this call and stopped the turn; do not try another way to do it: wait for the user's next "
    "message, which says what to do instead"
)


@record
class ToolCallOutcome:
    message: Message
    status: ToolStatus
    result: dict[str, Any]
    diff: str | None = None
    changed_paths: tuple[str, ...] = ()
    images: tuple[ImageRef, ...] = ()
    # The user said a plain "no": the turn stops after this call (SPEC 5, "no" ends the turn).
    stops_turn: bool = False


@record
class _Verdict:
    """The chain's answer before running a call: why it is refused (None: it runs), and for an edit approved hunk
    by hunk, the hunks kept and what the user said."""

    refusal: str | None
    kept_hunks: tuple[int, ...] | None = None
    reason: str | None = None
    stops_turn: bool = False


ALLOWED = _Verdict(None)


def error_result(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error}


def tool_message(
    call: ToolCall, result: dict[str, Any], status: ToolStatus | None = None, duration_ms: float | None = None
) -> Message:
    """The call's result for the model; its final state and duration are kept beside it, for a resumed transcript."""
    content = json.dumps(result, ensure_ascii=False)
    state = status.value if status is not None else None
    return Message(
        role="tool", tool_call_id=call.id, name=call.name, content=content, status=state, duration_ms=duration_ms
    )


def captured(deps: TurnDeps, wanted: bool = True) -> AbstractAsyncContextManager[None]:
    """What the enclosed step changes in the workspace joins the turn's undo (SPEC 7). Only the steps that may
    change files are enclosed (the hooks, the tool), never the wait for an approval, while the user may be editing."""
    return deps.capture.around() if deps.capture is not None and wanted else nullcontext()


async def run_tool_call(call: ToolCall, deps: TurnDeps) -> ToolCallOutcome:
    """Runs one call to completion. Cancellation propagates after the event says "cancelled". The duration is the
    execution's alone (not the time the user took to approve); a call that never ran has none.

    The call's audit and permission rows are deferred: those written before it runs are committed together before
    anything may wait (a hook, the user, the tool itself), and the rest with the ``tool`` message the caller appends
    at once (``tool_loop_step``, also on cancellation). Three transactions a call instead of five, and a process
    killed at any moment still finds every row of a call that ran."""
    started: float | None = None
    key_argument = ""
    tool = deps.registry.get(call.name)
    live = LiveOutput(call.id, deps.emit, deps.tool_context.limits.output_cap_bytes)

    def schedule(arguments: dict[str, Any]) -> None:
        deps.recorder.tool_requested(call.id, call.name, arguments, defer=True)
        deps.emit(ToolCallScheduled(call.id, call.name, key_argument, arguments))

    def finish(
        status: ToolStatus, result: dict[str, Any], output: ToolOutput | None = None, stops_turn: bool = False
    ) -> ToolCallOutcome:
        duration_ms = None if started is None else (time.perf_counter() - started) * 1000
        live.flush()  # the live output before the result, in order
        diff = output.diff if output else None
        deps.recorder.tool_completed(
            call.id, call.name, result, is_error=status is not ToolStatus.SUCCESS, duration_ms=duration_ms, defer=True
        )
        deps.emit(ToolCallFinished(call.id, call.name, key_argument, status, duration_ms, result, diff))
        changed = output.changed_paths if output else ()
        images = output.images if output and status is ToolStatus.SUCCESS else ()
        message = tool_message(call, result, status, duration_ms)
        return ToolCallOutcome(message, status, result, diff, changed, images, stops_turn)

    if tool is None:
        known = ", ".join(deps.registry.names())
        schedule({})
        return finish(ToolStatus.ERROR, error_result(f"unknown tool {call.name!r}; available tools: {known}"))
    try:
        arguments = call.parsed_arguments()
        params = tool.parse(arguments)
    except (ValueError, ToolError) as exc:
        schedule({"arguments": call.function.arguments})
        return finish(ToolStatus.ERROR, error_result(str(exc)))

    key_argument = tool.key_argument(params)
    schedule(arguments)
    decision = deps.policy.decide(call.name, tool.kind, arguments)
    context = replace(deps.tool_context, call_id=call.id, sandbox=decision.sandbox, on_output=live.feed)
    if tool.kind is ToolKind.EXECUTE and (notice := deps.policy.take_sandbox_notice()) is not None:
        deps.emit(Notice(notice, level="warning"))
    try:
        pre_hooks = deps.hooks is not None and deps.hooks.configured("PreToolUse")
        if pre_hooks:
            deps.recorder.commit()  # a hook may take its time
        async with captured(deps, pre_hooks):
            hook = await before_tool(deps, call, arguments)
        refusal = refusal_by_hook(hook)
        verdict = _Verdict(refusal) if refusal is not None else await _authorize(
            call, tool, params, arguments, key_argument, decision, deps, hook
        )
        if verdict.refusal is not None:
            return finish(ToolStatus.DENIED, error_result(verdict.refusal), stops_turn=verdict.stops_turn)
        if verdict.kept_hunks is not None:
            context = replace(context, kept_hunks=frozenset(verdict.kept_hunks))
        deps.recorder.commit()
        deps.emit(ToolCallExecuting(call.id, call.name))
        async with captured(deps, tool.kind.may_change_files):
            started = time.perf_counter()
            output = await tool.run(params, context)
            data = dict(output.data)
            if verdict.kept_hunks is not None and verdict.reason:
                data["user_says"] = verdict.reason  # why the user dropped the hunks named in dropped_hunks
            result = await after_tool(deps, call, arguments, {"ok": True, **data})
    except asyncio.CancelledError as exc:
        if started is None:
            finish(ToolStatus.CANCELLED, error_result("cancelled by the user"))
            raise
        # What the command printed before Esc stays: shown, and sent to the model with the interruption (SPEC 14).
        printed = live.so_far()
        result = error_result(f"{INTERRUPTED}; its output so far:\n{printed}" if printed else INTERRUPTED)
        finish(ToolStatus.CANCELLED, result)
        raise CallCancelled(result) from exc
    except ToolError as exc:
        return finish(ToolStatus.ERROR, error_result(str(exc)))
    except Exception as exc:  # a bug in a tool must not end the turn: the model sees it and decides
        return finish(ToolStatus.ERROR, error_result(f"{call.name} failed: {type(exc).__name__}: {exc}"))
    return finish(ToolStatus.SUCCESS, result, output)


async def _authorize(
    call: ToolCall,
    tool: Tool[Any],
    params: Any,
    arguments: dict[str, Any],
    key_argument: str,
    decision: PolicyDecision,
    deps: TurnDeps,
    hook: PreToolDecision,
) -> _Verdict:
    """Steps 1-4 of SPEC 5 on the policy's ``decision``. Returns why the call is refused, or that it may run
    (with the hunks the user kept of an edit's diff, and what they said).
    Every decision is logged. A PreToolUse hook's "allow" skips the approval (never a policy deny), its "ask"
    forces one."""

    def log(decision_text: str, decided_by: DecidedBy, reasons: list[str] | tuple[str, ...] = ()) -> None:
        deps.recorder.permission(
            call.id, call.name, arguments, decision=decision_text, decided_by=decided_by, reasons=reasons,
            rule=decision.rule, defer=True,
        )

    log(decision.action.value, "policy", decision.reasons)
    if decision.action is Action.BLOCKED:
        return _Verdict(f"{call.name} is disabled in {deps.policy.mode.value} mode ({decision.rule})")
    if decision.action is Action.DENY:
        reasons = "; ".join(decision.reasons) or decision.rule
        return _Verdict(f"denied by policy: {reasons}")
    reasons = list(decision.reasons) if decision.action is Action.ASK else []
    policy_reasons = len(reasons)
    if hook.decision == "allow":
        log("allow", "config", [hook.reason or "allowed by a PreToolUse hook"])
        return ALLOWED
    if hook.decision == "ask":
        reasons.append(f"a PreToolUse hook asks: {hook.reason}" if hook.reason else "a PreToolUse hook asks")
    elif deps.policy.mode is Mode.YOLO:
        # SPEC 4: yolo asks nothing (steps 2 and 3 skipped); the workspace guard still holds in the tool.
        return ALLOWED
    deps.recorder.commit()  # from here on the chain may wait: for the tool's own checks, then for the user
    reasons += [r for r in await tool.approval_reasons(params, deps.tool_context) if r not in reasons]
    if decision.action is Action.ALLOW and not reasons:
        return ALLOWED
    if not reasons:
        reasons = [decision.rule]
    # A reason the policy's allowance would not lift (the tool's own, a hook's) asks again next time, so "always"
    # could not cover this call: it is not offered.
    always_scope = decision.always_scope if len(reasons) == policy_reasons else None
    if deps.approvals.auto_approve_ask:
        log("allow", "config", reasons)
        return ALLOWED
    if not deps.approvals.interactive:
        log("refuse", "config", reasons)
        return _Verdict(
            "this call needs the user's approval, which a non-interactive run cannot give "
            f"({'; '.join(reasons)}). {deps.approvals.refusal_hint}"
        )
    deps.emit(ToolCallAwaitingApproval(call.id, call.name, tuple(reasons)))
    await approval_waiting(deps, call.name)
    interaction_id = deps.recorder.approval_requested(call.id, call.name, key_argument, arguments, reasons)
    reply = await deps.interaction.request_approval(
        ApprovalRequest(
            call_id=call.id,
            tool=call.name,
            key_argument=key_argument,
            arguments=arguments,
            reasons=tuple(reasons),
            preview=await tool.preview(params, deps.tool_context),
            always_scope=always_scope,
        )
    )
    answer, why = (reply.decision, reply.reason) if isinstance(reply, ApprovalAnswer) else (reply, None)
    kept_hunks = reply.kept_hunks if isinstance(reply, ApprovalAnswer) else None
    cancelled = answer is ApprovalDecision.CANCEL
    told = answer.value if kept_hunks is None else f"{answer.value}, keeping hunks {list(kept_hunks)}"
    told = f"{told}: {why}" if why else told
    deps.recorder.interaction_responded(interaction_id, None if cancelled else told, cancelled=cancelled)
    log(answer.value, "user", reasons)
    if cancelled:
        raise ApprovalCancelled()
    if answer is ApprovalDecision.NO or kept_hunks == ():
        if why:
            return _Verdict(f"the user refused this call and says: {why}")
        return _Verdict(REFUSED_AND_STOPPED, stops_turn=True)
    if answer in (ApprovalDecision.ALWAYS, ApprovalDecision.ALWAYS_PROJECT):
        if always_scope is None:
            # Nothing can be remembered for this call (a risk reason, or a reason of the tool's own): yes, once.
            deps.emit(Notice(f"{call.name}: allowed this once; this call cannot be allowed always"))
            return _Verdict(None, kept_hunks, why)
        deps.emit(Notice(deps.policy.allow_always(decision)))
        if answer is ApprovalDecision.ALWAYS_PROJECT:
            _remember_for_project(decision.allowances, deps)
    return _Verdict(None, kept_hunks, why)


def _remember_for_project(allowances: tuple[Allowance, ...], deps: TurnDeps) -> None:
    """Writes each allowance as an "allow" rule of ./.coder/config.json; a failed write keeps the session's."""
    root = deps.tool_context.workspace.root
    for allowance in allowances:
        section, key = allowance.config_entry()
        try:
            path = update_project_config(root, ("permissions", section, key), "allow")
        except (OSError, ValueError) as exc:
            deps.emit(Notice(f"could not save the rule for later sessions: {exc}", level="warning"))
            return
        if deps.project_trusted():
            deps.emit(Notice(f"saved in {path}: permissions.{section}[{key!r}] = allow"))
        else:
            deps.emit(Notice(untrusted_rule_notice(path, f"permissions.{section}[{key!r}] = allow"), level="warning"))

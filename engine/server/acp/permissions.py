"""Approvals as ACP ``session/request_permission`` (SPEC 24): our yes / always / no as the options allow once /
allow always / reject once, "always" offered only where the engine can remember the call (its scope is named in the
option). Reject is our plain "no": the call is refused and the prompt turn ends (stop reason `end_turn`), the model
waiting for the next prompt. A client that answers "cancelled" (its prompt was cancelled) cancels the task, as Esc
does in the TUI."""

from __future__ import annotations

from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

from engine.interaction import ApprovalDecision, ApprovalRequest
from engine.server.acp.updates import tool_kind, tool_title

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
_DECISIONS = {ALLOW_ONCE: ApprovalDecision.YES, ALLOW_ALWAYS: ApprovalDecision.ALWAYS, REJECT_ONCE: ApprovalDecision.NO}


def permission_options(request: ApprovalRequest) -> list[PermissionOption]:
    options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once")]
    if request.always_scope:
        options.append(
            PermissionOption(
                option_id=ALLOW_ALWAYS, name=f"Allow always ({request.always_scope})", kind="allow_always"
            )
        )
    options.append(PermissionOption(option_id=REJECT_ONCE, name="Reject (stops the turn)", kind="reject_once"))
    return options


def permission_tool_call(request: ApprovalRequest) -> ToolCallUpdate:
    """What the client shows about the call: its title and kind, and why it asks (with the preview: the diff or
    the whole command)."""
    why = "\n".join(f"- {reason}" for reason in request.reasons)
    body = f"Why it asks:\n{why}" + (f"\n\n{request.preview}" if request.preview else "")
    return ToolCallUpdate(
        tool_call_id=request.call_id,
        title=tool_title(request.tool, request.key_argument),
        kind=tool_kind(request.tool),  # type: ignore[arg-type]
        status="pending",
        raw_input=request.arguments,
        content=[{"type": "content", "content": {"type": "text", "text": body}}],
    )


def decision_from(response: RequestPermissionResponse) -> ApprovalDecision:
    outcome = response.outcome
    if outcome.outcome != "selected":
        return ApprovalDecision.CANCEL
    return _DECISIONS.get(outcome.option_id, ApprovalDecision.NO)

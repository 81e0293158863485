"""The hooks before a request: ``SessionStart`` before a session's first request (its output is context for the
model), ``UserPromptSubmit`` before each (it may block the request or add context). ``Stop`` runs where a turn
ends (``engine.orchestrator.steps.stop``)."""

from __future__ import annotations


from engine.hooks.dispatcher import HookDispatcher, HookScope
from engine.record import record


@record
class SubmittedRequest:
    context: str = ""  # what the hooks add to the request, for the model
    blocked: bool = False
    reason: str = ""


async def submit_request(
    hooks: HookDispatcher, scope: HookScope, text: str, *, session_start: str | None
) -> SubmittedRequest:
    """``session_start``: why the session began (startup or resume) when this is its first request, else None."""
    context: list[str] = []
    if session_start is not None and hooks.configured("SessionStart"):
        if started := await hooks.session_start(scope, session_start):
            context.append(started)
    if hooks.configured("UserPromptSubmit"):
        decision = await hooks.user_prompt_submit(scope, text)
        if decision.blocked:
            reason = f"request blocked by a UserPromptSubmit hook: {decision.reason}"
            return SubmittedRequest(blocked=True, reason=reason)
        if decision.context:
            context.append(decision.context)
    return SubmittedRequest("\n".join(context))

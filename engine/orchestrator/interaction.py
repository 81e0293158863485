"""The engine's side of the interaction interface: the front end's handler, wrapped so that Esc in a dialog
cancels the whole task (SPEC 5) and every question is logged as an interaction (SPEC 12)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from engine.interaction import (
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequest,
    ElicitationAnswer,
    ElicitationRequest,
    InteractionHandler,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)
from engine.orchestrator.recorder import TaskRecorder

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts


class CancellingInteraction:
    """Wraps the front end's handler so that Esc in a dialog cancels the whole task, as SPEC 5 requires: the task
    of the session that asked."""

    def __init__(self, inner: InteractionHandler, orchestrator: EngineParts) -> None:
        self._inner = inner
        self._orchestrator = orchestrator

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        runtime = self._orchestrator.active_runtime()
        if runtime.agent is not None:  # the dialog names the agent and its tree: several may ask at once
            request = replace(request, agent=runtime.agent, worktree=str(runtime.tool_context.workspace.root))
        decision = await self._inner.request_approval(request)
        if decision is ApprovalDecision.CANCEL:
            runtime.cancel()
        return decision

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        runtime = self._orchestrator.active_runtime()
        if runtime.agent is not None:  # the dialog names the agent: several may ask at once
            request = replace(request, agent=runtime.agent)
        recorder = TaskRecorder(self._orchestrator.store, runtime.id, runtime.task_id)
        interaction_id = recorder.question_asked(request)
        answer = await self._inner.ask_question(request)
        recorder.interaction_responded(interaction_id, answer.answer, cancelled=answer.cancelled)
        if answer.cancelled:
            runtime.cancel()
        return answer

    async def request_trust(self, request: TrustRequest) -> TrustDecision:
        return await self._inner.request_trust(request)

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """An MCP server's request for input (SPEC 22). A front end with no form to show declines it, saying so;
        dismissing the form answers the server "cancel" and leaves the task running (the server decides)."""
        elicit = getattr(self._inner, "elicit", None)
        if elicit is None:
            return ElicitationAnswer("decline", reason="this front end cannot show a form")
        answer: ElicitationAnswer = await elicit(request)
        return answer

"""The session's answers to what its MCP servers ask (SPEC 22): sampling goes to the session's model once the
permission policy allows it (asked like a tool call, ``mcp__<server>__sampling``, in every mode but yolo, unless a
rule allows it); elicitation goes to the front end's form (the full screen's dialog, the ACP client's), or in a
run with nobody to ask is answered with the values configured for the server (``mcp_servers.<name>.elicitation``)
or declined, the user told why."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from engine.errors import ProviderError
from engine.events import Notice
from engine.interaction import ApprovalAnswer, ApprovalDecision, ApprovalRequest, ElicitationRequest
from engine.mcp.elicitation import SchemaError, form_content, form_fields
from engine.mcp.names import qualified_name
from engine.mcp.sampling import sample, sampling_preview
from engine.mcp.server_requests import INTERNAL_ERROR, USER_REJECTED
from engine.modes import Mode
from engine.policy import Action
from engine.tools.base import ToolKind

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts

INVALID_PARAMS = -32602


class SessionServerRequests:
    def __init__(self, orch: EngineParts) -> None:
        self._orch = orch

    async def sample(self, server: str, params: Any) -> Any:
        from mcp_types import ErrorData

        refusal = await self._approve_sampling(server, params)
        if refusal is not None:
            self._orch.emit(Notice(f"MCP server {server}: sampling request refused: {refusal}", level="warning"))
            return ErrorData(code=USER_REJECTED, message=refusal)
        try:
            return await sample(self._orch.provider(), self._orch.model, params)
        except ProviderError as exc:
            return ErrorData(code=INTERNAL_ERROR, message=f"the model could not answer: {exc}")

    async def elicit(self, server: str, params: Any) -> Any:
        from mcp_types import ElicitResult

        orch = self._orch
        url = getattr(params, "url", None)
        schema = dict(getattr(params, "requested_schema", None) or {})
        try:
            fields = form_fields(schema) if url is None else []
        except SchemaError as exc:
            from mcp_types import ErrorData

            return ErrorData(code=INVALID_PARAMS, message=f"cannot make a form of the requested schema: {exc}")
        if not orch.interactive:
            configured = self._configured_answer(server)
            if configured is None:
                orch.emit(Notice(f"MCP server {server} asked for input ({params.message}); declined: nobody can "
                                 f"answer in this run (set mcp_servers.{server}.elicitation to answer it)",
                                 level="warning"))
                return ElicitResult(action="decline")
            content, errors = form_content(fields, {**{f.name: f.default for f in fields}, **configured})
            if errors:
                problems = "; ".join(f"{name}: {error}" for name, error in errors.items())
                orch.emit(Notice(f"MCP server {server}: the configured mcp_servers.{server}.elicitation does not "
                                 f"fit its form ({problems}); declined", level="warning"))
                return ElicitResult(action="decline")
            return ElicitResult(action="accept", content=content)
        request = ElicitationRequest(server=server, message=params.message, schema=schema, url=url)
        answer = await orch.interaction.elicit(request)
        if answer.action != "accept":
            if answer.reason:
                orch.emit(Notice(f"MCP server {server} asked for input; declined: {answer.reason}", level="warning"))
            return ElicitResult(action="cancel" if answer.action == "cancel" else "decline")
        content, errors = form_content(fields, answer.content or {})
        if errors:
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content=content if fields else None)

    # -- inside -----------------------------------------------------------------------------------------------------
    def _configured_answer(self, server: str) -> dict[str, Any] | None:
        connection = self._orch.mcp.connections.get(server)
        return None if connection is None else connection.spec.config.elicitation

    async def _approve_sampling(self, server: str, params: Any) -> str | None:
        """None when the request may go to the model, else why not (the server hears it)."""
        orch = self._orch
        name = qualified_name(server, "sampling", set())
        decision = orch.policy.decide(name, ToolKind.MCP_READ_ONLY, {})
        if decision.action in (Action.BLOCKED, Action.DENY):
            return f"denied by policy ({decision.rule})"
        if orch.mode is Mode.YOLO or decision.action is Action.ALLOW:
            return None
        approvals = orch.approvals
        if approvals.auto_approve_ask:
            return None
        if not approvals.interactive:
            return "it needs the user's approval, which a non-interactive run cannot give"
        key, preview = sampling_preview(server, params)
        reply = await orch.interaction.request_approval(
            ApprovalRequest(
                call_id=f"sampling-{uuid.uuid4().hex[:8]}",
                tool=name,
                key_argument=key,
                arguments={"server": server, "max_tokens": params.max_tokens, "messages": len(params.messages)},
                reasons=(f"the MCP server {server} asks the model for an answer (sampling); the request is below",),
                preview=preview,
                always_scope=decision.always_scope,
            )
        )
        answer, why = (reply.decision, reply.reason) if isinstance(reply, ApprovalAnswer) else (reply, None)
        if answer is ApprovalDecision.CANCEL:
            return "cancelled by the user"
        if answer is ApprovalDecision.NO:
            return f"the user declined: {why}" if why else "the user declined"
        if answer in (ApprovalDecision.ALWAYS, ApprovalDecision.ALWAYS_PROJECT) and decision.allowances:
            orch.emit(Notice(orch.policy.allow_always(decision)))
        return None

"""One ACP session: an ``EngineHost`` (the same serving loop the TUI's engine process runs) with this session as
its front end. Events become ``session/update`` notifications, sent in order by one pump task; approvals become
``session/request_permission``; a prompt is ``run_input`` awaited to its stop reason."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any


from engine.events import Event
from engine.interaction import (
    ApprovalDecision,
    ApprovalRequest,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)
from engine.server.acp.permissions import decision_from, permission_options, permission_tool_call
from engine.server.acp.replay import replay_updates
from engine.server.acp.updates import UpdateMapper
from engine.server.host import EngineHost, EngineOptions

if TYPE_CHECKING:
    from acp import Client

    from engine.orchestrator import TurnOutcome

# Our turn endings as ACP stop reasons; an error is told as message text first and ends the turn normally.
STOP_REASONS = {"cancelled": "cancelled", "step_limit": "max_turn_requests"}


class AcpSession:
    def __init__(self, client: Client, workspace: Path, *, mode: str | None = None) -> None:
        self.client = client
        self.workspace = workspace
        self.host = EngineHost(EngineOptions(workspace=workspace, mode=mode), self)
        self.mapper = UpdateMapper(workspace)
        self.session_id = ""
        self._updates: asyncio.Queue[Any] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None
        self._muted = False

    async def start(self) -> str:
        state = await self.host.start()
        self.session_id = state.session_id
        self._pump = asyncio.create_task(self._send_updates())
        return self.session_id

    @property
    def mode(self) -> str:
        assert self.host.orchestrator is not None
        return self.host.orchestrator.mode.value

    def slash_commands(self) -> list[tuple[str, str]]:
        assert self.host.orchestrator is not None
        return self.host.orchestrator.slash_commands()

    async def load(self, session_id: str) -> None:
        """Switches to a stored session and tells its conversation again as updates. Raises ``ValueError`` with
        the engine's message when there is no such session."""
        self._muted = True
        try:
            outcome = await self.host.run_input(f"/resume {session_id}")
        finally:
            self._muted = False
        if not outcome.ok:
            raise ValueError(outcome.error or f"no session {session_id!r}")
        assert self.host.orchestrator is not None
        self.session_id = self.host.orchestrator.session_id
        for update in replay_updates(self.host.orchestrator.session.messages, self.workspace):
            self._updates.put_nowait(update)
        await self.flush()

    async def prompt(self, text: str) -> str:
        outcome: TurnOutcome = await self.host.run_input(text)
        await self.flush()
        return STOP_REASONS.get(outcome.reason, "end_turn")

    def cancel(self) -> None:
        self.host.cancel()

    def set_mode(self, mode: str) -> None:
        self.host.set_mode(mode)  # the ModeChanged event becomes a current_mode_update

    async def flush(self) -> None:
        """Waits until every update so far is sent (before a prompt's response, or a permission request)."""
        await self._updates.join()

    async def aclose(self) -> None:
        await self.host.aclose()
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump

    # -- the host's front end ---------------------------------------------------------------------------------------
    def event(self, event: Event) -> None:
        if self._muted:
            return
        for update in self.mapper.updates(event):
            self._updates.put_nowait(update)

    def input_started(self, input_id: str) -> None:
        pass

    def input_finished(self, input_id: str, outcome: TurnOutcome) -> None:
        pass

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        await self.flush()
        response = await self.client.request_permission(
            session_id=self.session_id, tool_call=permission_tool_call(request), options=permission_options(request)
        )
        return decision_from(response)

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        """ACP has no question dialog: the question is shown and the model told there is no answer, as headless."""
        self.event_text(f"\n(the model asked: {request.question}; answer it in your next prompt)\n")
        return QuestionAnswer(answer=None)

    async def request_trust(self, request: TrustRequest) -> TrustDecision:
        """ACP has no dialog for folder trust: the folder stays untrusted for this session (the notice naming the
        ignored keys says so) and ``/trust on`` trusts it."""
        return TrustDecision.LATER

    def event_text(self, text: str) -> None:
        from acp import update_agent_message_text

        self._updates.put_nowait(update_agent_message_text(text))

    async def _send_updates(self) -> None:
        while True:
            update = await self._updates.get()
            try:
                await self.client.session_update(session_id=self.session_id, update=update)
            except Exception:  # noqa: BLE001 - a client that drops an update must not stop the turn
                pass
            finally:
                self._updates.task_done()

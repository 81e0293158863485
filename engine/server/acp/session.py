"""One ACP session: an ``EngineHost`` (the same serving loop the TUI's engine process runs) with this session as
its front end. Events become ``session/update`` notifications, sent in order by one pump task; approvals become
``session/request_permission``; a prompt is ``run_input`` awaited to its stop reason.

Prompts run one at a time, in the order they arrived: a prompt sent while one runs waits for it (it is queued,
never refused). ``session/cancel`` cancels every prompt that arrived before it, the running one and any waiting:
so Zed's cancel-then-prompt at once always runs the new prompt, after the cancelled one has ended."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any


from engine.events import Event, HistoryRestored
from engine.interaction import (
    ApprovalDecision,
    ApprovalRequest,
    ElicitationAnswer,
    ElicitationRequest,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)
from engine.server.acp.elicitation import elicitation_mode
from engine.server.acp.permissions import decision_from, permission_options, permission_tool_call
from engine.server.acp.replay import replay_updates
from engine.server.acp.updates import UpdateMapper
from engine.mcp.specs import ServerSpec
from engine.server.host import EngineHost, EngineOptions

if TYPE_CHECKING:
    from acp import Client

    from engine.orchestrator.outcome import TurnOutcome

# Our turn endings as ACP stop reasons; an error is told as message text first and ends the turn normally.
STOP_REASONS = {"cancelled": "cancelled", "step_limit": "max_turn_requests"}


class AcpSession:
    def __init__(self, client: Client, workspace: Path, *, mode: str | None = None) -> None:
        self.client = client
        self.workspace = workspace
        self.host = EngineHost(EngineOptions(workspace=workspace, mode=mode, origin="acp"), self)
        self.mapper = UpdateMapper(workspace)
        self.session_id = ""
        self._updates: asyncio.Queue[Any] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None
        self._muted = False
        # The history a ``/resume`` sent while muted: what ``session/load`` tells again.
        self._history: HistoryRestored | None = None
        # What the client said it can show of MCP elicitation (``clientCapabilities.elicitation``), if anything.
        self.elicitation: Any = None
        # Models set through the config option that are not among the configured ones.
        self.models_chosen: list[str] = []
        self._turns = asyncio.Lock()
        # Prompts are numbered as they arrive; a cancel cancels every number up to the last one received.
        self._received = 0
        self._cancelled_upto = 0
        # Set by a cancel, so that a prompt waiting for the client's MCP servers stops waiting.
        self._cancelled = asyncio.Event()

    async def start(self, mcp_servers: list[ServerSpec] | None = None) -> str:
        """Starts the engine, and the session's MCP servers at once (the client's ``mcpServers`` among them), so
        their tools and prompts are there by the first prompt."""
        state = await self.host.start()
        self.session_id = state.session_id
        self._pump = asyncio.create_task(self._send_updates())
        assert self.host.orchestrator is not None
        self.host.orchestrator.mcp.extra_specs = list(mcp_servers or [])
        self.host.orchestrator.mcp.start()
        return self.session_id

    @property
    def mode(self) -> str:
        assert self.host.orchestrator is not None
        return self.host.orchestrator.mode.value

    def slash_commands(self) -> list[tuple[str, str]]:
        assert self.host.orchestrator is not None
        return self.host.orchestrator.slash_commands()

    async def load(self, session_id: str, *, replay: bool = True) -> None:
        """Switches to a stored session and (unless ``replay`` is false: ``session/resume``) tells its conversation
        again as updates. Raises ``ValueError`` with the engine's message when there is no such session."""
        self._muted = True
        try:
            outcome = await self.host.run_input(f"/resume {session_id}")
        finally:
            self._muted = False
        if not outcome.ok:
            raise ValueError(outcome.error or f"no session {session_id!r}")
        assert self.host.orchestrator is not None
        self.session_id = self.host.orchestrator.session_id
        history, self._history = self._history, None
        if replay and history is not None:
            todos = self.host.orchestrator.tool_context.todos.items
            for update in replay_updates(history.entries(), self.workspace, todos):
                self._updates.put_nowait(update)
        await self.flush()

    async def prompt(self, text: str) -> str:
        """Runs ``text`` once the prompts before it have ended; "cancelled" at once when a cancel came after it."""
        self._received += 1
        number = self._received
        async with self._turns:
            if number <= self._cancelled_upto:
                return "cancelled"
            await self._client_servers_started()
            if number <= self._cancelled_upto:
                return "cancelled"
            outcome: TurnOutcome = await self.host.run_input(text)
        await self.flush()
        return STOP_REASONS.get(outcome.reason, "end_turn")

    async def _client_servers_started(self) -> None:
        """The servers the client gave are waited for (bounded by their start-up timeout) before a prompt, as in a
        headless run: the editor asked for their tools. The session's own servers start as in the TUI."""
        assert self.host.orchestrator is not None
        manager = self.host.orchestrator.mcp
        if not manager.extra_specs:
            return
        settled = asyncio.ensure_future(manager.settle())  # at once when they have started (or failed)
        cancelled = asyncio.ensure_future(self._cancelled.wait())
        try:
            await asyncio.wait([settled, cancelled], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (settled, cancelled):
                waiter.cancel()
            await asyncio.gather(settled, cancelled, return_exceptions=True)

    def cancel(self) -> None:
        self._cancelled_upto = self._received
        self._cancelled.set()
        self._cancelled = asyncio.Event()  # for the prompts after this cancel
        self.host.cancel()

    def set_mode(self, mode: str) -> None:
        self.host.set_mode(mode)  # the ModeChanged event becomes a current_mode_update

    def set_model(self, model: str) -> None:
        """For this session (``ConfigError`` for an unknown provider profile); the choice joins the model option's
        choices."""
        assert self.host.orchestrator is not None
        self.host.orchestrator.set_model(model)
        if model not in self.models_chosen:
            self.models_chosen.append(model)

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
    def event(self, event: Event, session_id: str | None = None) -> None:
        if self._muted:
            if isinstance(event, HistoryRestored):
                self._history = event
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

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """An MCP server's form goes to the editor when it said it can show one (``elicitation`` in its
        capabilities); otherwise it is declined, and the user told why."""
        capability = self.elicitation
        wanted = None if capability is None else capability.url if request.url else capability.form
        if wanted is None:
            kind = "an address to open" if request.url else "a form"
            return ElicitationAnswer("decline", reason=f"this editor (ACP client) cannot show {kind}")
        await self.flush()
        try:
            response = await self.client.create_elicitation(
                message=f"{request.server}: {request.message}", mode=elicitation_mode(self.session_id, request)
            )
        except Exception as exc:  # noqa: BLE001 - the server hears "decline", the user why
            return ElicitationAnswer("decline", reason=f"the editor could not show it: {exc}")
        action = response.action if response.action in ("accept", "decline", "cancel") else "decline"
        return ElicitationAnswer(action, getattr(response, "content", None))

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

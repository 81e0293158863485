"""The TUI's ``InteractionHandler``: approvals and questions are modal dialogs the engine awaits.

If the task is cancelled while a dialog is open (Ctrl+C), the dialog is closed, so nothing waits for an answer
nobody needs any more.
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

from textual.app import App
from textual.screen import ModalScreen

from engine.interaction import (
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequest,
    ElicitationAnswer,
    ElicitationRequest,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)

ResultT = TypeVar("ResultT")


class TuiInteraction:
    """Implements ``engine.interaction.InteractionHandler`` with ``ApprovalScreen``, ``QuestionScreen``,
    ``TrustScreen`` and ``ElicitationScreen``."""

    def __init__(self, app: App[object]) -> None:
        self._app = app
        # One dialog at a time, in the order the requests arrived (several agents may ask at once; SPEC 26): the
        # next opens when the one before is answered or withdrawn.
        self._in_order = asyncio.Lock()

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        # The dialogs are imported when first needed, not before the first frame.
        from coder_tui.screens.approval import ApprovalScreen

        who = f"agent {request.agent}: " if request.agent is not None else ""
        self._call_user(f"{who}{request.tool} waits for your approval")
        return await self._ask(ApprovalScreen(request))

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        from coder_tui.screens.question import QuestionScreen

        self._call_user("a question waits for your answer")
        return await self._ask(QuestionScreen(request))

    async def request_trust(self, request: TrustRequest) -> TrustDecision:
        from coder_tui.screens.trust import TrustScreen

        return await self._ask(TrustScreen(request))

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        from coder_tui.screens.elicitation import ElicitationScreen

        self._call_user(f"the MCP server {request.server} waits for your input")
        return await self._ask(ElicitationScreen(request))

    def _call_user(self, message: str) -> None:
        """A notification when the terminal is not focused (the app's ``Attention``, where it has one)."""
        attention = getattr(self._app, "attention", None)
        if attention is not None:
            attention.call(message)

    async def _ask(self, screen: ModalScreen[ResultT]) -> ResultT:
        async with self._in_order:
            return await self._shown(screen)

    async def _shown(self, screen: ModalScreen[ResultT]) -> ResultT:
        answer: asyncio.Future[ResultT] = asyncio.get_running_loop().create_future()

        def settle(result: ResultT | None) -> None:
            if not answer.done() and result is not None:
                answer.set_result(result)

        self._app.push_screen(screen, callback=settle)
        try:
            return await answer
        except asyncio.CancelledError:
            if screen.is_attached and self._app.screen is screen:
                self._app.pop_screen()
            raise

"""``LineSession``: the JSON-lines protocol of ``engine.protocol`` on top of the serving loop (``EngineHost``).

It reads commands as lines from any async source and writes replies as lines to any sink; the transports
(``stdio`` for the engine process, ``memory`` for tests) only move lines.

A model streams a delta every few milliseconds (a fast one: a line per millisecond, each a read, a parse and a
callback in the client's UI process). Consecutive text or reasoning deltas are sent as one, at most
``DELTA_INTERVAL_S`` after the first: the client draws streamed text a few times a second anyway. Any other message
sends the waiting text first, so the order is kept.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from engine.events import ErrorEvent, Event, ReasoningDelta, TextDelta
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
from engine.protocol import (
    CODEC,
    AnswerRequest,
    Cancel,
    Codec,
    EngineEvent,
    EngineFailed,
    EngineReady,
    InputFinished,
    InputStarted,
    InteractionRequested,
    InteractionWithdrawn,
    ProtocolError,
    RunInput,
    SetMode,
    Shutdown,
)
from engine.server.host import EngineHost, EngineOptions

if TYPE_CHECKING:
    from engine.config import Config
    from engine.orchestrator.outcome import TurnOutcome

log = logging.getLogger(__name__)

# How long a streamed delta may wait for the ones after it before it is sent.
DELTA_INTERVAL_S = 0.02


class LineSession:
    """Serves one client: ``serve(lines)`` runs until ``Shutdown`` or the end of the input, then closes the engine."""

    def __init__(
        self,
        options: EngineOptions,
        write_line: Callable[[str], None],
        *,
        config: Config | None = None,
        codec: Codec = CODEC,
    ) -> None:
        self._write_line = write_line
        self._codec = codec
        self.host = EngineHost(options, self, config=config)
        self._answers: dict[str, asyncio.Future[Any]] = {}
        self._request_ids = (f"r{number}" for number in itertools.count(1))
        # Streamed text waiting to be sent: its kind, its session, its parts, and the timer that sends it.
        self._delta_kind: type[TextDelta] | type[ReasoningDelta] | None = None
        self._delta_session: str | None = None
        self._delta_parts: list[str] = []
        self._delta_timer: asyncio.TimerHandle | None = None

    async def serve(self, lines: AsyncIterator[str]) -> None:
        # Commands are read while the engine starts: starting may ask the client something (the folder-trust
        # question), and inputs sent early wait in the host's queue.
        reader = asyncio.create_task(self._read(lines))
        starting = asyncio.create_task(self.host.start())
        try:
            await asyncio.wait({starting, reader}, return_when=asyncio.FIRST_COMPLETED)
            if not starting.done():  # the client left or shut down while the engine was starting
                return
            try:
                starting.result()
            except Exception as exc:  # the client shows why; the traceback goes to the log
                log.exception("the engine could not start")
                self._send(EngineFailed(f"the engine could not start: {type(exc).__name__}: {exc}"))
                return
            # The state as it is now: a queued input (the opening /resume) may have run since the start returned,
            # and its events (the resumed session's model) went out before this.
            self._send(EngineReady(self.host.state()))
            await reader
        finally:
            for task in (starting, reader):
                task.cancel()
            await asyncio.gather(starting, reader, return_exceptions=True)
            for answer in self._answers.values():
                answer.cancel()
            await self.host.aclose()
            self._send_delta()

    async def _read(self, lines: AsyncIterator[str]) -> None:
        async for line in lines:
            if line.strip() and not self._handle(line):
                return

    def _handle(self, line: str) -> bool:
        """Applies one command; False on ``Shutdown``."""
        try:
            command = self._codec.loads(line)
        except ProtocolError as exc:
            self._send(EngineEvent(ErrorEvent(f"engine protocol: {exc}")))
            return True
        match command:
            case RunInput(input_id=input_id, text=text):
                self.host.submit(input_id, text)
            case Cancel():
                self.host.cancel()
            case SetMode(mode=mode):
                try:
                    self.host.set_mode(mode)
                except ValueError as exc:
                    self._send(EngineEvent(ErrorEvent(str(exc))))
            case AnswerRequest(request_id=request_id, answer=answer):
                future = self._answers.get(request_id)
                if future is not None and not future.done():
                    future.set_result(answer)
            case Shutdown():
                return False
            case _:
                self._send(EngineEvent(ErrorEvent(f"engine protocol: {type(command).__name__} is not a command")))
        return True

    def _send(self, message: object) -> None:
        self._send_delta()
        self._write_line(self._codec.dumps(message))

    def _send_delta(self) -> None:
        """Sends the streamed text waiting, as one delta."""
        kind, parts = self._delta_kind, self._delta_parts
        if self._delta_timer is not None:
            self._delta_timer.cancel()
            self._delta_timer = None
        if kind is None:
            return
        self._delta_kind, self._delta_parts = None, []
        self._write_line(self._codec.dumps(EngineEvent(kind("".join(parts)), self._delta_session)))

    # Frontend ---------------------------------------------------------------------------------------------------
    def event(self, event: Event, session_id: str | None = None) -> None:
        if isinstance(event, TextDelta | ReasoningDelta):
            if type(event) is not self._delta_kind or session_id != self._delta_session:
                self._send_delta()
                self._delta_kind, self._delta_session = type(event), session_id
                self._delta_timer = asyncio.get_running_loop().call_later(DELTA_INTERVAL_S, self._send_delta)
            self._delta_parts.append(event.text)
            return
        self._send(EngineEvent(event, session_id))

    def input_started(self, input_id: str) -> None:
        self._send(InputStarted(input_id))

    def input_finished(self, input_id: str, outcome: TurnOutcome) -> None:
        self._send(InputFinished(input_id, outcome.reason, outcome.error, outcome.text, self.host.state()))

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        answer = await self._ask(request)
        return answer if isinstance(answer, ApprovalDecision | ApprovalAnswer) else ApprovalDecision.CANCEL

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        answer = await self._ask(request)
        return answer if isinstance(answer, QuestionAnswer) else QuestionAnswer(None, cancelled=True)

    async def request_trust(self, request: TrustRequest) -> TrustDecision:
        answer = await self._ask(request)
        return answer if isinstance(answer, TrustDecision) else TrustDecision.LATER

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        answer = await self._ask(request)
        return answer if isinstance(answer, ElicitationAnswer) else ElicitationAnswer("cancel")

    async def _ask(self, request: ApprovalRequest | QuestionRequest | TrustRequest | ElicitationRequest) -> object:
        request_id = next(self._request_ids)
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._answers[request_id] = future
        self._send(InteractionRequested(request_id, request))
        try:
            return await future
        except asyncio.CancelledError:
            self._send(InteractionWithdrawn(request_id))
            raise
        finally:
            del self._answers[request_id]

"""``LineSession``: the JSON-lines protocol of ``engine.protocol`` on top of the serving loop (``EngineHost``).

It reads commands as lines from any async source and writes replies as lines to any sink; the transports
(``stdio`` for the engine process, ``memory`` for tests) only move lines.

A model streams a delta every few milliseconds (a fast one: a line per millisecond, each a read, a parse and a
callback in the client's UI process). Consecutive text or reasoning deltas are sent as one, at most
``DELTA_INTERVAL_S`` after the first: the client draws streamed text a few times a second anyway. Any other message
sends the waiting text first, so the order is kept.

With a ``Detaching`` (the engine process's), a client may leave the engine running (``Detach``): the session stops
reading it and serves the clients that attach later, one at a time (``attach``); each first gets what it needs to
show the engine as it is (``catch_up``). Interaction requests keep waiting for an answer across clients.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

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
    Attached,
    Cancel,
    Codec,
    Detach,
    Detached,
    DetachFailed,
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
    from engine.protocol.schema import InteractionRequest

log = logging.getLogger(__name__)

# How long a streamed delta may wait for the ones after it before it is sent.
DELTA_INTERVAL_S = 0.02

# How a client's lines ended: ``Shutdown``, the end of its input, or ``Detach`` (the engine keeps running).
Ending = Literal["shutdown", "ended", "detached"]


class Detaching(Protocol):
    """Where a detached engine waits for its next client (``engine.server.detached.DetachedServing``)."""

    async def open(self, session: LineSession) -> str:
        """Starts listening for clients of ``session``; returns where (raises ``OSError`` or a ``RendezvousError``
        when it cannot)."""

    async def serve(self, session: LineSession) -> None:
        """Serves the clients that attach until one shuts the engine down or it ends idle."""

    async def close(self) -> None: ...


def _nowhere(line: str) -> None:
    """Where replies go while no client is attached: what they said reaches the next client as ``catch_up``."""


class LineSession:
    """Serves a client: ``serve(lines)`` runs until ``Shutdown`` or the end of the input (after ``Detach``: until the
    detached engine ends), then closes the engine."""

    def __init__(
        self,
        options: EngineOptions,
        write_line: Callable[[str], None],
        *,
        config: Config | None = None,
        codec: Codec = CODEC,
        detaching: Detaching | None = None,
    ) -> None:
        self._write_line = write_line
        self._codec = codec
        self._detaching = detaching
        self.host = EngineHost(options, self, config=config)
        self._answers: dict[str, asyncio.Future[Any]] = {}
        # The requests waiting for an answer, in the order asked: a client that attaches is asked them again.
        self._asked: dict[str, InteractionRequest] = {}
        # When the session last sent something (``time.monotonic``): a detached engine ends after long quiet.
        self.last_activity = time.monotonic()
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
            if await reader == "detached" and self._detaching is not None:
                await self._detaching.serve(self)
        finally:
            for task in (starting, reader):
                task.cancel()
            await asyncio.gather(starting, reader, return_exceptions=True)
            for answer in self._answers.values():
                answer.cancel()
            await self.host.aclose()
            self._send_delta()
            if self._detaching is not None:
                await self._detaching.close()

    async def attach(self, write_line: Callable[[str], None], lines: AsyncIterator[str], greeting: Attached) -> Ending:
        """Serves a client that attached to the detached engine until it leaves; first tells it what it needs."""
        self._send_delta()  # text streamed while no client was attached went nowhere: the greeting comes first
        self._write_line = write_line
        self._send(greeting)
        for message in self._catch_up():
            self._send(message)
        try:
            return await self._read(lines)
        finally:
            self._send_delta()
            self._write_line = _nowhere
            self.last_activity = time.monotonic()

    def _catch_up(self) -> list[object]:
        """What a client attaching now needs to show the engine as it is: the main session's history, its todos and
        the agents, the state, the input still running, and the requests still waiting for an answer."""
        host = self.host
        messages: list[object] = [EngineEvent(event) for event in host.catch_up()]
        messages.append(EngineReady(host.state()))
        if host.running_input is not None:
            messages.append(InputStarted(host.running_input))
        messages += [InteractionRequested(request_id, request) for request_id, request in self._asked.items()]
        return messages

    async def _read(self, lines: AsyncIterator[str]) -> Ending:
        async for line in lines:
            if not line.strip():
                continue
            match self._handle(line):
                case "shutdown":
                    return "shutdown"
                case "detached" if await self._detach():
                    return "detached"
        return "ended"

    async def _detach(self) -> bool:
        """Starts waiting for the next client and leaves this one; False (said to it) when that cannot be done."""
        if self._detaching is None:
            self._send(DetachFailed("this engine cannot keep running without its front end"))
            return False
        from engine.server.rendezvous import RendezvousError

        try:
            where = await self._detaching.open(self)
        except (OSError, RendezvousError) as exc:
            log.warning("could not detach: %s", exc)
            self._send(DetachFailed(f"cannot leave the agents running: {exc}"))
            return False
        self._send(Detached(where))
        self._write_line = _nowhere
        return True

    def _handle(self, line: str) -> Ending | None:
        """Applies one command; says when the client's lines end (``Shutdown``, ``Detach``)."""
        try:
            command = self._codec.loads(line)
        except ProtocolError as exc:
            self._send(EngineEvent(ErrorEvent(f"engine protocol: {exc}")))
            return None
        match command:
            case RunInput(input_id=input_id, text=text):
                self.host.submit(input_id, text)
            case Cancel(agents=True):
                self.host.cancel_agents()
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
                return "shutdown"
            case Detach():
                return "detached"
            case _:
                self._send(EngineEvent(ErrorEvent(f"engine protocol: {type(command).__name__} is not a command")))
        return None

    def _send(self, message: object) -> None:
        self._send_delta()
        self.last_activity = time.monotonic()
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
        self._asked[request_id] = request
        self._send(InteractionRequested(request_id, request))
        try:
            return await future
        except asyncio.CancelledError:
            self._send(InteractionWithdrawn(request_id))
            raise
        finally:
            del self._answers[request_id]
            del self._asked[request_id]

"""The engine protocol, version 1: what a front end and the engine say to each other over a pipe.

One JSON object per line, ``{"type": <name>, ...fields}`` (see ``codec``). The engine's events
(``engine.events.Event``) and interaction requests and answers (``engine.interaction``) are carried as they are,
so a new event or request crosses the pipe without a change here.

A session, front end (client) to engine (server)::

    engine  → EngineReady(state)                      once loaded; or EngineFailed(message) and the engine exits
    client  → RunInput(input_id, text)                 queued in the engine; runs after the ones before it
    engine  → InputStarted(input_id)
    engine  → EngineEvent(event) ...                   everything the input does, in order
    engine  → InteractionRequested(request_id, request)   an approval or a question; the input waits (also the
                                                       folder-trust question, asked while the engine starts)
    client  → AnswerRequest(request_id, answer)
    engine  → InteractionWithdrawn(request_id)         the input was cancelled; close the dialog, send no answer
    engine  → InputFinished(input_id, reason, error, text, state)
    client  → Cancel()                                 stops the running input (Esc); queued inputs still run
    client  → SetMode(mode)                            answered by an EngineEvent(ModeChanged)
    client  → Shutdown()                               cancels what runs, closes the store; the engine exits

Inputs may be sent before ``EngineReady``: they wait in the engine. A client checks ``state.protocol_version``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import Event, TurnEndReason
from engine.interaction import (
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequest,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)

PROTOCOL_VERSION = 1

InteractionRequest = ApprovalRequest | QuestionRequest | TrustRequest
InteractionAnswer = ApprovalDecision | ApprovalAnswer | QuestionAnswer | TrustDecision


@dataclass(frozen=True)
class EngineState:
    """What a front end shows about the engine before and between inputs."""

    protocol_version: int
    workspace: str
    session_id: str
    model: str
    mode: str
    context_window: int
    # (name, summary) of every slash command, for completion and /help.
    slash_commands: tuple[tuple[str, str], ...]
    # The colour theme the configuration names, if any.
    theme: str | None = None
    # How to configure a model while none is (no key, no server URL): the status line must not name one as if set.
    missing_model_setup: str | None = None


# -- client → engine ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunInput:
    input_id: str
    text: str


@dataclass(frozen=True)
class Cancel:
    pass


@dataclass(frozen=True)
class SetMode:
    mode: str


@dataclass(frozen=True)
class AnswerRequest:
    request_id: str
    answer: InteractionAnswer


@dataclass(frozen=True)
class Shutdown:
    pass


Command = RunInput | Cancel | SetMode | AnswerRequest | Shutdown


# -- engine → client ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EngineReady:
    state: EngineState


@dataclass(frozen=True)
class EngineFailed:
    """The engine could not start (a damaged config or database...); it exits after sending this."""

    message: str


@dataclass(frozen=True)
class EngineEvent:
    event: Event


@dataclass(frozen=True)
class InputStarted:
    input_id: str


@dataclass(frozen=True)
class InputFinished:
    input_id: str
    reason: TurnEndReason
    error: str | None
    text: str
    # The state after the input: /resume and /new change the session, /model the model.
    state: EngineState


@dataclass(frozen=True)
class InteractionRequested:
    request_id: str
    request: InteractionRequest


@dataclass(frozen=True)
class InteractionWithdrawn:
    request_id: str


Reply = (
    EngineReady | EngineFailed | EngineEvent | InputStarted | InputFinished | InteractionRequested | InteractionWithdrawn
)

ProtocolMessage = Command | Reply

"""The engine protocol, version 1: what a front end and the engine say to each other over a pipe.

One JSON object per line, ``{"type": <name>, ...fields}`` (see ``codec``). The engine's events
(``engine.events.Event``) and interaction requests and answers (``engine.interaction``) are carried as they are,
so a new event or request crosses the pipe without a change here.

A session, front end (client) to engine (server)::

    engine  → EngineReady(state)                      once loaded; or EngineFailed(message) and the engine exits
    client  → RunInput(input_id, text)                 queued in the engine; runs after the ones before it
    engine  → InputStarted(input_id)
    engine  → EngineEvent(event, session_id) ...       everything the input does, in order, with its session
    engine  → InteractionRequested(request_id, request)   an approval, a question or an MCP server's form; the input waits (also the
                                                       folder-trust question, asked while the engine starts)
    client  → AnswerRequest(request_id, answer)
    engine  → InteractionWithdrawn(request_id)         the input was cancelled; close the dialog, send no answer
    engine  → InputFinished(input_id, reason, error, text, state)
    client  → Cancel()                                 stops the running input (Esc); queued inputs still run
    client  → SetMode(mode)                            answered by an EngineEvent(ModeChanged)
    client  → Shutdown()                               cancels what runs, closes the store; the engine exits
    client  → Detach()                                 the client leaves, the engine keeps running (SPEC 26)
    engine  → Detached(socket)                         it listens there for the next client; it reads no more lines
                                                       from this one (``engine.server.detached``); or
    engine  → DetachFailed(message)                    it cannot, and goes on serving this client

A client that attaches to a detached engine over its socket first hears ``Attached(pid, workspace)`` (or
``AttachRefused(message)``, and the socket closes), then what a new client needs: the main session's history, its
todos, the agents, ``EngineReady``, ``InputStarted`` for an input still running, and every interaction still waiting
for an answer, in the order it was asked.

Inputs may be sent before ``EngineReady``: they wait in the engine. A client checks ``state.protocol_version``.
"""

from __future__ import annotations

from engine.events import Event, TurnEndReason
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
from engine.record import record

PROTOCOL_VERSION = 1

InteractionRequest = ApprovalRequest | QuestionRequest | TrustRequest | ElicitationRequest
InteractionAnswer = ApprovalDecision | ApprovalAnswer | QuestionAnswer | TrustDecision | ElicitationAnswer


@record
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
    # Vim keys in the prompt, as the configuration says.
    vim: bool = False
    # How to configure a model while none is (no key, no server URL): the status line must not name one as if set.
    missing_model_setup: str | None = None
    # ``status_line.command`` and its timeout in seconds (SPEC 27): the front end runs it for its status line.
    status_line_command: str | None = None
    status_line_timeout_s: float = 2.0


# -- client → engine ------------------------------------------------------------------------------------------------
@record
class RunInput:
    input_id: str
    text: str


@record
class Cancel:
    """Stops the running input; with ``agents``, every running agent instead (at once: it does not wait in the
    input queue behind a running turn)."""

    agents: bool = False


@record
class SetMode:
    mode: str


@record
class AnswerRequest:
    request_id: str
    answer: InteractionAnswer


@record
class Shutdown:
    pass


@record
class Detach:
    pass


Command = RunInput | Cancel | SetMode | AnswerRequest | Shutdown | Detach


# -- engine → client ------------------------------------------------------------------------------------------------
@record
class EngineReady:
    state: EngineState


@record
class EngineFailed:
    """The engine could not start (a damaged config or database...); it exits after sending this."""

    message: str


@record
class EngineEvent:
    event: Event
    # The session the event belongs to (several may run turns at once); None: the engine's own, or an engine that
    # does not say (a client of an earlier engine reads the field as absent).
    session_id: str | None = None


@record
class InputStarted:
    input_id: str


@record
class InputFinished:
    input_id: str
    reason: TurnEndReason
    error: str | None
    text: str
    # The state after the input: /resume and /new change the session, /model the model.
    state: EngineState


@record
class InteractionRequested:
    request_id: str
    request: InteractionRequest


@record
class InteractionWithdrawn:
    request_id: str


@record
class Detached:
    """The engine listens on ``socket`` for the next client (``coder-tui --attach``)."""

    socket: str


@record
class DetachFailed:
    """The engine cannot wait for another client (an untrustworthy socket folder...); this one stays attached."""

    message: str


@record
class Attached:
    """The first line a client attaching over the socket hears: the engine's process and workspace."""

    pid: int
    workspace: str


@record
class AttachRefused:
    """Another client is attached; the socket closes after this."""

    message: str


Reply = (
    EngineReady
    | EngineFailed
    | EngineEvent
    | InputStarted
    | InputFinished
    | InteractionRequested
    | InteractionWithdrawn
    | Detached
    | DetachFailed
    | Attached
    | AttachRefused
)

ProtocolMessage = Command | Reply

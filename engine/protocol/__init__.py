"""The engine protocol: the message types a front end and the engine exchange (``schema``), and their JSON-lines
codec (``codec``). Imports nothing heavy (no pydantic, no SDK), so the UI process can use it.

``CODEC`` knows every protocol message, every engine event and every interaction request and answer.
"""

from __future__ import annotations

from engine.protocol.codec import Codec, ProtocolError
from engine.protocol.records import MessageRecord
from engine.protocol.schema import (
    PROTOCOL_VERSION,
    AnswerRequest,
    Attached,
    AttachRefused,
    Cancel,
    Command,
    Detach,
    Detached,
    DetachFailed,
    EngineEvent,
    EngineFailed,
    EngineReady,
    EngineState,
    InputFinished,
    InputStarted,
    InteractionRequested,
    InteractionWithdrawn,
    ProtocolMessage,
    Reply,
    RunInput,
    SetMode,
    Shutdown,
)

CODEC = Codec([ProtocolMessage])

__all__ = [
    "CODEC",
    "PROTOCOL_VERSION",
    "AnswerRequest",
    "AttachRefused",
    "Attached",
    "Cancel",
    "Codec",
    "Command",
    "Detach",
    "DetachFailed",
    "Detached",
    "EngineEvent",
    "EngineFailed",
    "EngineReady",
    "EngineState",
    "InputFinished",
    "InputStarted",
    "InteractionRequested",
    "InteractionWithdrawn",
    "MessageRecord",
    "ProtocolError",
    "ProtocolMessage",
    "Reply",
    "RunInput",
    "SetMode",
    "Shutdown",
]

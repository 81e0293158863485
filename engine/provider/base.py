"""The provider port: stream one chat completion as a sequence of small typed chunks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from engine.messages import Usage
from engine.record import record


@record
class TextChunk:
    """Answer text; ``refusal`` marks the text of ``delta.refusal``, which is the answer too, shown as a refusal."""

    text: str
    refusal: bool = False


@record
class ReasoningChunk:
    text: str


@record
class ToolCallChunk:
    """One tool-call delta as the server sent it; ``StreamAssembler`` joins them by ``index``."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    # Fields beyond the standard ones (Gemini's ``extra_content``...), sent back with the call in later requests.
    extra: dict[str, Any] | None = None


@record
class ExtraChunk:
    """Fields of the assistant message beyond the standard ones (``reasoning_content``, ``reasoning_details``...),
    as the server sent them in one delta: kept on the message and sent back unchanged in later requests."""

    fields: dict[str, Any]


@record
class UsageChunk:
    usage: Usage


@record
class FinishChunk:
    reason: str | None


@record
class RetryNotice:
    """The provider is about to retry after a retryable failure (429, 5xx, connection error)."""

    attempt: int
    max_attempts: int
    delay_s: float
    reason: str


StreamChunk = TextChunk | ReasoningChunk | ToolCallChunk | ExtraChunk | UsageChunk | FinishChunk | RetryNotice


@record
class ChatRequest:
    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    # The session's id: sent as ``prompt_cache_key`` to servers that take it, so its requests meet their cache.
    cache_key: str | None = None


class ChatProvider(Protocol):
    def stream(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        """Streams one completion. Raises ``ProviderError`` (root cause kept) for failures it could not retry;
        never wraps ``asyncio.CancelledError``; closes the HTTP stream when the consumer stops or is cancelled."""
        ...

    async def aclose(self) -> None:
        """Releases connections; called when the front end shuts the orchestrator down."""
        ...

    async def list_models(self) -> list[str]:
        """The model names the server offers; ``ProviderError`` when it cannot say."""
        ...

"""The ``ChatProvider`` adapter for any OpenAI-compatible Chat Completions server, through the ``openai`` SDK.

``openai`` is imported only when the first request is made: the TUI imports this module before its first frame.
The SDK's own retries are switched off because ours yield a ``RetryNotice`` the user can see before each wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from engine.errors import ProviderError
from engine.messages import Usage
from engine.provider.base import (
    ChatRequest,
    FinishChunk,
    ReasoningChunk,
    RetryNotice,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from engine.provider.retry import backoff_delay, is_retryable_status, parse_retry_after

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# Keyless local servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK refuses to start without one.
NO_API_KEY_PLACEHOLDER = "no-api-key"
# DeepSeek, vLLM and Qwen stream reasoning as ``reasoning_content``; OpenRouter and others as ``reasoning``.
_REASONING_FIELDS = ("reasoning_content", "reasoning")
_MAX_DETAIL_CHARS = 300


class OpenAIProvider:
    """Streams chat completions with tools; retries transient failures with visible notices."""

    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float = 120,
        max_retries: int = 3,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 30.0,
    ) -> None:
        """``base_url=None`` uses the SDK default (``OPENAI_BASE_URL`` or api.openai.com); ``api_key=None`` sends a
        placeholder. ``timeout`` bounds the connection and each wait for the next chunk."""
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {max_retries}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self._base_url = base_url
        self._api_key = api_key or NO_API_KEY_PLACEHOLDER
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self._sdk_client: AsyncOpenAI | None = None

    @property
    def base_url(self) -> str:
        """The URL requests go to, for error messages (the SDK's default when none was given)."""
        if self._base_url is not None:
            return self._base_url
        return str(self._client().base_url).rstrip("/")

    def _client(self) -> AsyncOpenAI:
        if self._sdk_client is None:
            from openai import AsyncOpenAI

            self._sdk_client = AsyncOpenAI(
                base_url=self._base_url, api_key=self._api_key, timeout=self.timeout, max_retries=0
            )
        return self._sdk_client

    async def aclose(self) -> None:
        """Closes the HTTP connection pool; the provider can still be used afterwards (a new pool is made)."""
        if self._sdk_client is not None:
            client, self._sdk_client = self._sdk_client, None
            await client.close()

    async def list_models(self) -> list[str]:
        """The model names the server offers (``GET /models``), sorted; ``ProviderError`` when it offers none."""
        import openai

        try:
            page = await self._client().models.list()
            names = [model.id async for model in page]
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure leaves this adapter as a ProviderError
            raise self._describe(exc, "", openai) from exc
        return sorted(names)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        """Yields the completion's chunks; see ``ChatProvider.stream`` for the failure and cancellation contract.

        ``RetryNotice.attempt`` counts retries (1 for the first) and ``max_attempts`` is ``max_retries``.
        """
        import openai

        client = self._client()
        # The SDK walks every message through its TypedDict transform before sending (about 0.2 ms a message, on
        # the event loop: 80 ms for a 400-message history, stalling the UI on every request). Our messages and tools
        # are plain JSON already, so they travel in ``extra_body``, which the SDK sends as it is.
        raw_body: dict[str, Any] = {"messages": request.messages}
        if request.tools:
            raw_body["tools"] = request.tools
        arguments: dict[str, Any] = {
            "model": request.model,
            "messages": [],
            "stream": True,
            "stream_options": {"include_usage": True},
            "extra_body": raw_body,
        }
        retry = 0
        while True:
            yielded = False
            try:
                sdk_stream = await client.chat.completions.create(**arguments)
                try:
                    async for sdk_chunk in sdk_stream:
                        for chunk in _chunks_from(sdk_chunk):
                            yielded = True
                            yield chunk
                finally:
                    # Also on cancellation or an abandoned generator: the server must see the connection close.
                    await sdk_stream.close()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - every failure leaves this adapter as a ProviderError
                error = self._describe(exc, request.model, openai)
                if yielded:
                    # The server was reached, so a dropped link is named by its cause, not as "cannot reach".
                    dropped = isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError)
                    detail = _root_cause(exc) if dropped else str(error)
                    raise ProviderError(f"the stream broke off: {detail}", status=error.status) from exc
                if not error.retryable or retry >= self.max_retries:
                    raise error from exc
                retry += 1
                delay = backoff_delay(
                    retry,
                    base_delay=self.retry_base_delay,
                    max_delay=self.retry_max_delay,
                    retry_after=_retry_after(exc, openai),
                )
                notice = RetryNotice(attempt=retry, max_attempts=self.max_retries, delay_s=delay, reason=str(error))
            yield notice
            await asyncio.sleep(notice.delay_s)

    def _describe(self, exc: Exception, model: str, openai: Any) -> ProviderError:
        """One readable line for the user, with the status and whether a retry could help."""
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _server_message(exc)
            if status == 401:
                message = "authentication failed (401): check the API key (OPENAI_API_KEY)"
            elif status == 404:
                message = f"not found (404): check the model name '{model}' and the base URL '{self.base_url}'"
            elif status == 429:
                message = f"rate limited (429): {detail}"
            elif status >= 500:
                message = f"server error ({status}): {detail}"
            else:
                message = f"request rejected ({status}): {detail}"
            return ProviderError(message, status=status, retryable=is_retryable_status(status))
        if isinstance(exc, openai.APITimeoutError):
            return ProviderError(f"the model server did not answer within {self.timeout:g}s", retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            return ProviderError(f"cannot reach the model server at {self.base_url}: {_root_cause(exc)}",
                                 retryable=True)
        if isinstance(exc, openai.APIError):  # an error event inside the stream
            return ProviderError(f"the model server reported an error: {_one_line(exc.message)}")
        return ProviderError(f"unexpected answer from the model server: {type(exc).__name__}: {_one_line(str(exc))}")


def _chunks_from(sdk_chunk: Any) -> Iterator[StreamChunk]:
    """Our chunks for one SDK ``ChatCompletionChunk``. Fields are read defensively: the SDK builds stream chunks
    without validation, and servers omit fields OpenAI always sends."""
    for choice in getattr(sdk_chunk, "choices", None) or []:
        delta = getattr(choice, "delta", None)
        if delta is not None:
            for field in _REASONING_FIELDS:
                reasoning = getattr(delta, field, None)
                if isinstance(reasoning, str) and reasoning:
                    yield ReasoningChunk(reasoning)
                    break
            content = getattr(delta, "content", None)
            if isinstance(content, str) and content:
                yield TextChunk(content)
            for position, call in enumerate(getattr(delta, "tool_calls", None) or []):
                function = getattr(call, "function", None)
                index = getattr(call, "index", None)
                yield ToolCallChunk(
                    # Some servers leave out the index and send each call whole: its place in the list stands in.
                    index=index if isinstance(index, int) else position,
                    id=getattr(call, "id", None) or None,
                    name=getattr(function, "name", None) or None,
                    arguments=getattr(function, "arguments", None) or "",
                )
        finish_reason = getattr(choice, "finish_reason", None)
        if finish_reason:
            yield FinishChunk(finish_reason)
    usage = getattr(sdk_chunk, "usage", None)
    if usage is not None:
        yield UsageChunk(
            Usage(
                prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
                completion_tokens=getattr(usage, "completion_tokens", None) or 0,
                total_tokens=getattr(usage, "total_tokens", None) or 0,
            )
        )


def _retry_after(exc: Exception, openai: Any) -> float | None:
    if isinstance(exc, openai.APIStatusError):
        return parse_retry_after(exc.response.headers)
    return None


def _root_cause(exc: BaseException) -> str:
    """The innermost error of the chain, which says what happened (the SDK's own says "Connection error.")."""
    seen = {id(exc)}
    while (inner := exc.__cause__ or exc.__context__) is not None and id(inner) not in seen:
        seen.add(id(inner))
        exc = inner
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return _one_line(str(exc) or type(exc).__name__)


def _server_message(exc: Any) -> str:
    """The ``error.message`` of an OpenAI-style error body, else the SDK's own message."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(message, str) and message:
            return _one_line(message)
    return _one_line(exc.message)


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _MAX_DETAIL_CHARS else line[: _MAX_DETAIL_CHARS - 3] + "..."

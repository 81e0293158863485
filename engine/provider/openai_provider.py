"""The ``ChatProvider`` adapter for any OpenAI-compatible Chat Completions server, through the ``openai`` SDK.

``openai`` is imported only when the first request is made (or by the engine's preload), without the type modules
it never uses (``sdk_import``).
The SDK's own retries are switched off because ours yield a ``RetryNotice`` the user can see before each wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from typing import TYPE_CHECKING, Any

from engine.errors import ProviderError
from engine.provider.base import ChatRequest, RetryNotice, StreamChunk
from engine.provider.rejected_fields import fields_named_in, without_fields
from engine.provider.request_body import RequestBodyEncoder
from engine.provider.retry import backoff_delay, is_retryable_status, parse_retry_after
from engine.provider.sdk_import import import_openai
from engine.provider.server_errors import one_line, server_message
from engine.provider.stream_reader import read_stream

if TYPE_CHECKING:
    from openai import AsyncOpenAI

log = logging.getLogger(__name__)

# Keyless local servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK refuses to start without one.
NO_API_KEY_PLACEHOLDER = "no-api-key"


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
        reasoning_effort: str | None = None,
        headers: dict[str, str] | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        prompt_cache_key: bool = False,
    ) -> None:
        """``base_url=None`` uses the SDK default (``OPENAI_BASE_URL`` or api.openai.com); ``api_key=None`` sends a
        placeholder. ``timeout`` bounds the connection and each wait for the next chunk. ``reasoning_effort`` is sent
        to servers that take it (OpenAI, DeepSeek, OpenRouter, Groq...); ``headers`` go with every request;
        ``prompt_cache_key``: whether the request's ``cache_key`` is sent as ``prompt_cache_key``."""
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
        self.reasoning_effort = reasoning_effort
        self.api_key_env = api_key_env  # named when the server refuses the key
        self.prompt_cache_key = prompt_cache_key
        self._headers = dict(headers or {})
        self._rejected_fields: set[str] = set()
        self._body = RequestBodyEncoder()
        self._raw_body: bool | None = None  # whether the SDK's ``post`` takes a raw body, once known
        self._sdk_client: AsyncOpenAI | None = None

    @property
    def base_url(self) -> str:
        """The URL requests go to, for error messages (the SDK's default when none was given)."""
        if self._base_url is not None:
            return self._base_url
        return str(self._client().base_url).rstrip("/")

    def _client(self) -> AsyncOpenAI:
        if self._sdk_client is None:
            self._sdk_client = import_openai().AsyncOpenAI(
                base_url=self._base_url,
                api_key=self._api_key,
                timeout=self.timeout,
                max_retries=0,
                default_headers=self._headers or None,
            )
        return self._sdk_client

    def warm(self) -> None:
        """Imports the SDK and makes its client and Chat Completions resource now, so that a first request does
        not (the engine's preload calls this in a thread before any input may need it). The Chat Completions
        resource (a twentieth of a second of the SDK's parsing and streaming helpers) is made only for an SDK whose
        ``post`` cannot send the request body as it is, the one case a request goes through it."""
        client = self._client()
        if not self._takes_raw_body(client):
            _ = client.chat.completions.with_streaming_response
        # The HTTP stack runs on anyio, which imports its asyncio backend at the first connection (about 20 ms).
        with contextlib.suppress(ImportError):
            importlib.import_module("anyio._backends._asyncio")

    async def aclose(self) -> None:
        """Closes the HTTP connection pool; the provider can still be used afterwards (a new pool is made)."""
        if self._sdk_client is not None:
            client, self._sdk_client = self._sdk_client, None
            await client.close()

    async def list_models(self) -> list[str]:
        """The model names the server offers (``GET /models``), sorted; ``ProviderError`` when it offers none."""
        openai = import_openai()
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

        ``RetryNotice.attempt`` counts retries (1 for the first) and ``max_attempts`` is ``max_retries``. The answer is
        read raw and parsed by ``stream_reader``: one ``json.loads`` per event instead of an SDK object per chunk, and
        error events, non-SSE bodies and early ends are seen as what they are.
        """
        openai = import_openai()
        client = self._client()
        retry = 0
        while True:
            yielded = False
            try:
                async with (
                    self._response(client, request) as response,
                    # Closed here, in this task, when this stream is closed or abandoned: left to the garbage
                    # collector, a suspended generator is finalized later in a task of its own, racing whatever runs
                    # then ("async generator already executing").
                    aclosing(response.aiter_bytes()) as body,
                    aclosing(self._read(body, response.headers.get("content-type", ""))) as chunks,
                ):
                    async for chunk in chunks:
                        yielded = True
                        yield chunk
                return
            except asyncio.CancelledError:
                raise
            except ProviderError as exc:
                if yielded or not exc.retryable or retry >= self.max_retries:
                    raise
                error: ProviderError = exc
                retry_after = None
            except Exception as exc:  # noqa: BLE001 - every failure leaves this adapter as a ProviderError
                error = self._describe(exc, request.model, openai)
                if yielded:
                    # The server was reached, so a dropped link is named by its cause, not as "cannot reach".
                    dropped = (
                        isinstance(exc, openai.APIConnectionError) or _is_transport_error(exc, "TransportError")
                    ) and not (isinstance(exc, openai.APITimeoutError) or _is_transport_error(exc, "TimeoutException"))
                    detail = _root_cause(exc) if dropped else str(error)
                    raise ProviderError(f"the stream ended early: {detail}", status=error.status) from exc
                if self._drop_rejected_fields(error, request):
                    continue
                if not error.retryable or retry >= self.max_retries:
                    raise error from exc
                retry_after = _retry_after(exc, openai)
            retry += 1
            delay = backoff_delay(
                retry, base_delay=self.retry_base_delay, max_delay=self.retry_max_delay, retry_after=retry_after
            )
            notice = RetryNotice(attempt=retry, max_attempts=self.max_retries, delay_s=delay, reason=str(error))
            yield notice
            await asyncio.sleep(notice.delay_s)

    def _read(self, body: AsyncIterator[bytes], content_type: str) -> AsyncIterator[StreamChunk]:
        """The chunks of an answer's body (``stream_reader``: Chat Completions)."""
        return read_stream(body, content_type)

    def _optional_fields(self, request: ChatRequest) -> dict[str, Any]:
        """The request fields only some servers take, for those that do."""
        fields: dict[str, Any] = {}
        if self.reasoning_effort:
            fields["reasoning_effort"] = self.reasoning_effort
        if self.prompt_cache_key and request.cache_key:
            fields["prompt_cache_key"] = request.cache_key
        return fields

    @asynccontextmanager
    async def _response(self, client: AsyncOpenAI, request: ChatRequest) -> AsyncIterator[Any]:
        """The streaming HTTP response of the request, through the SDK (its auth, base URL, timeout, errors).

        The body is the same either way. Where the SDK takes a raw body (``post(content=...)``), it is built from
        texts encoded once per message and handed over in pieces (``RequestBodyEncoder``): the SDK would re-encode
        the whole history for every request. Older SDKs get it in ``extra_body``, which skips their per-message TypedDict transform.
        """
        messages = request.messages
        if self._rejected_fields:
            messages = without_fields(messages, self._rejected_fields)
        options: dict[str, Any] = {"stream": True, "stream_options": {"include_usage": True}}
        options.update(self._optional_fields(request))
        if self._takes_raw_body(client):
            body = self._body.encode(request.model, messages, request.tools, options)
            content = body.content()
            response = await client.post(
                "/chat/completions",
                cast_to=_http_response_class(),
                content=content,
                # The SDK's own headers say JSON; pieces are sent as one body (not chunked) with their length given.
                options={} if isinstance(content, bytes) else {"headers": {"Content-Length": str(body.length)}},
                stream=True,
            )
            try:
                yield response
            finally:
                await response.aclose()
            return
        extra_body: dict[str, Any] = {"messages": messages}
        if request.tools:
            extra_body["tools"] = request.tools
        extra_body.update(self._optional_fields(request))
        create = client.chat.completions.with_streaming_response.create
        async with create(
            model=request.model, messages=[], stream=True, stream_options={"include_usage": True}, extra_body=extra_body
        ) as raw:
            yield raw.http_response

    def _takes_raw_body(self, client: AsyncOpenAI) -> bool:
        if self._raw_body is None:
            self._raw_body = "content" in inspect.signature(client.post).parameters
        return self._raw_body

    def _drop_rejected_fields(self, error: ProviderError, request: ChatRequest) -> bool:
        """A strict server (Groq) refuses a field another server asked us to send back (``reasoning_content``,
        after a switch of model): leave the fields its error names out of this and later requests. True when
        there was one to leave out, so the request is worth sending again at once."""
        if error.status not in (400, 422):
            return False
        named = fields_named_in(str(error), request.messages) - self._rejected_fields
        if not named:
            return False
        log.warning("the server refuses the message fields %s: sending the history without them", sorted(named))
        self._rejected_fields |= named
        return True

    def _describe(self, exc: Exception, model: str, openai: Any) -> ProviderError:
        """One readable line for the user, with the status and whether a retry could help."""
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _server_message(exc)
            if status == 401:
                message = f"authentication failed (401): {detail}; check the API key ({self.api_key_env})"
            elif status == 404:
                message = (
                    f"not found (404): {detail}; check the model name '{model}' and the base URL '{self.base_url}'"
                )
            elif status == 429:
                message = f"rate limited (429): {detail}"
            elif status >= 500:
                message = f"server error ({status}): {detail}"
            else:
                message = f"request rejected ({status}): {detail}"
            return ProviderError(message, status=status, retryable=is_retryable_status(status))
        if isinstance(exc, openai.APITimeoutError) or _is_transport_error(exc, "TimeoutException"):
            return ProviderError(f"the model server did not answer within {self.timeout:g}s", retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            return ProviderError(f"cannot reach the model server at {self.base_url}: {_root_cause(exc)}",
                                 retryable=True)
        if _is_transport_error(exc, "TransportError"):  # the body broke off while it was being read
            return ProviderError(f"the connection to the model server broke: {_root_cause(exc)}", retryable=True)
        if isinstance(exc, openai.APIError):
            return ProviderError(f"the model server reported an error: {one_line(exc.message)}")
        return ProviderError(f"unexpected answer from the model server: {type(exc).__name__}: {one_line(str(exc))}")


def _http_response_class() -> type:
    """The response class of the HTTP library the SDK runs on (``httpx2`` in recent versions, ``httpx`` before):
    asked for as ``cast_to``, the SDK hands back the raw streaming response."""
    for name in ("httpx2", "httpx"):
        module = sys.modules.get(name)
        if module is not None:
            return module.Response  # type: ignore[no-any-return]
    import httpx

    return httpx.Response


def _is_transport_error(exc: Exception, kind: str) -> bool:
    """Whether ``exc`` is the HTTP library's ``TransportError`` or ``TimeoutException``, raised while the body is
    read. Matched by class name: the SDK's HTTP library is ``httpx`` in some versions and ``httpx2`` in others."""
    return any(cls.__name__ == kind for cls in type(exc).__mro__)


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
    return one_line(str(exc) or type(exc).__name__)


def _server_message(exc: Any) -> str:
    """What the server said in its error body (any shape, see ``server_errors``), else the SDK's own message."""
    return server_message(exc.body) or one_line(exc.message)

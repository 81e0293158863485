"""The ``ChatProvider`` adapter for models served on the Responses API (SPEC 18: OpenAI's Codex models), through
the ``openai`` SDK's ``responses.create(stream=True)``.

Everything but the request and the reading of its answer is the Chat Completions adapter's: the client, retries
with visible notices, timeouts, readable errors. The request is the session's history as Responses input items
(``responses_input``), with ``store: false`` (nothing kept on the server: the whole history is sent, as Codex does)
and the reasoning items' encrypted content asked for, to send back. The answer's events are read raw
(``responses_stream``): one ``json.loads`` per event, and error events and early ends seen as what they are.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from engine.errors import ProviderError
from engine.provider.base import ChatRequest, StreamChunk
from engine.provider.openai_provider import OpenAIProvider
from engine.provider.responses_input import INCLUDE, responses_body
from engine.provider.responses_stream import read_responses_stream

if TYPE_CHECKING:
    from openai import AsyncOpenAI

log = logging.getLogger(__name__)

# Request fields a model or a compatible server may refuse (a model without reasoning refuses ``reasoning``):
# left out of later requests once an error names one.
_OPTIONAL_FIELDS = ("reasoning", "include", "prompt_cache_key", "parallel_tool_calls")


class ResponsesProvider(OpenAIProvider):
    """Streams Responses API answers as the same chunks the Chat Completions adapter gives."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self._refused_fields: set[str] = set()

    def warm(self) -> None:
        """Imports the SDK and makes its client and Responses resource now (see ``OpenAIProvider.warm``)."""
        super().warm()
        _ = self._client().responses.with_streaming_response

    def _read(self, body: AsyncIterator[bytes], content_type: str) -> AsyncIterator[StreamChunk]:
        return read_responses_stream(body, content_type)

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body sent for ``request``."""
        reasoning: dict[str, Any] = {"summary": "auto"}
        if self.reasoning_effort:
            reasoning["effort"] = self.reasoning_effort
        options: dict[str, Any] = {
            "tool_choice": "auto",
            "parallel_tool_calls": True,
            "reasoning": reasoning,
            "store": False,
            "include": INCLUDE,
            "stream": True,
        }
        if self.prompt_cache_key and request.cache_key:
            options["prompt_cache_key"] = request.cache_key
        for field in self._refused_fields:
            options.pop(field, None)
        return responses_body(request.model, request.messages, request.tools, options)

    @asynccontextmanager
    async def _response(self, client: AsyncOpenAI, request: ChatRequest) -> AsyncIterator[Any]:
        """The streaming HTTP response, through the SDK's ``responses.create``: the body goes as it is built
        (``extra_body``), past the SDK's per-item transform of typed parameters."""
        body = self.request_body(request)
        model, stream = body.pop("model"), body.pop("stream")
        create = client.responses.with_streaming_response.create
        async with create(model=model, input=[], stream=stream, extra_body=body) as raw:
            yield raw.http_response

    def _drop_rejected_fields(self, error: ProviderError, request: ChatRequest) -> bool:
        """A model or server that refuses an optional field (``reasoning`` on a model without it): the field is
        left out of this and later requests. True when there was one to leave out."""
        if error.status not in (400, 422):
            return False
        text = str(error)
        named = {field for field in _OPTIONAL_FIELDS if re.search(rf"['\"`]{field}['\"`.\[]", text)}
        named -= self._refused_fields
        if not named:
            return False
        log.warning("the server refuses the request fields %s: sending requests without them", sorted(named))
        self._refused_fields |= named
        return True

"""A streamed Responses API answer (``POST /responses`` with ``stream: true``), as its bytes arrive, turned into the
same ``StreamChunk``s a Chat Completions stream gives, so the turn does not know which API it spoke.

The events, as OpenAI sends them (``openai.types.responses.ResponseStreamEvent``): ``response.created``, then per
output item ``response.output_item.added``, its deltas and ``response.output_item.done``, then one of
``response.completed``, ``response.incomplete`` or ``response.failed``; an ``error`` event may come at any point.
- ``response.output_text.delta`` is answer text; ``response.refusal.delta`` is the answer too, marked a refusal;
- ``response.reasoning_summary_text.delta`` (and ``response.reasoning_text.delta``, the raw reasoning some models
  give) is reasoning; summary parts are separated by a blank line;
- a ``function_call`` item is a tool call: its ``call_id`` and name on ``output_item.added``, its arguments from
  ``response.function_call_arguments.delta`` (or whole on ``.done`` / ``output_item.done``), by ``output_index``;
- a finished ``reasoning`` item (with its ``encrypted_content``, asked for with ``include``) is kept on the message
  under ``REASONING_ITEMS`` and sent back in the next request's input, which a model without stored state needs;
- ``response.completed`` carries the usage (``input_tokens``, ``output_tokens``, cached input tokens);
- ``response.incomplete`` is an answer cut short (its text is kept, the error says why), ``response.failed`` and
  ``error`` are errors with the server's message; a body that ends before any of them is "the stream ended early".
A 200 body that is not an event stream but a whole ``response`` object (a server that ignored ``stream``) is read
from its output items.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from engine.errors import ProviderError
from engine.messages import Usage
from engine.provider.base import (
    ExtraChunk,
    FinishChunk,
    ReasoningChunk,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from engine.provider.server_errors import one_line, server_message
from engine.provider.sse import LineSplitter, SseDecoder, looks_like_sse
from engine.provider.stream_reader import CUT_REASONS, ENDED_EARLY, StreamEndedEarly

# The assistant message's field holding the reasoning items to send back (see ``responses_input``).
REASONING_ITEMS = "responses_reasoning"
_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}
_MAX_OTHER_BODY_CHARS = 65_536


class ResponsesEventReader:
    """Reads the events of one answer in order; ``ended`` once a final event came."""

    def __init__(self) -> None:
        self.ended = False
        self._calls: dict[int, bool] = {}  # output_index of each function call: whether its arguments came
        self._streamed: set[int] = set()  # output items whose text or reasoning came as deltas
        self._reasoning_at: tuple[int, int] | None = None  # the (item, summary part) reasoning last came from

    def chunks(self, event: dict[str, Any]) -> Iterator[StreamChunk]:
        """The chunks of one event; raises ``ProviderError`` for an event that reports a failure."""
        kind = event.get("type")
        index = event.get("output_index")
        index = index if isinstance(index, int) else 0
        if kind == "response.output_text.delta":
            self._streamed.add(index)
            yield from _text(event.get("delta"))
        elif kind == "response.refusal.delta":
            self._streamed.add(index)
            yield from _text(event.get("delta"), refusal=True)
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self._streamed.add(index)
            part = event.get("summary_index", event.get("content_index", 0))
            yield from self._reasoning(event.get("delta"), index, part if isinstance(part, int) else 0)
        elif kind == "response.output_item.added":
            item = event.get("item")
            if isinstance(item, dict) and item.get("type") == "function_call":
                self._calls[index] = False
                yield _call(index, item, arguments="")
        elif kind == "response.function_call_arguments.delta":
            self._calls[index] = True
            yield ToolCallChunk(index=index, arguments=_str(event.get("delta")))
        elif kind == "response.function_call_arguments.done" and not self._calls.get(index, False):
            self._calls[index] = True
            yield ToolCallChunk(index=index, arguments=_str(event.get("arguments")))
        elif kind == "response.output_item.done":
            item = event.get("item")
            if isinstance(item, dict):
                yield from self._item_done(index, item)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            yield from self._end(kind, event.get("response"))
        elif kind == "error":
            raise ProviderError(f"the model server reported an error: {_error_text(event)}")

    def _reasoning(self, delta: Any, index: int, part: int) -> Iterator[StreamChunk]:
        text = _str(delta)
        if not text:
            return
        if self._reasoning_at is not None and self._reasoning_at != (index, part):
            text = "\n\n" + text
        self._reasoning_at = (index, part)
        yield ReasoningChunk(text)

    def _item_done(self, index: int, item: dict[str, Any]) -> Iterator[StreamChunk]:
        """A finished item: what its deltas did not already give (a gateway may send items only whole)."""
        kind = item.get("type")
        if kind == "function_call":
            if index not in self._calls:
                yield _call(index, item, arguments=_str(item.get("arguments")))
            elif not self._calls[index]:
                yield ToolCallChunk(index=index, arguments=_str(item.get("arguments")))
            self._calls[index] = True
        elif kind == "reasoning":
            if index not in self._streamed:
                for part, summary in enumerate(item.get("summary") or ()):
                    if isinstance(summary, dict):
                        yield from self._reasoning(summary.get("text"), index, part)
            yield ExtraChunk({REASONING_ITEMS: [item]})
        elif kind == "message" and index not in self._streamed:
            for content in item.get("content") or ():
                if isinstance(content, dict) and content.get("type") == "output_text":
                    yield from _text(content.get("text"))
                elif isinstance(content, dict) and content.get("type") == "refusal":
                    yield from _text(content.get("refusal"), refusal=True)

    def _end(self, kind: str, response: Any) -> Iterator[StreamChunk]:
        self.ended = True
        response = response if isinstance(response, dict) else {}
        usage = usage_of(response)
        if usage is not None:
            yield UsageChunk(usage)
        if kind == "response.failed":
            raise ProviderError(f"the model server reported an error: {_error_text(response.get('error'))}")
        if kind == "response.incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            finish = _INCOMPLETE_REASONS.get(str(reason))
            yield FinishChunk(finish or "incomplete")
            if finish is not None:
                raise ProviderError(CUT_REASONS[finish])
            raise ProviderError(f"the answer is incomplete: the server stopped it ({reason or 'no reason given'})")
        yield FinishChunk("tool_calls" if self._calls else "stop")

    def whole(self, response: dict[str, Any]) -> Iterator[StreamChunk]:
        """A whole ``response`` object, as a non-streaming answer gives it."""
        for index, item in enumerate(response.get("output") or ()):
            if isinstance(item, dict):
                yield from self._item_done(index, item)
        status = response.get("status")
        kind = {"failed": "response.failed", "incomplete": "response.incomplete"}.get(str(status), "response.completed")
        yield from self._end(kind, response)


async def read_responses_stream(body: AsyncIterator[bytes], content_type: str = "") -> AsyncIterator[StreamChunk]:
    """The chunks of a Responses answer's body, read as its pieces arrive."""
    splitter, decoder, reader = LineSplitter(), SseDecoder(), ResponsesEventReader()
    other: list[str] | None = None
    started = False
    pieces = aiter(body)
    while True:
        try:
            piece = await anext(pieces)
            lines = splitter.feed(piece)
        except StopAsyncIteration:
            lines, piece = splitter.finish(), None
        except Exception:
            if reader.ended:
                break  # the answer was complete before the link broke
            raise
        for line in lines:
            if not started and line.strip():
                started = True
                other = None if looks_like_sse(line) else []
            if other is not None:
                if sum(map(len, other)) < _MAX_OTHER_BODY_CHARS:
                    other.append(line)
                continue
            event = decoder.line(line)
            if event is not None:
                for chunk in _event_chunks(event.event, event.data, reader):
                    yield chunk
        if piece is None:
            break
    event = decoder.flush()
    if event is not None:
        for chunk in _event_chunks(event.event, event.data, reader):
            yield chunk
    if other is not None:
        for chunk in _whole_body(other, content_type, reader):
            yield chunk
    elif not reader.ended:
        raise StreamEndedEarly(ENDED_EARLY, retryable=True)


def _event_chunks(name: str, data: str, reader: ResponsesEventReader) -> Iterator[StreamChunk]:
    try:
        payload: Any = json.loads(data)
    except ValueError:
        payload = None
    if name == "error" or (isinstance(payload, dict) and payload.get("error") and "type" not in payload):
        raise ProviderError(f"the model server reported an error: {_error_text(payload if payload else data)}")
    if isinstance(payload, dict):
        yield from reader.chunks(payload)


def _whole_body(lines: list[str], content_type: str, reader: ResponsesEventReader) -> Iterator[StreamChunk]:
    body = "\n".join(lines)
    try:
        payload: Any = json.loads(body)
    except ValueError:
        payload = None
    if isinstance(payload, dict) and payload.get("object") == "response":
        yield from reader.whole(payload)
        return
    if payload is not None:
        raise ProviderError(f"the model server reported an error: {server_message(payload) or one_line(body)}")
    kind = content_type.split(";")[0].strip() or "a body"
    detail = server_message(body) or "(empty)"
    raise ProviderError(f"the model server answered with {kind} instead of an event stream: {detail}")


def usage_of(response: dict[str, Any]) -> Usage | None:
    usage = response.get("usage")
    if not isinstance(usage, dict):
        return None
    details = usage.get("input_tokens_details")
    return Usage(
        prompt_tokens=_int(usage.get("input_tokens")),
        completion_tokens=_int(usage.get("output_tokens")),
        total_tokens=_int(usage.get("total_tokens")),
        cached_tokens=_int(details.get("cached_tokens")) if isinstance(details, dict) else 0,
    )


def _error_text(error: Any) -> str:
    """The server's message, with its code when it gives one."""
    message = server_message(error) or "no details given"
    code = error.get("code") if isinstance(error, dict) else None
    return f"{message} ({code})" if isinstance(code, str) and code and code not in message else message


def _call(index: int, item: dict[str, Any], arguments: str) -> ToolCallChunk:
    name = item.get("name")
    return ToolCallChunk(
        index=index,
        id=_str(item.get("call_id")) or None,
        name=name if isinstance(name, str) and name else None,
        arguments=arguments,
    )


def _text(value: Any, refusal: bool = False) -> Iterator[StreamChunk]:
    if isinstance(value, str) and value:
        yield TextChunk(value, refusal=refusal)


def _str(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0

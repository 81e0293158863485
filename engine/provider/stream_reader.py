"""The body of a streamed chat completion, line by line, turned into ``StreamChunk``s: SSE decoded here and each
event parsed with ``json.loads`` into a plain dict (no SDK object per chunk).

How an answer ends decides what it is (SPEC 18):
- an ``error`` event (``data: {"error": ...}``, ``event: error``, llama.cpp's ``error:`` line) is a
  ``ProviderError`` with the server's message;
- a finish reason or ``[DONE]`` completes it; neither, when the body ends, is "the stream ended early";
- ``finish_reason: "length"`` (or ``content_filter``) is an answer cut short: the text is kept and the error says why;
- a body that is not an event stream is a clear error, unless it is a whole ``chat.completion`` (a server that
  ignored ``stream: true``), which is read as one chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from engine.errors import ProviderError
from engine.provider.base import StreamChunk
from engine.provider.server_errors import is_error_payload, one_line, server_message
from engine.provider.sse import SseDecoder, SseEvent, looks_like_sse
from engine.provider.wire_chunks import ChunkReader

ENDED_EARLY = "the stream ended early: the server closed it before the answer was finished"
_CUT_REASONS = {
    "length": "the answer was cut off: the model reached its output token limit (finish_reason \"length\")",
    "content_filter": "the answer was cut off by the server's content filter (finish_reason \"content_filter\")",
    "error": "the model server reported an error in the middle of the answer (finish_reason \"error\")",
}
# A body that is not an event stream is read up to this size to say what it was.
_MAX_OTHER_BODY_CHARS = 65_536


class StreamEndedEarly(ProviderError):
    """The body ended with neither a finish reason nor ``[DONE]``."""


async def read_stream(lines: AsyncIterator[str], content_type: str = "") -> AsyncIterator[StreamChunk]:
    decoder = SseDecoder()
    reader = ChunkReader()
    done = False
    first = True
    async for line in lines:
        if first:
            if not line.strip():
                continue
            first = False
            if not looks_like_sse(line):
                for chunk in await _whole_body(line, lines, content_type, reader):
                    yield chunk
                return
        event = decoder.line(line)
        if event is not None:
            if _is_done(event):
                done = True
                continue
            for chunk in _event_chunks(event, reader):
                yield chunk
    event = decoder.flush()
    if event is not None and not _is_done(event):
        for chunk in _event_chunks(event, reader):
            yield chunk
    elif event is not None:
        done = True
    for chunk in reader.finish():
        yield chunk
    if reader.finish_reason is None and not done:
        raise StreamEndedEarly(ENDED_EARLY, retryable=True)
    _raise_if_cut(reader.finish_reason)


def _is_done(event: SseEvent) -> bool:
    return event.data.strip() == "[DONE]"


def _event_chunks(event: SseEvent, reader: ChunkReader) -> list[StreamChunk]:
    try:
        payload: Any = json.loads(event.data)
    except ValueError:
        payload = None
    if event.event == "error" or (isinstance(payload, dict) and is_error_payload(payload)):
        detail = server_message(payload if payload is not None else event.data) or one_line(event.data)
        raise ProviderError(f"the model server reported an error: {detail or 'no details given'}")
    if not isinstance(payload, dict):
        return []  # keep-alive pings and other non-JSON data carry nothing of the answer
    return list(reader.chunks(payload))


async def _whole_body(
    first_line: str, lines: AsyncIterator[str], content_type: str, reader: ChunkReader
) -> list[StreamChunk]:
    """A 200 answer that is not an event stream: a whole completion is read, anything else is an error."""
    parts, size = [first_line], len(first_line)
    async for line in lines:
        if size < _MAX_OTHER_BODY_CHARS:
            parts.append(line)
            size += len(line)
    body = "\n".join(parts)
    try:
        payload: Any = json.loads(body)
    except ValueError:
        payload = None
    if isinstance(payload, dict) and payload.get("choices") and not is_error_payload(payload):
        chunks = list(reader.chunks(payload)) + list(reader.finish())
        if reader.finish_reason is None:
            raise StreamEndedEarly(ENDED_EARLY, retryable=True)
        _raise_if_cut(reader.finish_reason)
        return chunks
    if payload is not None:
        detail = server_message(payload) or one_line(body)
        raise ProviderError(f"the model server reported an error: {detail}")
    kind = content_type.split(";")[0].strip() or "a body"
    detail = server_message(body) or "(empty)"
    raise ProviderError(f"the model server answered with {kind} instead of an event stream: {detail}")


def _raise_if_cut(finish_reason: str | None) -> None:
    if finish_reason in _CUT_REASONS:
        raise ProviderError(_CUT_REASONS[finish_reason])

"""The body of a streamed chat completion, as its bytes arrive, turned into ``StreamChunk``s: lines split and SSE
decoded here and each event parsed with ``json.loads`` into a plain dict (no SDK object per chunk).

How an answer ends decides what it is (SPEC 18):
- an ``error`` event (``data: {"error": ...}``, ``event: error``, llama.cpp's ``error:`` line) is a
  ``ProviderError`` with the server's message;
- a finish reason or ``[DONE]`` completes it; neither, when the body ends, is "the stream ended early"; a
  connection that breaks once the answer is complete (a proxy that never sends the last chunk or closes the body
  uncleanly) loses nothing: the answer stands;
- usage an error event carries is passed on before the error is raised;
- ``finish_reason: "length"`` (or ``content_filter``) is an answer cut short: the text is kept and the error says why;
- a body that is not an event stream is a clear error, unless it is a whole ``chat.completion`` (a server that
  ignored ``stream: true``), which is read as one chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from engine.errors import ProviderError
from engine.provider.base import StreamChunk, UsageChunk
from engine.provider.server_errors import is_error_payload, one_line, server_message
from engine.provider.sse import LineSplitter, SseDecoder, SseEvent, looks_like_sse
from engine.provider.wire_chunks import ChunkReader, usage_of

ENDED_EARLY = "the stream ended early: the server closed it before the answer was finished"
CUT_REASONS = {
    "length": "the answer was cut off: the model reached its output token limit (finish_reason \"length\")",
    "content_filter": "the answer was cut off by the server's content filter (finish_reason \"content_filter\")",
    "error": "the model server reported an error in the middle of the answer (finish_reason \"error\")",
}
# A body that is not an event stream is read up to this size to say what it was.
_MAX_OTHER_BODY_CHARS = 65_536


class StreamEndedEarly(ProviderError):
    """The body ended with neither a finish reason nor ``[DONE]``."""


async def read_stream(body: AsyncIterator[bytes], content_type: str = "") -> AsyncIterator[StreamChunk]:
    """The chunks of a body read as the pieces ``body`` yields arrive; every line a piece completes is taken in
    one pass (no suspension per line)."""
    splitter = LineSplitter()
    parsed = _Body()
    pieces = aiter(body)
    while True:
        try:
            piece = await anext(pieces)
        except StopAsyncIteration:
            break
        except Exception:
            if parsed.done or parsed.reader.finish_reason is not None:
                break  # the answer was complete before the link broke
            raise
        for chunk in parsed.take(splitter.feed(piece)):
            yield chunk
        if parsed.error is not None:
            raise parsed.error
    for chunk in parsed.take(splitter.finish()):
        yield chunk
    if parsed.error is not None:
        raise parsed.error
    if parsed.other is not None:
        for chunk in _whole_body(parsed.other, content_type, parsed.reader):
            yield chunk
        return
    event = parsed.decoder.flush()
    done = parsed.done
    if event is not None and not _is_done(event):
        chunks, error = _event_chunks(event, parsed.reader)
        for chunk in chunks:
            yield chunk
        if error is not None:
            raise error
    elif event is not None:
        done = True
    for chunk in parsed.reader.finish():
        yield chunk
    if parsed.reader.finish_reason is None and not done:
        raise StreamEndedEarly(ENDED_EARLY, retryable=True)
    _raise_if_cut(parsed.reader.finish_reason)


class _Body:
    """What a body's lines say, taken as they come: an event stream's chunks, or (when its first non-blank line
    is no event-stream field) the text of some other body, kept to say what it was."""

    def __init__(self) -> None:
        self.decoder = SseDecoder()
        self.reader = ChunkReader()
        self.done = False  # ``[DONE]`` came
        self.started = False  # a non-blank line came
        self.other: list[str] | None = None  # the lines of a body that is not an event stream
        self.other_size = 0
        self.error: ProviderError | None = None  # an error event: raised once the chunks before it are out

    def take(self, lines: list[str]) -> list[StreamChunk]:
        chunks: list[StreamChunk] = []
        for line in lines:
            if not self.started:
                if not line.strip():
                    continue
                self.started = True
                if not looks_like_sse(line):
                    self.other = []
            if self.other is not None:
                if self.other_size < _MAX_OTHER_BODY_CHARS:
                    self.other.append(line)
                    self.other_size += len(line)
                continue
            event = self.decoder.line(line)
            if event is None:
                continue
            if _is_done(event):
                self.done = True
                continue
            taken, self.error = _event_chunks(event, self.reader)
            chunks += taken
            if self.error is not None:
                break
        return chunks


def _is_done(event: SseEvent) -> bool:
    return event.data.strip() == "[DONE]"


def _event_chunks(event: SseEvent, reader: ChunkReader) -> tuple[list[StreamChunk], ProviderError | None]:
    """The chunks of one event, and the error it reports (with the usage it carries among the chunks)."""
    try:
        payload: Any = json.loads(event.data)
    except ValueError:
        payload = None
    if event.event == "error" or (isinstance(payload, dict) and is_error_payload(payload)):
        detail = server_message(payload if payload is not None else event.data) or one_line(event.data)
        usage = usage_of(payload) if isinstance(payload, dict) else None
        error = ProviderError(f"the model server reported an error: {detail or 'no details given'}")
        return ([UsageChunk(usage)] if usage is not None else []), error
    if not isinstance(payload, dict):
        return [], None  # keep-alive pings and other non-JSON data carry nothing of the answer
    return list(reader.chunks(payload)), None


def _whole_body(lines: list[str], content_type: str, reader: ChunkReader) -> list[StreamChunk]:
    """A 200 answer that is not an event stream: a whole completion is read, anything else is an error."""
    body = "\n".join(lines)
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
    if finish_reason in CUT_REASONS:
        raise ProviderError(CUT_REASONS[finish_reason])

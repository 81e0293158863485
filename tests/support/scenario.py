"""Scenario helpers: describe what the scripted server answers, in a few lines per test.

A test writes its conversation as data, for example::

    server.add(
        reply(text("Let me look."), tool_call("read", path="a.txt"), usage=(120, 9)),
        error(429, retry_after=0.2),
        text("done"),
    )

Recorded streams replay exactly as they were captured: ``raw_sse('data: {"choices": [...]}\\n\\n')``.

Each reply renders itself into the exact wire form OpenAI uses (``chat.completion.chunk`` deltas for a stream, a
``chat.completion`` object otherwise); ``scripted_server`` only moves those bytes over HTTP.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import cycle
from typing import Any, Literal

ReasoningField = Literal["reasoning_content", "reasoning"]

# Argument deltas are cut at these varying sizes so JSON keys, strings and escapes get split mid-way, as real
# servers do; fixed sizes keep every run identical.
_ARGUMENT_PIECE_SIZES = (2, 5, 1, 9, 4, 13)
# A fixed creation time keeps rendered chunks (and anything derived from them) deterministic.
_CREATED = 1_700_000_000


@dataclass(frozen=True)
class TextPart:
    text: str
    chunk: int


@dataclass(frozen=True)
class ReasoningPart:
    text: str
    field: ReasoningField
    chunk: int


@dataclass(frozen=True)
class ToolCallPart:
    """One tool call; ``id=None`` lets the server assign ``call_1``, ``call_2``... in the order it serves them."""

    name: str
    arguments: str
    id: str | None = None


Part = TextPart | ReasoningPart | ToolCallPart


@dataclass(frozen=True)
class Reply:
    """One assistant turn: its parts in order, optional usage numbers and finish reason."""

    parts: tuple[Part, ...]
    usage: tuple[int, int] | None = None
    finish_reason: str | None = None
    cached_tokens: int = 0  # of the prompt tokens, those the server says it read from its cache

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple(part for part in self.parts if isinstance(part, ToolCallPart))

    @property
    def resolved_finish_reason(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")

    def content_chunks(self, model: str, next_call_id: Callable[[], str]) -> list[dict[str, Any]]:
        """The chunks before the finish: a role delta, then each part cut into pieces (what a stall or a broken
        stream sends before it stops)."""
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        call_index = 0
        for part in self.parts:
            match part:
                case TextPart(text=text, chunk=size):
                    deltas += [{"content": piece} for piece in text_pieces(text, size)]
                case ReasoningPart(text=text, field=field, chunk=size):
                    deltas += [{field: piece} for piece in text_pieces(text, size)]
                case ToolCallPart():
                    deltas += _tool_call_deltas(part, call_index, part.id or next_call_id())
                    call_index += 1
        return [_chunk(model, delta) for delta in deltas]

    def stream_chunks(self, model: str, next_call_id: Callable[[], str]) -> list[dict[str, Any]]:
        """Every ``chat.completion.chunk`` of the stream, ending with the finish chunk and the usage chunk."""
        chunks = self.content_chunks(model, next_call_id)
        chunks.append(_chunk(model, {}, finish_reason=self.resolved_finish_reason))
        if self.usage is not None:
            chunks.append({**_chunk(model, None), "usage": _usage(self.usage, self.cached_tokens)})
        return chunks

    def completion(self, model: str, next_call_id: Callable[[], str]) -> dict[str, Any]:
        """The non-streaming ``chat.completion`` object for the same turn."""
        message: dict[str, Any] = {"role": "assistant", "content": None}
        text = "".join(part.text for part in self.parts if isinstance(part, TextPart))
        if text or not self.tool_calls:
            message["content"] = text
        for part in self.parts:
            if isinstance(part, ReasoningPart):
                message[part.field] = message.get(part.field, "") + part.text
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": call.id or next_call_id(), "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments}}
                for call in self.tool_calls
            ]
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": _CREATED,
            "model": model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": self.resolved_finish_reason}
            ],
            "usage": _usage(self.usage, self.cached_tokens) if self.usage is not None else None,
        }


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error with an OpenAI-style body; ``retry_after`` is seconds (number) or an HTTP date (text)."""

    status: int
    message: str
    retry_after: float | str | None = None
    retry_after_ms: int | None = None

    def body(self) -> dict[str, Any]:
        default_kind = "server_error" if self.status >= 500 else "invalid_request_error"
        kind, code = _ERROR_KINDS.get(self.status, (default_kind, None))
        return {"error": {"message": self.message, "type": kind, "param": None, "code": code}}

    def headers(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.retry_after is not None:
            value = self.retry_after
            headers["Retry-After"] = value if isinstance(value, str) else f"{value:g}"
        if self.retry_after_ms is not None:
            headers["retry-after-ms"] = str(self.retry_after_ms)
        return headers


@dataclass(frozen=True)
class Stall:
    """Sends the headers and ``after``'s content chunks, then hangs until the client leaves or ``seconds`` pass."""

    after: Reply | None
    seconds: float


@dataclass(frozen=True)
class Broken:
    """Sends ``after``'s content chunks, then drops the connection without the finish chunk or ``[DONE]``."""

    after: Reply | None


@dataclass(frozen=True)
class Slow:
    """Streams ``reply`` with ``delay`` seconds between chunks."""

    reply: Reply
    delay: float


@dataclass(frozen=True)
class RawReply:
    """Bytes sent exactly as given: a recorded SSE stream (``event:`` fields, comments, no ``[DONE]``...), an HTML
    page, a JSON error list. An event stream goes out one event per write; ``drop`` closes the connection after the
    body without ending the chunked transfer, as a dropped link does."""

    body: bytes
    status: int = 200
    content_type: str = "text/event-stream"
    drop: bool = False

    @property
    def is_event_stream(self) -> bool:
        return self.content_type.startswith("text/event-stream")

    def events(self) -> list[bytes]:
        """The body cut after each blank line (the end of an SSE event), whatever the line endings."""
        pieces = re.split(rb"(?<=\n\n)|(?<=\r\n\r\n)|(?<=\r\r)", self.body)
        return [piece for piece in pieces if piece]


ScriptedReply = Reply | ErrorReply | Stall | Broken | Slow | RawReply
ReplyLike = ScriptedReply | Part

_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "forbidden"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def text(content: str, chunk: int = 4) -> TextPart:
    """Assistant text sent as content deltas of ``chunk`` characters."""
    return TextPart(content, _check_chunk(chunk))


def reasoning(content: str, field: ReasoningField = "reasoning_content", chunk: int = 4) -> ReasoningPart:
    """Reasoning deltas under ``field``: ``reasoning_content`` (DeepSeek, vLLM, Qwen) or ``reasoning``."""
    if field not in ("reasoning_content", "reasoning"):
        raise ValueError(f"reasoning field must be 'reasoning_content' or 'reasoning', got {field!r}")
    return ReasoningPart(content, field, _check_chunk(chunk))


def tool_call(tool: str, /, *, id: str | None = None, **arguments: Any) -> ToolCallPart:
    """A call of ``tool`` with ``arguments`` as JSON, streamed in several argument deltas."""
    return ToolCallPart(tool, json.dumps(arguments), id)


def raw_tool_call(tool: str, arguments_text: str, *, id: str | None = None) -> ToolCallPart:
    """A call whose arguments text is sent verbatim, for deliberately broken JSON."""
    return ToolCallPart(tool, arguments_text, id)


def reply(
    *parts: Part, usage: tuple[int, int] | None = None, finish_reason: str | None = None, cached: int = 0
) -> Reply:
    """One assistant turn; ``usage`` is ``(prompt_tokens, completion_tokens)``, of which ``cached`` prompt tokens
    the server read from its cache (sent as ``prompt_tokens_details.cached_tokens`` when not 0)."""
    for part in parts:
        if not isinstance(part, TextPart | ReasoningPart | ToolCallPart):
            raise TypeError(f"reply() takes text/reasoning/tool_call parts, got {type(part).__name__}")
    return Reply(tuple(parts), usage, finish_reason, cached)


def error(status: int, message: str | None = None, *, retry_after: float | str | None = None,
          retry_after_ms: int | None = None) -> ErrorReply:
    """An HTTP error answer; ``retry_after`` becomes the ``Retry-After`` header, ``retry_after_ms`` its ms form."""
    if not 400 <= status <= 599:
        raise ValueError(f"error status must be 4xx or 5xx, got {status}")
    return ErrorReply(status, message or f"scripted error {status}", retry_after, retry_after_ms)


def raw_sse(stream: str | bytes, *, drop: bool = False) -> RawReply:
    """A stream replayed byte for byte; write it as the server sent it (``data: {...}`` lines, blank lines)."""
    return RawReply(stream.encode() if isinstance(stream, str) else stream, drop=drop)


def raw_body(status: int, body: str | bytes | list[Any] | dict[str, Any], content_type: str | None = None) -> RawReply:
    """A whole non-streamed answer: text as given, or a JSON value (content type ``application/json``)."""
    if isinstance(body, list | dict):
        return RawReply(json.dumps(body).encode(), status, content_type or "application/json")
    data = body.encode() if isinstance(body, str) else body
    return RawReply(data, status, content_type or "text/plain; charset=utf-8")


def stall(after: Reply | Part | None = None, seconds: float = 30.0) -> Stall:
    return Stall(_as_turn(after) if after is not None else None, seconds)


def broken(after: Reply | Part | None = None) -> Broken:
    return Broken(_as_turn(after) if after is not None else None)


def slow(turn: Reply | Part, delay: float = 0.05) -> Slow:
    return Slow(_as_turn(turn), delay)


def as_reply(item: ReplyLike) -> ScriptedReply:
    """Accepts a bare part where a reply is expected: ``text("hi")`` is ``reply(text("hi"))``."""
    if isinstance(item, Reply | ErrorReply | Stall | Broken | Slow | RawReply):
        return item
    return _as_turn(item)


def _as_turn(item: Reply | Part) -> Reply:
    if isinstance(item, Reply):
        return item
    if isinstance(item, TextPart | ReasoningPart | ToolCallPart):
        return Reply((item,))
    raise TypeError(f"expected a reply or a text/reasoning/tool_call part, got {type(item).__name__}")


def _check_chunk(chunk: int) -> int:
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1 character, got {chunk}")
    return chunk


def text_pieces(content: str, size: int) -> Iterator[str]:
    for start in range(0, len(content), size):
        yield content[start:start + size]


def argument_pieces(arguments: str) -> Iterator[str]:
    start = 0
    for size in cycle(_ARGUMENT_PIECE_SIZES):
        if start >= len(arguments):
            return
        yield arguments[start:start + size]
        start += size


def _tool_call_deltas(call: ToolCallPart, index: int, call_id: str) -> list[dict[str, Any]]:
    # As OpenAI does: id, type and name only in the first delta, whose arguments are empty.
    first = {"index": index, "id": call_id, "type": "function", "function": {"name": call.name, "arguments": ""}}
    deltas = [{"tool_calls": [first]}]
    deltas += [
        {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
        for piece in argument_pieces(call.arguments)
    ]
    return deltas


def _chunk(model: str, delta: dict[str, Any] | None, finish_reason: str | None = None) -> dict[str, Any]:
    choices = [] if delta is None else [
        {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
    ]
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": _CREATED,
        "model": model,
        "system_fingerprint": None,
        "choices": choices,
    }


def _usage(usage: tuple[int, int], cached: int = 0) -> dict[str, Any]:
    prompt, completion = usage
    counts: dict[str, Any] = {
        "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion
    }
    if cached:
        counts["prompt_tokens_details"] = {"cached_tokens": cached}
    return counts

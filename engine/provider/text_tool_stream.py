"""``TextToolCallProvider``: a model's tool calls written as text become real tool calls (``text_tool_calls``),
with no setting, and their raw text never reaches the screen.

Text streams through as it comes, except what might be a call: from a call marker on (``<tool_call>``...), or an
answer that opens like a JSON call (``{"name"``, a fence around it), the text is held until the answer ends. It
then becomes tool calls when it parses as calls of offered tools, and is released as the text it was otherwise. A
stream with native tool calls is left as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import aclosing

from engine.errors import ProviderError
from engine.provider.base import ChatProvider, ChatRequest, FinishChunk, StreamChunk, TextChunk, ToolCallChunk
from engine.provider.text_tool_calls import (
    MARKERS,
    OfferedTools,
    TextCall,
    first_marker,
    parse_marked,
    parse_whole_json,
)
from engine.provider.wrapping import WrappingProvider
from engine.provider.xml_tools import new_call_id

# How a JSON call opens, whitespace removed: an answer that starts otherwise is shown as it streams.
_JSON_OPENINGS = ('{"name"', '[{"name"', '{"function"', '[{"function"', '{"type"', '[{"type"')
# What the end of a streamed text must hold to be a marker's beginning: one of their first characters, within
# the length of the longest marker but one.
_MARKER_STARTS = frozenset(marker[0] for marker in MARKERS)
_LONGEST_PARTIAL = max(len(marker) for marker in MARKERS) - 1


class TextToolCallProvider(WrappingProvider):
    """Wraps ``inner``; see the module docstring."""

    def __init__(self, inner: ChatProvider, new_id: Callable[[], str] = new_call_id) -> None:
        self._inner = inner
        self._new_id = new_id

    @property
    def inner(self) -> ChatProvider:
        return self._inner

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        if not request.tools:
            async with aclosing(self._inner.stream(request)) as chunks:  # type: ignore[type-var]
                async for chunk in chunks:
                    yield chunk
            return
        reader = _TextCallReader(OfferedTools.from_wire(request.tools), self._new_id)
        async with aclosing(self._inner.stream(request)) as chunks:  # type: ignore[type-var]
            try:
                async for chunk in chunks:
                    for out in reader.take(chunk):
                        yield out
            except ProviderError:
                for out in reader.release():
                    yield out
                raise
        for out in reader.finish():
            yield out


class _TextCallReader:
    def __init__(self, tools: OfferedTools, new_id: Callable[[], str]) -> None:
        self._tools = tools
        self._new_id = new_id
        self._held = ""
        self._mode: str | None = None  # "marked" or "json" while a possible call is held
        self._shown = False  # text other than whitespace went out
        self._native = False  # the server sent real tool calls
        self._calls = 0
        self._finished = False

    def take(self, chunk: StreamChunk) -> list[StreamChunk]:
        if isinstance(chunk, TextChunk) and not chunk.refusal and not self._native:
            if self._shown and self._mode is None and not self._held and _MARKER_STARTS.isdisjoint(chunk.text):
                return [chunk]  # the answer's text, with nothing in it that may begin a call: the common delta
            return self._text(chunk.text)
        if isinstance(chunk, ToolCallChunk) and not self._native:
            self._native = True
            return [*self.release(), chunk]
        if isinstance(chunk, FinishChunk):
            out = self._resolve()
            self._finished = True
            return [*out, FinishChunk("tool_calls" if self._calls else chunk.reason)]
        return [chunk]

    def finish(self) -> list[StreamChunk]:
        return [] if self._finished else self._resolve()

    def release(self) -> list[StreamChunk]:
        """What is held, as text."""
        held, self._held, self._mode = self._held, "", None
        return self._out(held)

    def _text(self, text: str) -> list[StreamChunk]:
        buffer = self._held + text
        if self._mode == "marked":
            self._held = buffer
            return []
        if self._mode == "json" or (not self._shown and buffer.lstrip()[:1] in ("{", "[", "`")):
            if _could_open_call(buffer):
                self._held, self._mode = buffer, "json"
                return []
            self._held, self._mode = "", None
        at = first_marker(buffer)
        if at >= 0:
            self._held, self._mode = buffer[at:], "marked"
            return self._out(buffer[:at])
        keep = _partial_marker_length(buffer)
        if not self._shown and not buffer.strip():
            keep = len(buffer)  # leading whitespace waits for what follows it
        self._held = buffer[len(buffer) - keep:] if keep else ""
        return self._out(buffer[: len(buffer) - keep])

    def _resolve(self) -> list[StreamChunk]:
        held = self._held
        if not held or self._native:
            return self.release()
        stripped = held.strip()
        calls: list[TextCall] | None
        if any(stripped.startswith(marker) for marker in MARKERS):
            calls = parse_marked(stripped, self._tools)
        else:
            calls = parse_whole_json(stripped, self._tools) if self._mode == "json" else None
        if not calls:
            return self.release()
        self._held, self._mode = "", None
        out: list[StreamChunk] = []
        for call in calls:
            out.append(ToolCallChunk(index=self._calls, id=self._new_id(), name=call.name, arguments=call.arguments))
            self._calls += 1
        return out

    def _out(self, text: str) -> list[StreamChunk]:
        if not text:
            return []
        if text.strip():
            self._shown = True
        return [TextChunk(text)]


def _could_open_call(text: str) -> bool:
    """Whether an answer that begins with ``text`` may still turn out to be a JSON call (or a marked one)."""
    stripped = text.lstrip()
    if stripped.startswith("[TOOL_CALLS]") or "[TOOL_CALLS]".startswith(stripped):
        return True
    if stripped.startswith("`"):
        if "```".startswith(stripped):
            return True
        if not stripped.startswith("```"):
            return False
        opener, newline, body = stripped[3:].partition("\n")
        language = opener.strip().lower()
        if not newline:
            return "json".startswith(language) or language == "json"
        if language not in ("", "json"):
            return False
        stripped = body
    compact = "".join(stripped.split())
    return any(opening.startswith(compact) or compact.startswith(opening) for opening in _JSON_OPENINGS)


def _partial_marker_length(text: str) -> int:
    """How many characters at the end of ``text`` may be the start of a marker. It runs on every streamed delta, so
    only a tail that begins with a marker's first character is tried against the markers."""
    for at in range(max(len(text) - _LONGEST_PARTIAL, 0), len(text)):
        if text[at] in _MARKER_STARTS:
            tail = text[at:]
            if any(marker.startswith(tail) for marker in MARKERS):
                return len(tail)
    return 0

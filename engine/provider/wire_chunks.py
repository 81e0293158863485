"""One streamed ``chat.completion.chunk``, as a plain dict, turned into our ``StreamChunk``s.

Servers differ from the OpenAI reference (SPEC 18), and each difference is read here, by its kind:
- ``content`` as a string, or as a list of parts (Mistral): ``text`` parts are text, ``thinking`` parts (whose
  ``thinking`` may itself be a list of parts) are reasoning;
- reasoning under ``reasoning_content`` (DeepSeek, vLLM, Qwen) or ``reasoning`` (OpenRouter, Groq, Ollama), or
  inline as ``<think>...</think>`` at the start of the content (``think_tags``);
- ``refusal`` is the answer, marked as a refusal;
- the legacy ``function_call`` is a tool call;
- any other field of the delta or of a tool call (``reasoning_details``, ``extra_content``...) is kept for the
  round trip, and so is ``reasoning_content``, which DeepSeek wants back;
- reasoning sent only as ``reasoning_details`` (OpenRouter): its ``reasoning.text`` and ``reasoning.summary`` items
  are the reasoning shown and saved (encrypted items carry none); the field itself is kept for the round trip;
- usage at the top level, under ``x_groq`` (Groq), or inside the choice (Moonshot); cached prompt tokens as
  ``prompt_tokens_details.cached_tokens`` (OpenAI, and most servers) or ``prompt_cache_hit_tokens`` (DeepSeek).
An event that reports an error is raised as ``ProviderError`` by the reader (``stream_reader``), not here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

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
from engine.provider.think_tags import ThinkTagSplitter

# Fields of a delta that this module reads itself; every other one is kept for the round trip.
_STANDARD_DELTA_FIELDS = frozenset(
    {"role", "content", "refusal", "tool_calls", "function_call", "reasoning", "reasoning_content", "name", "audio"}
)
_STANDARD_CALL_FIELDS = frozenset({"index", "id", "type", "function"})
# The one reasoning field sent back: DeepSeek refuses a tool-call history without it; ``reasoning`` is kept as the
# message's reasoning (SPEC 12) but not re-sent (Groq rejects it).
_ROUND_TRIP_REASONING = "reasoning_content"
# The legacy ``function_call`` has no index: it takes one no ``tool_calls`` entry would use.
LEGACY_CALL_INDEX = -1


class ChunkReader:
    """Reads the chunks of one stream in order (the inline ``<think>`` state lives across them)."""

    def __init__(self) -> None:
        self._think = ThinkTagSplitter()
        self.finish_reason: str | None = None

    def chunks(self, payload: dict[str, Any]) -> Iterator[StreamChunk]:
        for choice in payload.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta")
            if delta is None:
                delta = choice.get("message")  # a few servers send whole messages in their stream
            if isinstance(delta, dict):
                yield from self._delta(delta)
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                self.finish_reason = "tool_calls" if reason == "function_call" else reason
                yield FinishChunk(self.finish_reason)
        usage = usage_of(payload)
        if usage is not None:
            yield UsageChunk(usage)

    def finish(self) -> Iterator[StreamChunk]:
        """What the inline-reasoning state still holds when the stream ends."""
        yield from _text_and_reasoning(*self._think.finish())

    def _delta(self, delta: dict[str, Any]) -> Iterator[StreamChunk]:
        for field in ("reasoning_content", "reasoning"):
            reasoning = delta.get(field)
            if isinstance(reasoning, str) and reasoning:
                yield ReasoningChunk(reasoning)
                break
        else:
            if "reasoning_details" in delta and not any(
                isinstance(delta.get(field), str) for field in ("reasoning_content", "reasoning")
            ):
                details = _details_text(delta.get("reasoning_details"))
                if details:
                    yield ReasoningChunk(details)
        content = delta.get("content")
        if isinstance(content, str):
            if content:
                yield from _text_and_reasoning(*self._think.feed(content))
        elif isinstance(content, list):
            yield from self._parts(content)
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            yield TextChunk(refusal, refusal=True)
        for position, call in enumerate(delta.get("tool_calls") or ()):
            if isinstance(call, dict):
                yield _tool_call(call, position)
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            yield _tool_call({"index": LEGACY_CALL_INDEX, "function": legacy}, LEGACY_CALL_INDEX)
        extra = {
            key: value
            for key, value in delta.items()
            if value is not None and (key not in _STANDARD_DELTA_FIELDS or key == _ROUND_TRIP_REASONING)
        }
        if extra:
            yield ExtraChunk(extra)

    def _parts(self, parts: list[Any]) -> Iterator[StreamChunk]:
        for part in parts:
            if isinstance(part, str):
                yield from _text_and_reasoning(*self._think.feed(part))
            elif isinstance(part, dict):
                if part.get("type") in ("thinking", "reasoning"):
                    text = _part_text(part.get("thinking", part.get("reasoning", part.get("text"))))
                    if text:
                        yield ReasoningChunk(text)
                elif isinstance(part.get("text"), str) and part["text"]:
                    yield from _text_and_reasoning(*self._think.feed(part["text"]))


def usage_of(payload: dict[str, Any]) -> Usage | None:
    """The usage an event carries: at the top level, under ``x_groq``, or inside its first choice (Moonshot)."""
    usage = payload.get("usage") or (payload.get("x_groq") or {}).get("usage")
    if not isinstance(usage, dict):
        choices = payload.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        usage = first.get("usage") if isinstance(first, dict) else None
    if not isinstance(usage, dict):
        return None
    details = usage.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return Usage(
        prompt_tokens=_int(usage.get("prompt_tokens")),
        completion_tokens=_int(usage.get("completion_tokens")),
        total_tokens=_int(usage.get("total_tokens")),
        cached_tokens=cached or _int(usage.get("prompt_cache_hit_tokens")),
    )


def _details_text(details: Any) -> str:
    """The readable reasoning of ``reasoning_details`` items (``reasoning.text``, ``reasoning.summary``)."""
    if not isinstance(details, list):
        return ""
    pieces = []
    for item in details:
        if isinstance(item, dict) and item.get("type") in ("reasoning.text", "reasoning.summary"):
            value = item.get("text", item.get("summary"))
            if isinstance(value, str):
                pieces.append(value)
    return "".join(pieces)


def _text_and_reasoning(text: str, reasoning: str) -> Iterator[StreamChunk]:
    if reasoning:
        yield ReasoningChunk(reasoning)
    if text:
        yield TextChunk(text)


def _part_text(value: Any) -> str:
    """The text of a part's value: a string, a part, or a list of them (Magistral nests thinking parts)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_part_text(item) for item in value)
    if isinstance(value, dict):
        return _part_text(value.get("text", value.get("thinking", "")))
    return ""


def _tool_call(call: dict[str, Any], position: int) -> ToolCallChunk:
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if arguments is not None and not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)  # a few servers send the arguments as an object
    index = call.get("index")
    extra = {key: value for key, value in call.items() if key not in _STANDARD_CALL_FIELDS and value is not None}
    return ToolCallChunk(
        # Some servers leave out the index and send each call whole: its place in the list stands in.
        index=index if isinstance(index, int) else position,
        id=call.get("id") or None,
        name=function.get("name") if isinstance(function.get("name"), str) else None,
        arguments=arguments or "",
        extra=extra or None,
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0

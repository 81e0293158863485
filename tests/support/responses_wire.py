"""A scripted ``Reply`` in the Responses API's wire form, as the scripted server's ``POST /v1/responses`` sends it.

Streaming, the events OpenAI sends, in its order (each one an ``openai.types.responses.ResponseStreamEvent``):
``response.created``, ``response.in_progress``, then per output item ``response.output_item.added``, its part and
delta events and ``response.output_item.done``, then ``response.completed`` with the usage. A reasoning part is a
``reasoning`` item whose summary streams as ``response.reasoning_summary_text.delta`` and whose finished item
carries an ``encrypted_content`` (``enc:`` and the summary, so a test can see it come back); a text part is a
``message`` item of ``output_text``; a tool call is a ``function_call`` item whose arguments stream as
``response.function_call_arguments.delta``. Not streaming, the whole ``response`` object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.scenario import (
    ReasoningPart,
    Reply,
    TextPart,
    ToolCallPart,
    argument_pieces,
    text_pieces,
)

# A fixed creation time keeps rendered events deterministic.
_CREATED = 1_700_000_000

Event = tuple[str, dict[str, Any]]


def response_events(turn: Reply, model: str, next_call_id: Callable[[], str]) -> list[Event]:
    """Every event of the streamed answer, each as (SSE event name, payload), with their sequence numbers."""
    events: list[Event] = [
        ("response.created", {"response": _response(model, "in_progress", [], None)}),
        ("response.in_progress", {"response": _response(model, "in_progress", [], None)}),
    ]
    items: list[dict[str, Any]] = []
    for index, part in enumerate(turn.parts):
        item_events, item = _item_events(part, index, next_call_id)
        events += item_events
        items.append(item)
    usage = _usage(turn.usage, turn.cached_tokens) if turn.usage is not None else None
    events.append(("response.completed", {"response": _response(model, "completed", items, usage)}))
    return [(name, {"type": name, "sequence_number": number, **payload})
            for number, (name, payload) in enumerate(events)]


def whole_response(turn: Reply, model: str, next_call_id: Callable[[], str]) -> dict[str, Any]:
    """The non-streaming answer: the ``response`` object with every output item."""
    items = [_item_events(part, index, next_call_id)[1] for index, part in enumerate(turn.parts)]
    usage = _usage(turn.usage, turn.cached_tokens) if turn.usage is not None else None
    return _response(model, "completed", items, usage)


def _item_events(
    part: ReasoningPart | TextPart | ToolCallPart, index: int, next_call_id: Callable[[], str]
) -> tuple[list[Event], dict[str, Any]]:
    at = {"output_index": index}
    match part:
        case ReasoningPart(text=text, chunk=size):
            item_id = f"rs_{index}"
            summary = {"type": "summary_text", "text": text}
            done = {"id": item_id, "type": "reasoning", "summary": [summary], "encrypted_content": f"enc:{text}"}
            where = {**at, "item_id": item_id, "summary_index": 0}
            events: list[Event] = [
                ("response.output_item.added", {**at, "item": {"id": item_id, "type": "reasoning", "summary": []}}),
                ("response.reasoning_summary_part.added", {**where, "part": {"type": "summary_text", "text": ""}}),
                *(("response.reasoning_summary_text.delta", {**where, "delta": piece})
                  for piece in text_pieces(text, size)),
                ("response.reasoning_summary_text.done", {**where, "text": text}),
                ("response.reasoning_summary_part.done", {**where, "part": summary}),
            ]
        case TextPart(text=text, chunk=size):
            item_id = f"msg_{index}"
            content = {"type": "output_text", "text": text, "annotations": []}
            done = {"id": item_id, "type": "message", "role": "assistant", "status": "completed", "content": [content]}
            where = {**at, "item_id": item_id, "content_index": 0}
            events = [
                ("response.output_item.added", {**at, "item": {**done, "status": "in_progress", "content": []}}),
                ("response.content_part.added", {**where, "part": {**content, "text": ""}}),
                *(("response.output_text.delta", {**where, "delta": piece, "logprobs": []})
                  for piece in text_pieces(text, size)),
                ("response.output_text.done", {**where, "text": text, "logprobs": []}),
                ("response.content_part.done", {**where, "part": content}),
            ]
        case ToolCallPart(name=name, arguments=arguments, id=call_id):
            item_id = f"fc_{index}"
            done = {"id": item_id, "type": "function_call", "status": "completed", "call_id": call_id or next_call_id(),
                    "name": name, "arguments": arguments}
            where = {**at, "item_id": item_id}
            events = [
                ("response.output_item.added", {**at, "item": {**done, "status": "in_progress", "arguments": ""}}),
                *(("response.function_call_arguments.delta", {**where, "delta": piece})
                  for piece in argument_pieces(arguments)),
                ("response.function_call_arguments.done", {**where, "name": name, "arguments": arguments}),
            ]
    events.append(("response.output_item.done", {**at, "item": done}))
    return events, done


def _response(model: str, status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": "resp_scripted", "object": "response", "created_at": _CREATED, "status": status, "model": model,
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "error": None,
        "incomplete_details": None, "instructions": None, "metadata": {}, "temperature": 1.0, "top_p": 1.0,
        "usage": usage,
    }


def _usage(usage: tuple[int, int], cached: int) -> dict[str, Any]:
    prompt, completion = usage
    return {
        "input_tokens": prompt, "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
        "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + completion,
    }

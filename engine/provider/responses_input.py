"""A chat request (Chat Completions messages and tools, as the session keeps them) as the body of a Responses API
request: the leading system message becomes ``instructions``, the rest ``input`` items, as Codex sends its history.

- a user message is a ``message`` item of ``input_text`` (and ``input_image``) parts; a later system message
  (none today, but a history may hold one) is a ``developer`` message;
- an assistant message is first the reasoning items it came with (``REASONING_ITEMS``, with their encrypted content:
  no state is stored on the server, ``store: false``, so the model gets its reasoning back this way; items are sent
  without the ids the server gave them, which would refer to stored state), then its text
  as an ``output_text`` message, then one ``function_call`` item per tool call, under the call's id;
- a tool message is a ``function_call_output`` for its call;
- a function tool is ``{"type": "function", name, description, parameters, strict: false}``: the tools' schemas are
  not written for strict mode, which the Responses API would otherwise apply.
Nothing in the body changes from one request of a session to the next but the items added at its end, so the
server's prompt cache keeps the prefix.
"""

from __future__ import annotations

from typing import Any

from engine.provider.responses_stream import REASONING_ITEMS

# Asks for the reasoning items' encrypted content, to send it back (``store: false`` keeps nothing on the server).
INCLUDE = ["reasoning.encrypted_content"]


def responses_body(
    model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], options: dict[str, Any]
) -> dict[str, Any]:
    """The request body: ``model``, ``instructions`` (when there is a system prompt), ``input``, ``tools`` (when
    any), then ``options``."""
    body: dict[str, Any] = {"model": model}
    if messages and messages[0].get("role") == "system":
        body["instructions"] = _text_of(messages[0].get("content"))
        messages = messages[1:]
    body["input"] = [item for message in messages for item in input_items(message)]
    if tools:
        body["tools"] = [function_tool(tool) for tool in tools]
    body.update(options)
    return body


def input_items(message: dict[str, Any]) -> list[dict[str, Any]]:
    role = message.get("role")
    if role == "assistant":
        return _assistant_items(message)
    if role == "tool":
        return [{"type": "function_call_output", "call_id": message.get("tool_call_id") or "",
                 "output": _text_of(message.get("content"))}]
    return [{"type": "message", "role": "user" if role == "user" else "developer",
             "content": _input_parts(message.get("content"))}]


def function_tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool.get("function") or {}
    return {
        "type": "function",
        "name": function.get("name", ""),
        "description": function.get("description", ""),
        "parameters": function.get("parameters") or {"type": "object", "properties": {}},
        "strict": False,
    }


def _assistant_items(message: dict[str, Any]) -> list[dict[str, Any]]:
    items = [_reasoning_item(item) for item in message.get(REASONING_ITEMS) or () if isinstance(item, dict)]
    text = _text_of(message.get("content"))
    if text:
        items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        items.append({"type": "function_call", "call_id": call.get("id", ""), "name": function.get("name", ""),
                      "arguments": function.get("arguments", "")})
    return items


def _reasoning_item(item: dict[str, Any]) -> dict[str, Any]:
    """A reasoning item as it is sent back: its summary, its raw reasoning text when it has one, its encrypted
    content; not its id (nothing is stored on the server to refer to, as Codex sends it)."""
    sent: dict[str, Any] = {"type": "reasoning", "summary": item.get("summary") or []}
    content = item.get("content")
    if isinstance(content, list) and any(isinstance(part, dict) and part.get("type") == "reasoning_text"
                                         for part in content):
        sent["content"] = content
    sent["encrypted_content"] = item.get("encrypted_content")
    return sent


def _input_parts(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return [{"type": "input_text", "text": _text_of(content)}]
    parts: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            url = (part.get("image_url") or {}).get("url", "")
            parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
        elif isinstance(part.get("text"), str):
            parts.append({"type": "input_text", "text": part["text"]})
    return parts


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""

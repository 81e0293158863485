"""Sampling (SPEC 22): an MCP server's ``sampling/createMessage`` as a request to the session's model, and the
model's answer as the server's ``CreateMessageResult``. What the user approves is shown by ``sampling_preview``."""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

from engine.mcp.results import IMAGE_MIMES
from engine.provider.base import ChatProvider, ChatRequest, TextChunk

# How much of the request the approval dialog's key argument shows.
_EXCERPT_CHARS = 80


def sampling_messages(params: Any) -> list[dict[str, Any]]:
    """The request's system prompt and messages in the chat API's form: text as text, an image as an image part,
    anything else named in words."""
    messages: list[dict[str, Any]] = []
    if params.system_prompt:
        messages.append({"role": "system", "content": params.system_prompt})
    for message in params.messages:
        parts = [_part(block) for block in _blocks(message.content)]
        if all(part["type"] == "text" for part in parts):
            messages.append({"role": message.role, "content": "\n".join(part["text"] for part in parts)})
        else:
            messages.append({"role": message.role, "content": parts})
    return messages


def sampling_preview(server: str, params: Any) -> tuple[str, str]:
    """(the key argument, the whole request as text) for the approval dialog."""
    lines = [f"system: {params.system_prompt}"] if params.system_prompt else []
    for message in params.messages:
        for block in _blocks(message.content):
            part = _part(block)
            lines.append(f"{message.role}: {part['text'] if part['type'] == 'text' else '[image]'}")
    lines.append(f"(at most {params.max_tokens} tokens)")
    last = next((line for line in reversed(lines[:-1]) if line.startswith("user: ")), lines[0])
    key = last.removeprefix("user: ").replace("\n", " ")
    key = key if len(key) <= _EXCERPT_CHARS else key[: _EXCERPT_CHARS - 1] + "…"
    return key, "\n".join(lines)


async def sample(provider: ChatProvider, model: str, params: Any) -> Any:
    """The model's answer as a ``CreateMessageResult`` (``ProviderError`` when the model cannot be reached)."""
    from mcp_types import CreateMessageResult, TextContent

    parts: list[str] = []
    request = ChatRequest(model=model, messages=sampling_messages(params), tools=[])
    async with aclosing(provider.stream(request)) as chunks:  # closed in this task, even when cancelled
        async for chunk in chunks:
            if isinstance(chunk, TextChunk):
                parts.append(chunk.text)
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text="".join(parts)), model=model, stop_reason="endTurn"
    )


def _blocks(content: Any) -> list[Any]:
    return list(content) if isinstance(content, list) else [content]


def _part(block: Any) -> dict[str, Any]:
    kind = getattr(block, "type", "")
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "image" and block.mime_type.lower() in IMAGE_MIMES:
        return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}
    return {"type": "text", "text": f"[{kind or 'unknown'} content the model cannot take]"}

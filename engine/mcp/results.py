"""A server's ``CallToolResult`` as the tool message the model reads: the text of every content block (images and
audio described, embedded resources inlined), the structured content when it adds something, capped like bash
output. An ``isError`` result is a tool error, so the model sees ``{"ok": false, "error": ...}``."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from engine.errors import ToolError
from engine.tools.bash import CappedOutput


def result_data(result: Any, cap_bytes: int) -> dict[str, Any]:
    """``{"content": text}`` and, when it is not just the text again, ``"structured_content"``."""
    text = content_text(result.content)
    if result.is_error:
        raise ToolError(_cap(text, cap_bytes) or "the MCP tool reported an error without a message")
    data: dict[str, Any] = {"content": _cap(text, cap_bytes)}
    structured = result.structured_content
    if structured is not None and not _same_as_text(structured, text):
        encoded = json.dumps(structured, ensure_ascii=False)
        data["structured_content"] = structured if len(encoded.encode()) <= cap_bytes else _cap(encoded, cap_bytes)
    return data


def content_text(blocks: list[Any]) -> str:
    return "\n".join(block_text(block) for block in blocks)


def block_text(block: Any) -> str:
    """One content block in words. Images and audio are described: the model gets no binary in a tool message."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {decoded_size(block.data)} bytes]"
    if kind == "resource":
        resource = block.resource
        if getattr(resource, "text", None) is not None:
            return f"[resource {resource.uri}]\n{resource.text}"
        return f"[resource {resource.uri}: {resource.mime_type or 'binary'}, {decoded_size(resource.blob)} bytes]"
    if kind == "resource_link":
        return f"[resource link {block.uri}: {block.name}]"
    return f"[{kind or 'unknown'} content]"


def decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _same_as_text(structured: Any, text: str) -> bool:
    """Servers often send the same JSON twice (as text and structured); once is enough for the model."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = text
    return parsed == structured or structured == {"result": parsed}


def _cap(text: str, cap_bytes: int) -> str:
    capped = CappedOutput(cap_bytes)
    capped.feed(text.encode("utf-8"))
    return capped.text()

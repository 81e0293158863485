"""A server's ``CallToolResult`` as the tool message the model reads: the text of every content block (images and
audio described, embedded resources inlined), the structured content when it adds something, capped like bash
output. An ``isError`` result is a tool error, so the model sees ``{"ok": false, "error": ...}``.

Images (image blocks, and embedded image resources) go to the model as images: ``result_images`` gives their bytes,
which the turn sends as ``image_url`` parts right after the tool results. Base64 never reaches the model as text: a
``structuredContent`` that carries an image's or audio's data (servers often mirror their content blocks there) is
left out, with a note."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from engine.errors import ToolError
from engine.record import record
from engine.tools.bash import CappedOutput

# The image types a model takes (``engine.context.mentions.IMAGE_TYPES``).
IMAGE_MIMES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
# A base64 run this long found in the structured content is the same binary again.
_BINARY_MIN_CHARS = 64


def result_data(result: Any, cap_bytes: int) -> dict[str, Any]:
    """``{"content": text}`` and, when it is not just the text again, ``"structured_content"``."""
    text = content_text(result.content)
    if result.is_error:
        raise ToolError(_cap(text, cap_bytes) or "the MCP tool reported an error without a message")
    data: dict[str, Any] = {"content": _cap(text, cap_bytes)}
    structured = result.structured_content
    if structured is not None and _carries_binary(structured, result.content):
        data["structured_content"] = "[left out: it repeats the binary data of the content above]"
    elif structured is not None and not _same_as_text(structured, text):
        encoded = json.dumps(structured, ensure_ascii=False)
        data["structured_content"] = structured if len(encoded.encode()) <= cap_bytes else _cap(encoded, cap_bytes)
    return data


@record
class ResultImage:
    mime: str
    data: bytes


def result_images(blocks: list[Any]) -> list[ResultImage]:
    """The images among a result's content blocks (a model takes png, jpeg, gif and webp), decoded."""
    images = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "image":
            mime, data = block.mime_type, block.data
        elif kind == "resource" and getattr(block.resource, "blob", None) is not None:
            mime, data = block.resource.mime_type or "", block.resource.blob
        else:
            continue
        if mime.lower() not in IMAGE_MIMES:
            continue
        try:
            images.append(ResultImage(mime.lower(), base64.b64decode(data, validate=True)))
        except (binascii.Error, ValueError):
            continue
    return images


def content_text(blocks: list[Any]) -> str:
    return "\n".join(block_text(block) for block in blocks)


def block_text(block: Any) -> str:
    """One content block in words. Images and audio are described: the model gets no binary in a tool message."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "image" and block.mime_type.lower() in IMAGE_MIMES:
        return f"[image: {block.mime_type}, {decoded_size(block.data)} bytes; attached after the tool results]"
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {decoded_size(block.data)} bytes]"
    if kind == "resource":
        resource = block.resource
        if getattr(resource, "text", None) is not None:
            return f"[resource {resource.uri}]\n{resource.text}"
        shown = "; attached after the tool results" if (resource.mime_type or "").lower() in IMAGE_MIMES else ""
        return f"[resource {resource.uri}: {resource.mime_type or 'binary'}, {decoded_size(resource.blob)} bytes{shown}]"
    if kind == "resource_link":
        return f"[resource link {block.uri}: {block.name}]"
    return f"[{kind or 'unknown'} content]"


def decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _carries_binary(structured: Any, blocks: list[Any]) -> bool:
    """Whether ``structured`` holds the base64 data of one of the binary blocks (an image, audio, a blob)."""
    payloads = []
    for block in blocks:
        data = getattr(block, "data", None) or getattr(getattr(block, "resource", None), "blob", None)
        if isinstance(data, str) and len(data) >= _BINARY_MIN_CHARS:
            payloads.append(data[:_BINARY_MIN_CHARS])
    if not payloads:
        return False
    encoded = json.dumps(structured, ensure_ascii=False)
    return any(payload in encoded for payload in payloads)


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

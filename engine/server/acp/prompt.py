"""A ``session/prompt``'s content blocks as one engine input (SPEC 24).

Text is taken as it is; a resource link inside the workspace becomes an ``@path`` mention (the engine attaches the
file as it does in the TUI); an embedded text resource is given as context; an image is stored once under
``.coder/blobs/`` and named by its path, which the engine turns into an ``image_url`` part exactly as it does for a
pasted image path. A block the engine cannot take (audio, a binary resource) is refused with a clear error rather
than dropped.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any

from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)

from engine.context.images import MAX_IMAGE_BYTES
from engine.storage.sessions.blobs import BlobStore

# The image types the engine sends to a model (``engine.context.mentions.IMAGE_TYPES``), by MIME type.
IMAGE_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/jpg": ".jpg", "image/gif": ".gif",
                  "image/webp": ".webp"}


class PromptError(ValueError):
    """A block of the prompt cannot be taken; the message names the block and why."""


def prompt_text(blocks: list[Any], workspace: Path) -> str:
    parts: list[str] = []
    for index, block in enumerate(blocks):
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(_mention(block.uri, workspace))
        elif isinstance(block, EmbeddedResourceContentBlock):
            parts.append(_embedded(block.resource, index))
        elif isinstance(block, ImageContentBlock):
            parts.append(_image(block, index, workspace))
        elif isinstance(block, AudioContentBlock):
            raise PromptError(f"prompt[{index}]: audio is not supported (promptCapabilities.audio is false)")
    return " ".join(part for part in parts if part)


def _embedded(resource: Any, index: int) -> str:
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return f'\n<context uri="{resource.uri}">\n{text}\n</context>\n'
    mime = getattr(resource, "mime_type", None) or "binary"
    raise PromptError(f"prompt[{index}]: the embedded resource {resource.uri} is {mime}; only text resources "
                      "and images (as image blocks) can be taken")


def _image(block: ImageContentBlock, index: int, workspace: Path) -> str:
    suffix = IMAGE_SUFFIXES.get(block.mime_type.lower())
    if suffix is None:
        raise PromptError(f"prompt[{index}]: image type {block.mime_type!r} is not supported "
                          f"(one of {', '.join(sorted(set(IMAGE_SUFFIXES)))})")
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PromptError(f"prompt[{index}]: the image data is not valid base64: {exc}") from exc
    if not data:
        raise PromptError(f"prompt[{index}]: the image is empty")
    if len(data) > MAX_IMAGE_BYTES:
        raise PromptError(f"prompt[{index}]: the image is {len(data) // 1_048_576} MB; images are at most "
                          f"{MAX_IMAGE_BYTES // 1_048_576} MB")
    path = BlobStore.for_workspace(workspace).put(data, suffix)
    return f"'{path}'"


def _mention(uri: str, workspace: Path) -> str:
    path = Path(uri.removeprefix("file://"))
    try:
        return "@" + path.resolve().relative_to(workspace).as_posix()
    except ValueError:
        return uri

"""Images in requests (SPEC 23): an ``@shot.png`` mention or a pasted image path becomes an ``image_url`` part of
the user message, its bytes stored once under ``.coder/blobs/``. A model or server that refuses images gets a plain
error naming the cause, and the request goes again without them (for the rest of the session)."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.context.mentions import IMAGE_TYPES
from engine.context.user_images import user_image_path
from engine.errors import PathOutsideWorkspace, ProviderError
from engine.events import Event, Notice
from engine.messages import ImageRef
from engine.storage.sessions.blobs import BlobStore
from engine.tools.guard import Workspace

MAX_IMAGE_BYTES = 20 * 1024 * 1024
NOT_SENT = "[an attached image was not sent: this model or server does not take images]"
_EXT = r"\.(?:png|jpe?g|gif|webp)"
# A pasted path (as a terminal pastes a dragged file): quoted, or unquoted with backslash-escaped spaces.
PASTED_PATH = re.compile(
    rf"""'((?:~|/)[^'\n]+?{_EXT})'|"((?:~|/)[^"\n]+?{_EXT})"|(?<!\S)((?:~|/)(?:\\ |\S)+?{_EXT})(?!\S)""",
    re.IGNORECASE,
)


def pasted_image_paths(text: str, workspace: Workspace, problems: list[str]) -> list[Path]:
    """Absolute (or ``~``) paths of existing image files pasted into ``text``, by the rule an ``@`` mention of them
    follows (``user_image_path``): one the rule refuses is named in ``problems``."""
    found: list[Path] = []
    for match in PASTED_PATH.finditer(text):
        raw = next(group for group in match.groups() if group).replace("\\ ", " ")
        if not Path(raw).expanduser().is_file():
            continue
        try:
            path = user_image_path(raw, workspace)
        except PathOutsideWorkspace as exc:
            problems.append(f"{Path(raw).name} not attached: {exc}")
            continue
        except OSError as exc:
            problems.append(f"{Path(raw).name} not attached: {exc.strerror or exc}")
            continue
        if path not in found:
            found.append(path)
    return found


def attach_images(paths: list[Path], blobs: BlobStore, problems: list[str]) -> list[ImageRef]:
    """Stores each image as a blob; an image that cannot be read or is too large is named in ``problems``."""
    refs: list[ImageRef] = []
    for path in paths:
        try:
            data = _read_capped(path)
            if data is None:
                problems.append(f"{path.name} not attached: images are at most {MAX_IMAGE_BYTES // 1_048_576} MB")
                continue
            blob = blobs.put(data, path.suffix)
        except OSError as exc:
            problems.append(f"{path.name} not attached: cannot read it ({exc.strerror or exc})")
            continue
        refs.append(ImageRef(blob=str(blob), mime=IMAGE_TYPES[path.suffix.lower()], name=path.name))
    return refs


def _read_capped(path: Path) -> bytes | None:
    """The image's bytes, or None when it is larger than ``MAX_IMAGE_BYTES``: the size is checked on the opened file
    and no more than the cap is ever read (a file that grows, or a FIFO or device named like an image, cannot make it
    read without end)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if info.st_size > MAX_IMAGE_BYTES:
            return None
        data = handle.read(MAX_IMAGE_BYTES + 1)
    return None if len(data) > MAX_IMAGE_BYTES else data


def carries_images(messages: list[dict[str, Any]]) -> bool:
    return any(_image_parts(message) for message in messages)


def without_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's messages with every image part replaced by a short note, so the text still goes through."""
    stripped = []
    for message in messages:
        if not _image_parts(message):
            stripped.append(message)
            continue
        parts = [
            part if part.get("type") != "image_url" else {"type": "text", "text": NOT_SENT}
            for part in message["content"]
        ]
        stripped.append({**message, "content": parts})
    return stripped


def refused_images(exc: ProviderError, messages: list[dict[str, Any]], emit: Callable[[Event], None]) -> bool:
    """True when ``exc`` is the server refusing a request that carried images (a 4xx answer): the user is told why,
    and the caller sends the request again without them."""
    if not carries_images(messages) or exc.status is None or not 400 <= exc.status < 500 or exc.status == 429:
        return False
    emit(Notice(f"the model or server refused the attached image(s): {exc}. Sending the request again without "
                "images; this session sends no more of them.", level="warning"))
    return True


def _image_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [part for part in content if isinstance(part, dict) and part.get("type") == "image_url"]

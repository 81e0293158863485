"""Recorded answers of real servers, one file each, replayed byte for byte by the scripted server.

A file is a few header lines, a ``---`` line, then the body exactly as the server sent it::

    # Ollama: parallel tool calls reuse index 0, each with its own id.
    # expect {"tool_calls": [{"name": "read", "arguments": "{\\"path\\":\\"a.py\\"}"}]}
    # reply {"status": 200, "content_type": "text/event-stream", "drop": false}
    ---
    data: {"choices": [...]}

``# expect`` lines (JSON objects, merged) say what the client must make of it; ``# reply`` sets the HTTP status,
the content type and whether the connection drops after the body; other ``#`` lines describe the stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.scenario import RawReply

_SEPARATOR = b"\n---\n"


@dataclass(frozen=True)
class RecordedStream:
    name: str
    description: str
    reply: RawReply
    expect: dict[str, Any] = field(default_factory=dict)


def load_recorded_stream(path: Path) -> RecordedStream:
    data = path.read_bytes()
    head, separator, body = data.partition(_SEPARATOR)
    if not separator:
        raise ValueError(f"{path}: no '---' line between the header and the recorded body")
    expect: dict[str, Any] = {}
    options: dict[str, Any] = {}
    description: list[str] = []
    for line in head.decode().splitlines():
        text = line.removeprefix("#").strip()
        if text.startswith("expect "):
            expect.update(json.loads(text.removeprefix("expect ")))
        elif text.startswith("reply "):
            options.update(json.loads(text.removeprefix("reply ")))
        elif text:
            description.append(text)
    return RecordedStream(path.stem, " ".join(description), RawReply(body, **options), expect)


def load_recorded_streams(folder: Path) -> list[RecordedStream]:
    return [load_recorded_stream(path) for path in sorted(folder.glob("*.sse"))]

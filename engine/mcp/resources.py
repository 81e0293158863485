"""``@server:uri`` in a request attaches that MCP resource, as ``@path`` attaches a file: the server is asked for
it when the turn starts. A mention whose server is not configured is ordinary text and left alone."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.errors import ToolError
from engine.mcp.connection import ServerConnection
from engine.mcp.results import decoded_size

MENTION = re.compile(r"(?<!\S)@([A-Za-z0-9_.-]+):(\S+)")
MAX_ATTACHED_BYTES = 100_000
_TRAILING = ".,;!?)]}\"'"


async def attach_resources(text: str, connections: Mapping[str, ServerConnection]) -> tuple[str, list[str]]:
    """The text with each mentioned resource attached once, and the problems worth telling the user."""
    attachments: list[str] = []
    problems: list[str] = []
    seen: set[tuple[str, str]] = set()
    for match in MENTION.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(_TRAILING)
        connection = connections.get(server)
        if connection is None or (server, uri) in seen:
            continue
        seen.add((server, uri))
        try:
            result = await connection.read_resource(uri)
        except ToolError as exc:
            problems.append(f"@{server}:{uri} not attached: {exc}")
            continue
        body = "\n".join(_contents_text(item) for item in result.contents)
        data = body.encode("utf-8")
        note = ""
        if len(data) > MAX_ATTACHED_BYTES:
            body = data[:MAX_ATTACHED_BYTES].decode("utf-8", errors="ignore")
            note = f' truncated="first {MAX_ATTACHED_BYTES} bytes"'
        attachments.append(f'<resource server="{server}" uri="{uri}"{note}>\n{body}\n</resource>')
    if not attachments:
        return text, problems
    return text + "\n\n" + "\n\n".join(attachments), problems


def _contents_text(item: Any) -> str:
    """Text as it is; a blob described (the model reads no binary)."""
    if getattr(item, "text", None) is not None:
        return str(item.text)
    return f"[{item.mime_type or 'binary'}, {decoded_size(item.blob)} bytes]"

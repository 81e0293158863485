"""The demo fallback for manual tries: a model stand-in that needs no script.

- A message containing ``!tool NAME {json}`` gets that tool call back. (A TUI input *starting* with ``!`` is a bang
  command, so put a word first: ``try !tool read {"path": "README.md"}``.)
- After a tool result it answers with a short summary of that result.
- Anything else is echoed back as streamed Markdown with a code block.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.scenario import Slow, raw_tool_call, reply, slow, text

_TOOL_REQUEST = re.compile(r"!tool\s+(?P<name>[\w-]+)\s*(?P<arguments>.*)", re.DOTALL)
_PREVIEW_CHARS = 400


def demo_reply(body: dict[str, Any]) -> Slow:
    messages = body.get("messages") or [{}]
    last = messages[-1]
    content = _text_of(last.get("content"))
    if last.get("role") == "tool":
        preview = content if len(content) <= _PREVIEW_CHARS else content[:_PREVIEW_CHARS] + "\n..."
        tool = last.get("name") or "tool"
        summary = f"The **{tool}** call returned {len(content)} characters:\n\n```\n{preview}\n```\n"
        return slow(text(summary), delay=0.02)
    request = _TOOL_REQUEST.search(content)
    if request:
        return slow(reply(raw_tool_call(request["name"], _first_json(request["arguments"]))), delay=0.02)
    echo = (
        f"### Echo\n\nYou wrote {len(content)} characters:\n\n```text\n{content}\n```\n\n"
        "_Scripted demo server: write `!tool NAME {json}` in a message to get a tool call._\n"
    )
    return slow(text(echo, chunk=3), delay=0.02)


def _first_json(text: str) -> str:
    """The JSON object right after the tool name; whatever follows it (more prose, a reminder the app appended to
    the request) is not part of the call. Broken JSON is passed on as it is, for trying error handling."""
    text = text.strip()
    try:
        _, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError:
        return text or "{}"
    return text[:end]


def _text_of(content: Any) -> str:
    """Message content as text; the API also allows a list of ``{"type": "text", "text": ...}`` parts."""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""

"""The server's own words from an error body, whatever shape it comes in.

OpenAI nests them (``{"error": {"message": ...}}``), Gemini wraps that in a list, vLLM and FastAPI servers say
``{"object": "error", "message": ...}`` or ``{"detail": ...}``, Ollama ``{"error": "..."}``, proxies answer with plain
text or an HTML page.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

MAX_DETAIL_CHARS = 300
_MESSAGE_KEYS = ("message", "detail", "error", "msg", "description", "title")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_HIDDEN = re.compile(r"<(script|style)\b.*?</\1>", re.IGNORECASE | re.DOTALL)


def server_message(body: Any) -> str | None:
    """One line of what the server said, or None when the body says nothing readable."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        text = body.strip()
        if text[:1] in ("{", "["):
            try:
                return server_message(json.loads(text))
            except ValueError:
                pass
        return one_line(_html_text(text)) if text else None
    if isinstance(body, list):
        return next((found for item in body if (found := server_message(item))), None)
    if isinstance(body, dict):
        for key in _MESSAGE_KEYS:
            found = server_message(body.get(key)) if body.get(key) is not None else None
            if found:
                return found
    return None


def is_error_payload(payload: dict[str, Any]) -> bool:
    """Whether a streamed JSON event reports an error (OpenRouter sends one with ``choices`` beside it)."""
    if payload.get("error"):
        return True
    return not payload.get("choices") and (payload.get("object") == "error" or payload.get("type") == "error")


def one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_DETAIL_CHARS else line[: MAX_DETAIL_CHARS - 3] + "..."


def _html_text(text: str) -> str:
    """An HTML page's title (or its visible text); other text unchanged."""
    if "<" not in text or not re.search(r"<(!doctype|html|head|body|title|h1|p)\b", text, re.IGNORECASE):
        return text
    title = _TITLE.search(text)
    if title and title.group(1).strip():
        return html.unescape(title.group(1))
    return html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text)))

"""Fields kept for the round trip (``reasoning_content``, ``reasoning_details``...) that a strict server refuses.

What one server sends on an assistant message is sent back to it (SPEC 18); after a switch of model the history
can reach a server that rejects such a field with a 400 naming it (Groq: "property 'reasoning_content' is
unsupported"). The provider then leaves those fields out of its requests, keeping them in the session.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_STANDARD_MESSAGE_FIELDS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id", "refusal"})
_STANDARD_CALL_FIELDS = frozenset({"id", "type", "function"})
# An error that asks for a field (DeepSeek: "must be passed back") is not a refusal of it.
_ASKS_FOR_IT = re.compile(r"must be (passed|sent|included)|is required|missing", re.IGNORECASE)


def extra_fields(messages: Iterable[dict[str, Any]]) -> set[str]:
    """The non-standard fields on the assistant messages and their tool calls."""
    found: set[str] = set()
    for message in messages:
        if message.get("role") != "assistant":
            continue
        found.update(key for key in message if key not in _STANDARD_MESSAGE_FIELDS)
        for call in message.get("tool_calls") or ():
            found.update(key for key in call if key not in _STANDARD_CALL_FIELDS)
    return found


def fields_named_in(error_text: str, messages: list[dict[str, Any]]) -> set[str]:
    """The round-trip fields of ``messages`` that a server's error message names as refused."""
    if _ASKS_FOR_IT.search(error_text):
        return set()
    return {field for field in extra_fields(messages) if re.search(rf"\b{re.escape(field)}\b", error_text)}


def without_fields(messages: list[dict[str, Any]], fields: set[str]) -> list[dict[str, Any]]:
    """``messages`` with ``fields`` left out of assistant messages and tool calls (copies; the input is unchanged)."""
    result = []
    for message in messages:
        if message.get("role") == "assistant" and (fields.intersection(message) or message.get("tool_calls")):
            message = {key: value for key, value in message.items() if key not in fields}
            if message.get("tool_calls"):
                message["tool_calls"] = [
                    {key: value for key, value in call.items() if key not in fields} for call in message["tool_calls"]
                ]
        result.append(message)
    return result

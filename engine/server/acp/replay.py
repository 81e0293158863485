"""``session/load``: a stored conversation told again as the updates that made it (SPEC 24).

User messages become ``user_message_chunk``, the assistant's text and reasoning message and thought chunks, and
each tool call a finished ``tool_call`` carrying its result, so the client's view matches the one it would have
had live.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_user_message_text,
)

from engine.messages import Message
from engine.server.acp.updates import MAX_RESULT_CHARS, tool_kind, tool_locations, tool_title


def replay_updates(messages: Sequence[Message], workspace: Path) -> list[Any]:
    results = {m.tool_call_id: m.content or "" for m in messages if m.role == "tool" and m.tool_call_id}
    updates: list[Any] = []
    for message in messages:
        if message.role == "user" and message.content:
            updates.append(update_user_message_text(message.content))
        elif message.role == "assistant":
            if message.reasoning:
                updates.append(update_agent_thought_text(message.reasoning))
            if message.content:
                updates.append(update_agent_message_text(message.content))
            for call in message.tool_calls or ():
                updates.append(
                    _finished_call(call.id, call.name, call.function.arguments, results.get(call.id), workspace)
                )
    return updates


def _finished_call(call_id: str, tool: str, arguments_json: str, result: str | None, workspace: Path) -> Any:
    try:
        arguments = json.loads(arguments_json or "{}")
    except json.JSONDecodeError:
        arguments = {}
    if not isinstance(arguments, dict):
        arguments = {}
    failed = result is None or _failed(result)
    text = result if result is not None else "(no result: the process stopped during this call)"
    return start_tool_call(
        call_id,
        tool_title(tool, _key(arguments)),
        kind=tool_kind(tool),  # type: ignore[arg-type]
        status="failed" if failed else "completed",
        content=[tool_content(text_block(text[:MAX_RESULT_CHARS]))],
        locations=tool_locations(arguments, workspace) or None,
        raw_input=arguments,
    )


def _key(arguments: dict[str, Any]) -> str:
    for name in ("command", "path", "pattern", "url", "description", "name"):
        value = arguments.get(name)
        if isinstance(value, str):
            return value
    return ""


def _failed(result: str) -> bool:
    try:
        data = json.loads(result)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and data.get("ok") is False

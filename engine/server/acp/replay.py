"""``session/load``: a stored conversation told again as the updates that made it (SPEC 24).

The session's whole history (every context epoch, as the TUI shows it on ``/resume``) is told: a user message
becomes ``user_message_chunk`` with the user's own words (what the engine added to it, attached files, folder
listings, MCP resources, hook context and reminders, is left out) and its images; the assistant's text and
reasoning become message and thought chunks; each tool call a finished ``tool_call`` carrying its result, and for a
write, edit or patch the diff it made; and the todo list at the end becomes the plan.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_user_message,
    update_user_message_text,
)
from acp.schema import ImageContentBlock

from engine.context.added_blocks import split_added
from engine.events import TodoItem
from engine.messages import Message
from engine.restored import RestoredEntry
from engine.server.acp.updates import MAX_RESULT_CHARS, PLAN_STATUS, tool_kind, tool_locations, tool_title
from engine.errors import ToolError
from engine.tools.patch_parse import ChangeKind, parse_patch

# An image an ACP client sent, named in the text by its blob path (``engine.server.acp.prompt``).
# The message carrying the images tool calls returned (``engine.orchestrator.steps.tools.images_message``).
_TOOL_IMAGES = re.compile(r"\[\d+ images? returned by the tool call results above")
_BLOB_PATH = re.compile(r"'(/[^'\n]*/\.coder/blobs/[^'\n/]+)'")


def replay_updates(
    entries: Sequence[RestoredEntry], workspace: Path, todos: Sequence[TodoItem] = ()
) -> list[Any]:
    messages = [(Message.from_record(e.record), e.diff) for e in entries if e.kind == "message"]
    results = {m.tool_call_id: (m.content or "", diff) for m, diff in messages if m.role == "tool" and m.tool_call_id}
    updates: list[Any] = []
    for message, _ in messages:
        if message.role == "user" and message.origin != "note":  # a note is the engine's words, not the user's
            updates += _user_updates(message)
        elif message.role == "assistant":
            if message.reasoning:
                updates.append(update_agent_thought_text(message.reasoning))
            if message.content:
                updates.append(update_agent_message_text(message.content))
            for call in message.tool_calls or ():
                result, diff = results.get(call.id, (None, None))
                updates.append(_finished_call(call.id, call.name, call.function.arguments, result, diff, workspace))
    entries_left = [t for t in todos if t.status != "cancelled"]
    if entries_left:
        updates.append(update_plan([plan_entry(t.content, status=PLAN_STATUS.get(t.status, "completed"))  # type: ignore[arg-type]
                                    for t in entries_left]))
    return updates


def own_words(content: str) -> str:
    """A user message's text without what the engine added to it (attachments, hook context, reminders)."""
    return split_added(content)[0]


def _user_updates(message: Message) -> list[Any]:
    text = own_words(message.content or "")
    if _TOOL_IMAGES.match(text):
        return []  # the images a tool returned, sent to the model as a user message: not the user's
    updates: list[Any] = []
    if message.images:
        text = _BLOB_PATH.sub("", text).strip()
    if text:
        updates.append(update_user_message_text(text))
    for image in message.images or ():
        try:
            data = base64.b64encode(Path(image.blob).read_bytes()).decode("ascii")
        except OSError:
            updates.append(update_user_message_text(f"[image {image.name} is no longer available]"))
            continue
        updates.append(update_user_message(ImageContentBlock(type="image", data=data, mime_type=image.mime)))
    return updates


def _finished_call(
    call_id: str, tool: str, arguments_json: str, result: str | None, diff: str | None, workspace: Path
) -> Any:
    try:
        arguments = json.loads(arguments_json or "{}")
    except json.JSONDecodeError:
        arguments = {}
    if not isinstance(arguments, dict):
        arguments = {}
    failed = result is None or _failed(result)
    text = result if result is not None else "(no result: the process stopped during this call)"
    content = _diff_content(diff, workspace) if diff and not failed else []
    if not content:
        content = [tool_content(text_block(text[:MAX_RESULT_CHARS]))]
    return start_tool_call(
        call_id,
        tool_title(tool, _key(arguments)),
        kind=tool_kind(tool),  # type: ignore[arg-type]
        status="failed" if failed else "completed",
        content=content,
        locations=tool_locations(arguments, workspace) or None,
        raw_input=arguments,
    )


def _diff_content(diff: str, workspace: Path) -> list[Any]:
    """The diff a call made, per file as ACP wants it. The files have changed since, so the old and new text are
    the hunks' own sides (what the call changed, with its context lines), not whole files."""
    try:
        changes = parse_patch(diff)
    except ToolError:
        return []
    content = []
    for change in changes:
        old: list[str] = []
        new: list[str] = []
        for hunk in change.hunks:
            for line in hunk.lines:
                if line.tag in (" ", "-"):
                    old.append(line.text)
                if line.tag in (" ", "+"):
                    new.append(line.text)
        old_text = None if change.kind is ChangeKind.ADD else "\n".join(old)
        path = str((workspace / (change.move_to or change.path)).resolve())
        content.append(tool_diff_content(path, "\n".join(new), old_text))
    return content


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

"""The engine's events as ACP ``session/update`` notifications (SPEC 24).

One ``UpdateMapper`` per session turns each event into zero or more updates: text and reasoning deltas become
message and thought chunks, a tool call becomes ``tool_call`` then ``tool_call_update`` (status, progress, title, kind,
locations, the result, and for write/edit/patch the diff of every file it changed), the todo list becomes a
``plan``, a mode change a ``current_mode_update``, a change of the slash commands on offer (MCP prompts arriving) an
``available_commands_update``, the context's size after each model call a ``usage_update``. Errors, notices and slash-command results reach the user as
message text: an ACP client has no other place for them.
"""

from __future__ import annotations

import json
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
    update_tool_call,
)
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import AvailableCommand, ToolCallLocation, UsageUpdate

from engine.command_results import CommandReply
from engine.events import (
    ErrorEvent,
    Event,
    LoopDetected,
    ModeChanged,
    Notice,
    ReasoningDelta,
    TextDelta,
    TodosChanged,
    ToolCallExecuting,
    ToolCallFinished,
    ToolCallOutput,
    ToolCallScheduled,
    ToolProgress,
    ToolStatus,
    SlashCommandsChanged,
    UsageUpdated,
    VerificationFinished,
)
from engine.server.acp.diffs import file_diffs

# The ACP tool kind of each engine tool; an MCP tool or anything new is "other".
TOOL_KINDS: dict[str, str] = {
    "read": "read",
    "list": "read",
    "glob": "search",
    "grep": "search",
    "write": "edit",
    "edit": "edit",
    "patch": "edit",
    "bash": "execute",
    "fetch": "fetch",
    "task": "think",
    "todoread": "think",
    "todowrite": "think",
    "skill": "read",
    "question": "other",
}
_FILE_ARGUMENTS = ("path", "file_path")
_STATUS = {
    ToolStatus.SUCCESS: "completed",
    ToolStatus.ERROR: "failed",
    ToolStatus.DENIED: "failed",
    ToolStatus.CANCELLED: "failed",
}
# A tool result larger than this is cut in the update (the model still gets all of it).
MAX_RESULT_CHARS = 20_000
# A running call's live output: its last characters are the update's content (ACP replaces the content each time).
MAX_LIVE_CHARS = 4_000
PLAN_STATUS = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}


def tool_kind(tool: str) -> str:
    return TOOL_KINDS.get(tool, "other")


def tool_title(tool: str, key_argument: str) -> str:
    return f"{tool} {key_argument}".strip()


def tool_locations(arguments: dict[str, Any], workspace: Path) -> list[ToolCallLocation]:
    for name in _FILE_ARGUMENTS:
        value = arguments.get(name)
        if isinstance(value, str) and value:
            return [ToolCallLocation(path=str((workspace / value).resolve()))]
    return []


def commands_update(commands: Sequence[tuple[str, str]]) -> Any:
    """The slash commands on offer (built-ins, custom commands, skills, MCP prompts) as ``available_commands_update``."""
    return update_available_commands(
        [AvailableCommand(name=name.lstrip("/"), description=summary) for name, summary in commands]
    )


class UpdateMapper:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._live: dict[str, str] = {}  # a running call's latest output, by call id

    def updates(self, event: Event) -> list[Any]:
        match event:
            case TextDelta(text=text):
                return [update_agent_message_text(text)]
            case ReasoningDelta(text=text):
                return [update_agent_thought_text(text)]
            case ToolCallScheduled(call_id=call_id, tool=tool, key_argument=key, arguments=arguments):
                return [
                    start_tool_call(
                        call_id,
                        tool_title(tool, key),
                        kind=tool_kind(tool),  # type: ignore[arg-type]
                        status="pending",
                        locations=tool_locations(arguments, self.workspace) or None,
                        raw_input=arguments,
                    )
                ]
            case ToolCallExecuting(call_id=call_id):
                return [update_tool_call(call_id, status="in_progress")]
            case ToolProgress(call_id=call_id):
                progress = [tool_content(text_block(event.summary()))]
                return [update_tool_call(call_id, status="in_progress", content=progress)]
            case ToolCallOutput(call_id=call_id, text=text):
                live = self._live[call_id] = (self._live.get(call_id, "") + text)[-MAX_LIVE_CHARS:]
                return [update_tool_call(call_id, status="in_progress", content=[tool_content(text_block(live))])]
            case ToolCallFinished():
                self._live.pop(event.call_id, None)
                return [self._finished(event)]
            case TodosChanged(todos=todos):
                entries = [
                    plan_entry(todo.content, status=PLAN_STATUS.get(todo.status, "completed"))  # type: ignore[arg-type]
                    for todo in todos
                    if todo.status != "cancelled"
                ]
                return [update_plan(entries)]
            case ModeChanged(mode=mode):
                return [update_current_mode(mode)]
            case SlashCommandsChanged(commands=commands):
                return [commands_update(commands)]
            case UsageUpdated(context_tokens=used, context_window=size):
                return [UsageUpdate(session_update="usage_update", used=max(used, 0), size=max(size, 0))]
            case CommandReply(text=text):
                return [update_agent_message_text(text.rstrip("\n") + "\n")]
            case ErrorEvent(message=message):
                return [update_agent_message_text(f"\n\nerror: {message}\n")]
            case Notice(text=text, level=level):
                return [update_agent_message_text(f"\n{level}: {text}\n")] if level == "warning" else []
            case LoopDetected(what=what):
                return [update_agent_message_text(f"\n\nloop detected: {what}\n")]
            case VerificationFinished(command=command, outcome=outcome, reason=reason):
                return [update_agent_message_text(f"\nauto-verify `{command}`: {outcome} ({reason})\n")]
            case _:
                return []

    def _finished(self, event: ToolCallFinished) -> Any:
        content: list[Any] = []
        if event.diff:
            content += [
                tool_diff_content(str(change.path), change.new_text, change.old_text)
                for change in file_diffs(event.diff, self.workspace)
            ]
        if not content:
            content.append(tool_content(text_block(_result_text(event.result))))
        return update_tool_call(
            event.call_id,
            status=_STATUS.get(event.status, "completed"),  # type: ignore[arg-type]
            content=content,
            raw_output=event.result,
        )


def _result_text(result: dict[str, Any]) -> str:
    if not result.get("ok", True) and isinstance(result.get("error"), str):
        return f"error: {result['error']}"
    text = json.dumps(result, ensure_ascii=False, indent=1)
    return text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + "\n... (cut)"

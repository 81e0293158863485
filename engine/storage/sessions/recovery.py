"""Repairing a history loaded after a crash (SPEC 12, 14), so it is valid for the Chat Completions API again.

The API refuses a conversation in which an assistant message's tool call has no ``tool`` result before the next
non-tool message. A process killed while a call ran (or awaited approval) leaves exactly that; every such call gets
a synthetic failed result, placed right after the results that do exist. Completed calls keep their real results
and are never run again. A trailing assistant answer cut off mid-stream is kept, still marked interrupted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from engine.messages import Message, ToolCall

INTERRUPTED_ERROR = "interrupted: the process stopped before this call finished"


def interrupted_result(call: ToolCall) -> Message:
    return Message.tool(call.id, call.name, json.dumps({"ok": False, "error": INTERRUPTED_ERROR}))


def repair_history(
    messages: Sequence[Message], *, resume_from_call: str | None = None
) -> tuple[list[Message], list[str]]:
    """Returns the repaired messages and one note per repair, in words.

    ``resume_from_call``: the call whose interaction was pending when the process died (``EventLog.pending_interaction``).
    When it is an unanswered call of the last assistant message, it and the unanswered calls after it are left
    open, for the orchestrator to run through the tool chain again (which asks again); ``open_tool_calls`` lists
    them.
    """
    repaired: list[Message] = []
    notes: list[str] = []
    position = 0
    while position < len(messages):
        message = messages[position]
        repaired.append(message)
        position += 1
        if message.role != "assistant" or not message.tool_calls:
            continue
        answered: set[str | None] = set()
        while position < len(messages) and messages[position].role == "tool":
            answered.add(messages[position].tool_call_id)
            repaired.append(messages[position])
            position += 1
        missing = [call for call in message.tool_calls if call.id not in answered]
        missing_ids = [call.id for call in missing]
        if position == len(messages) and resume_from_call in missing_ids:
            missing = missing[: missing_ids.index(resume_from_call)]
        for call in missing:
            repaired.append(interrupted_result(call))
            notes.append(f"the {call.name} call {call.id} had no result (the process stopped); marked interrupted")
    last = repaired[-1] if repaired else None
    if last is not None and last.role == "assistant" and last.interrupted and not last.tool_calls:
        notes.append("the last answer was cut off; it is kept as it was, marked interrupted")
    return repaired, notes


def open_tool_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """The calls of the last assistant message still without a result, in order, when nothing but tool results
    follows it: the calls a resumed turn still has to run."""
    answered: set[str | None] = set()
    for message in reversed(messages):
        if message.role == "tool":
            answered.add(message.tool_call_id)
            continue
        if message.role == "assistant" and message.tool_calls:
            return [call for call in message.tool_calls if call.id not in answered]
        return []
    return []

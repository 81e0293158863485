"""Resume (SPEC 12): a stored session made valid for the API again, and what is left to do in it.

A process killed mid-turn leaves assistant tool calls without results. Calls whose approval was pending are run
again through the tool chain (so the user is asked again); every other open call gets a synthetic "interrupted"
result, because it may have half-run and must never run twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.messages import Message, ToolCall
from engine.storage.records import LoadedSession
from engine.storage.recovery import open_tool_calls, repair_history
from engine.storage.store import Store


@dataclass(frozen=True)
class ResumePlan:
    loaded: LoadedSession
    messages: list[Message]
    notes: list[str]
    # Calls to run again (their approval was pending), and the assistant message that made them.
    open_calls: list[ToolCall]
    open_message: Message | None

    @property
    def session_id(self) -> str:
        return self.loaded.info.id


def plan_resume(store: Store, session_ref: str) -> ResumePlan:
    """Loads and repairs the session (raising ``UnknownSession`` with a readable message for an unknown id),
    writing the repaired history back so the database and the snapshot agree."""
    loaded = store.load_session(session_ref)
    pending = store.pending_interaction(loaded.info.id) if loaded.unfinished_task_id else None
    pending_call = pending.request.data.get("call_id") if pending is not None else None
    messages, notes = repair_history(loaded.messages, resume_from_call=pending_call)
    if messages != loaded.messages:
        store.replace_messages(loaded.info.id, messages)
    open_calls = open_tool_calls(messages)
    open_message = next(
        (m for m in reversed(messages) if m.role == "assistant" and m.tool_calls), None
    ) if open_calls else None
    return ResumePlan(loaded, messages, notes, open_calls, open_message)

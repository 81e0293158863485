"""A long stored session for the resume benchmark, written through the engine's ``Store``: exchanges of a question,
a ``read`` tool call, its result and an answer, the last answer ending in ``LAST_ANSWER``."""

from __future__ import annotations

import json
from pathlib import Path

LAST_ANSWER = "RESUMEDLASTANSWER"


def write_session(workspace: Path, messages: int, last_answer: str = LAST_ANSWER) -> str:
    """Stores a session of ``messages`` messages (whole exchanges of four) ending with ``last_answer``; returns its
    id."""
    from engine.messages import FunctionCall, Message, ToolCall
    from engine.storage.store import Store

    store = Store.open(workspace)
    try:
        session_id = store.sessions.create(model="scripted-model", mode="default")
        exchanges = max(messages // 4, 1)
        for index in range(exchanges):
            call = ToolCall(id=f"call_{index}", function=FunctionCall(
                name="read", arguments=json.dumps({"path": f"src/module_{index}.py"})))
            answer = last_answer if index == exchanges - 1 else (
                f"Step {index} **validates** the input, then `returns` it; see `module_{index}.py`.")
            for message in (
                Message.user(f"question {index}: how does step {index} work?"),
                Message.assistant(None, tool_calls=[call]),
                Message.tool(call.id, "read", json.dumps({"ok": True, "content": f"def step_{index}(): ...\n"})),
                Message.assistant(answer),
            ):
                store.conversation.append(session_id, message)
    finally:
        store.close()
    return session_id
